"""The patches to litellm, OpenAI SDK and pydantic internals apply only to the releases they were written for."""

from __future__ import annotations

import logging

import pytest

from lifeassistant import litellm_patches, llm


def test_the_pinned_releases_are_the_ones_the_patches_were_written_for() -> None:
    for package, version in litellm_patches.PATCHED_FOR.items():
        assert litellm_patches.installed_version(package) == version


def test_on_another_litellm_release_a_patch_is_skipped_with_a_warning(monkeypatch, caplog) -> None:
    llm.litellm_module()
    import litellm.utils

    monkeypatch.setattr(litellm.utils, "json_data", {"parsed": "tokenizer"})
    monkeypatch.setattr(
        litellm_patches, "installed_version", lambda package: "9.9.9" if package == "litellm" else litellm_patches.PATCHED_FOR[package]
    )

    with caplog.at_level(logging.WARNING, logger="lifeassistant.litellm_patches"):
        applied = litellm_patches.release_the_parsed_anthropic_tokenizer()

    assert applied is False
    assert litellm.utils.json_data == {"parsed": "tokenizer"}  # litellm left as it is
    assert "release_the_parsed_anthropic_tokenizer skipped: litellm 9.9.9 (written for 1.105.3)" in caplog.text


def test_on_the_pinned_release_the_same_patch_applies(monkeypatch) -> None:
    llm.litellm_module()
    import litellm.utils

    monkeypatch.setattr(litellm.utils, "json_data", {"parsed": "tokenizer"})

    assert litellm_patches.release_the_parsed_anthropic_tokenizer() is True
    assert litellm.utils.json_data is None


def test_on_another_pydantic_release_model_builds_are_not_deferred(monkeypatch, caplog) -> None:
    from pydantic._internal import _config

    monkeypatch.setattr(
        litellm_patches, "installed_version", lambda package: "3.0.0" if package == "pydantic" else litellm_patches.PATCHED_FOR[package]
    )
    before = _config.config_defaults["defer_build"]

    with caplog.at_level(logging.WARNING, logger="lifeassistant.litellm_patches"):
        with litellm_patches.deferred_pydantic_model_builds():
            during = _config.config_defaults["defer_build"]

    assert during == before is False
    assert "deferred_pydantic_model_builds skipped: pydantic 3.0.0" in caplog.text


@pytest.mark.parametrize(
    "patch",
    [
        litellm_patches.skip_the_sdk_type_walk_for_plain_requests,
        litellm_patches.drop_the_stream_finalizer,
        litellm_patches.price_streams_once_they_end,
    ],
)
def test_applying_a_patch_twice_changes_nothing_more(patch) -> None:
    llm.litellm_module()
    assert patch() is True
    assert patch() is True
