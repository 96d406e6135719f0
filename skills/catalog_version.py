"""The skill catalog's version in the shared cache: how every process learns that skills changed.

Each process caches the enabled skills and their compiled matcher (``skills.services``)
and rebuilds when this version moves. Any write to the skill rows bumps it: saves and
deletes through signals (``skills.apps``), bulk updates through ``SkillQuerySet``.
"""

from __future__ import annotations

from uuid import uuid4

from django.core.cache import cache
from django.db import transaction

from lifeassistant.cache import CACHE_ERRORS, log_cache_fault

VERSION_KEY = "skills:catalog-version"


def bump_catalog_version() -> None:
    """Tell every process that the skills changed (with the cache down, they rebuild anyway)."""
    try:
        cache.set(VERSION_KEY, uuid4().hex, timeout=None)
    except CACHE_ERRORS as exc:
        log_cache_fault("the skill catalog version was not bumped", exc)


def skills_changed() -> None:
    """Bump now, for reads inside the writing transaction, and again once it commits: a
    process that rebuilt between the two read the rows from before the commit and
    stored them under the first new version, where they would otherwise stay."""
    bump_catalog_version()
    transaction.on_commit(bump_catalog_version)


def shared_catalog_version() -> str:
    """The version every process agrees on; a fresh one (forcing a rebuild) when the cache is down."""
    try:
        version = cache.get(VERSION_KEY)
        if version is None:
            cache.add(VERSION_KEY, uuid4().hex, timeout=None)
            version = cache.get(VERSION_KEY)
    except CACHE_ERRORS as exc:
        log_cache_fault("the skill catalog is read from the database", exc)
        version = None
    return str(version) if version is not None else uuid4().hex
