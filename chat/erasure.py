"""Deleting a user's data for good: their account (``DELETE /api/v1/me/``) or their old
conversations (retention).

Both go the same way. Replies still running are stopped first (their worker notices at
its next batch of text and ends). Then the rows go in one transaction — the user, or the
conversations, and everything that hangs off them through their foreign keys — and, once
that committed, what the cache and the event log held of them: the light context of each
conversation, the event log of each reply, each reply's cached HTML and the user's
throttle budgets. The cache parts are best effort (a cache that is down is logged): they
expire on their own (``CONTEXT_LIGHT_TTL_SECONDS``, ``EVENTS_TTL_SECONDS``,
``REPLY_HTML_TTL_SECONDS``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from lifeassistant import light_context
from lifeassistant.cache import CACHE_ERRORS, log_cache_fault
from lifeassistant.event_log import EventLogUnavailable, event_log
from lifeassistant.models import AccountDeletion, Profile
from lifeassistant.privacy import subject_hash

from .models import FINAL_STATUSES, Conversation, Message, conversations_to_lock
from .reply_html import CACHED_FROM_CHARS, cache_key
from .reply_progress import publish_deleted
from .throttling import LoginUsernameThrottle, MessageRateThrottle

if TYPE_CHECKING:
    from django.contrib.auth.models import User

logger = logging.getLogger(__name__)

# Conversations deleted per transaction by retention: a user with years of them does not
# hold one long transaction (or its locks) on the whole history.
RETENTION_BATCH = 200


@dataclass
class Traces:
    """What the cache and the event log hold of some conversations, gathered before their rows go."""

    cache_keys: set[str] = field(default_factory=set)
    reply_ids: list[int] = field(default_factory=list)
    unended: list[int] = field(default_factory=list)

    def forget(self) -> None:
        """Delete them (best effort, after the rows' deletion committed)."""
        if self.unended:
            publish_deleted(self.unended)  # their readers learn it now, then the logs go
        try:
            cache.delete_many(list(self.cache_keys))
        except CACHE_ERRORS as exc:
            log_cache_fault("deleted data's cache entries are left to expire", exc)
        try:
            log = event_log()
            for reply_id in self.reply_ids:
                log.clear(reply_id)
        except EventLogUnavailable:
            logger.warning("event log unavailable; the logs of %d deleted replies expire on their own", len(self.reply_ids))


def traces_of(conversations: QuerySet[Conversation]) -> Traces:
    """The cache keys and reply logs of ``conversations``, read in chunks."""
    traces = Traces()
    for owner_id, conversation_id in conversations.values_list("owner_id", "pk").iterator():
        traces.cache_keys.add(light_context.context_key(owner_id, conversation_id))
    replies = Message.objects.filter(conversation__in=conversations, role=Message.Role.ASSISTANT)
    for pk, status, content in replies.values_list("pk", "status", "content").iterator(chunk_size=500):
        traces.reply_ids.append(pk)
        if status not in FINAL_STATUSES:
            traces.unended.append(pk)
        elif len(content) >= CACHED_FROM_CHARS:
            traces.cache_keys.add(cache_key(content))
    return traces


def stop_replies(reply_ids: Iterable[int]) -> None:
    """Mark running and pending replies stopped, committed before their rows are deleted:
    a worker writing one notices at its next batch and ends instead of writing on."""
    ids = list(reply_ids)
    if ids:
        Message.objects.filter(pk__in=ids).exclude(status__in=FINAL_STATUSES).update(
            status=Message.Status.CANCELLED, finished_at=timezone.now()
        )


def delete_account(user: User, *, reason: str = AccountDeletion.Reason.USER) -> None:
    """Delete ``user`` and all their data, tokens and sessions; keep only an
    ``AccountDeletion`` record that names nobody.

    Every row that refers to the user — profile, conversations with their messages,
    tool calls, actions and documents, memory, finance, health, people, consents, API
    tokens of any kind — goes by its foreign key's cascade.
    """
    conversations = Conversation.objects.filter(owner=user)
    traces = traces_of(conversations)
    traces.cache_keys.add(throttle_key(MessageRateThrottle(), user.pk))
    traces.cache_keys.add(LoginUsernameThrottle().key_for(user.get_username()))
    stop_replies(traces.unended)
    user_id = user.pk
    with transaction.atomic():
        # A message being stored now finishes first and goes with the rest (lock order:
        # conversations first), or finds its conversation gone.
        list(conversations_to_lock().filter(owner_id=user_id).values_list("pk", flat=True))
        end_sessions(user_id)
        get_user_model().objects.filter(pk=user_id).delete()
        AccountDeletion.objects.create(subject=subject_hash(user_id), reason=reason)
        transaction.on_commit(traces.forget)


def delete_conversations(conversations: QuerySet[Conversation]) -> int:
    """Delete ``conversations`` as an account deletion deletes them; how many went."""
    traces = traces_of(conversations)
    stop_replies(traces.unended)
    with transaction.atomic():
        list(conversations_to_lock().filter(pk__in=conversations.values("pk")).values_list("pk", flat=True))
        _, by_model = conversations.delete()
        transaction.on_commit(traces.forget)
    return by_model.get(Conversation._meta.label, 0)


def throttle_key(throttle: MessageRateThrottle, user_id: int) -> str:
    """The key of the user's message budget (DRF's ``ScopedRateThrottle`` format)."""
    return throttle.cache_format % {"scope": "messages", "ident": user_id}


def end_sessions(user_id: int) -> int:
    """Delete the user's web sessions. Sessions are stored signed, not by user: each live
    one is decoded (a deletion is rare, and runs through them once)."""
    mine = [
        session.pk
        for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator(chunk_size=500)
        if str(session.get_decoded().get("_auth_user_id")) == str(user_id)
    ]
    return Session.objects.filter(pk__in=mine).delete()[0]


def retention_cutoffs(now: datetime | None = None) -> Iterable[tuple[int, datetime]]:
    """(user id, cut-off) for each user whose conversations are kept a limited time: the
    user's own ``retention_days``, capped by ``RETENTION_MAX_DAYS``."""
    now = now or timezone.now()
    maximum = settings.RETENTION_MAX_DAYS
    users: QuerySet[Any, tuple[int, int | None]]
    if maximum:
        # Everyone: those who chose fewer days get their own, the others the maximum.
        users = get_user_model().objects.values_list("pk", "profile__retention_days")
    else:
        users = Profile.objects.filter(retention_days__isnull=False).values_list("user_id", "retention_days")
    for user_id, days in users.iterator():
        limits = [value for value in (days, maximum) if value]
        if limits:
            limit = min(limits)
            yield user_id, now - timedelta(days=limit)


def apply_retention(now: datetime | None = None) -> int:
    """Delete every conversation idle past its owner's retention; how many went.

    A conversation's age is its last activity (``updated_at``): an old thread the user
    wrote in yesterday is kept.
    """
    total = 0
    for user_id, cutoff in retention_cutoffs(now):
        while True:
            batch = list(
                Conversation.objects.filter(owner_id=user_id, updated_at__lt=cutoff).values_list("pk", flat=True)[
                    :RETENTION_BATCH
                ]
            )
            if not batch:
                break
            total += delete_conversations(Conversation.objects.filter(pk__in=batch))
    return total
