"""The user's data in the browser: the consent card in the chat, and on the preferences page
the consents, the retention choice and closing the account (asked twice)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from playwright.sync_api import Page, expect

from lifeassistant.models import Consent, MetricEntry, Profile
from tests.browser.conftest import (
    REPLY_TIMEOUT_MS,
    assert_accessible,
    last_reply,
    send,
    shot,
    sign_in,
    start_conversation,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_chat_asks_for_consent_before_storing_health_data(page: Page, base_url: str, user: Any, shipped_skills: None) -> None:
    sign_in(page, base_url)
    start_conversation(page)
    send(page, "Pesei 70 kg hoje")
    expect(last_reply(page)).to_have_attribute("data-status", "done", timeout=REPLY_TIMEOUT_MS)

    card = last_reply(page).get_by_test_id("consent-card")
    expect(card).to_have_attribute("data-purpose", "health")
    expect(card).to_contain_text("weight")
    assert_accessible(page, "the consent card")
    shot(page, "consent-card")
    card.get_by_test_id("consent-give").click()

    expect(card.get_by_role("status")).to_contain_text("Thank you")
    assert list(Consent.objects.filter(owner=user).values_list("purpose", "given")) == [("health", True)]


def test_revoking_health_consent_can_delete_the_metrics(page: Page, base_url: str, user: Any) -> None:
    MetricEntry.objects.create(owner=user, type="weight", value=Decimal("70"), unit="kg", recorded_at=timezone.now())
    sign_in(page, base_url)
    page.goto(f"{base_url}/preferences/")
    health = page.locator("[data-testid=consent][data-purpose=health]")
    health.get_by_test_id("consent-give").click()
    expect(health).to_contain_text("Given on")

    page.once("dialog", lambda dialog: dialog.accept())  # "also delete the metrics?"
    health.get_by_test_id("consent-revoke").click()

    expect(health).to_contain_text("Not given")
    assert not MetricEntry.objects.exists()


def test_the_retention_choice_is_saved(page: Page, base_url: str, user: Any) -> None:
    sign_in(page, base_url)
    page.goto(f"{base_url}/preferences/")
    page.get_by_test_id("retention-days").select_option("90")
    expect(page.locator("#saved")).to_have_text("Saved.")
    assert Profile.objects.get(user=user).retention_days == 90


def test_closing_the_account_asks_twice_then_signs_out(page: Page, base_url: str, user: Any) -> None:
    sign_in(page, base_url)
    page.goto(f"{base_url}/preferences/")
    expect(page.locator("#delete-heading + p")).to_contain_text("cannot be undone")
    page.get_by_test_id("delete-start").click()
    page.get_by_test_id("delete-password").fill("wrong")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_test_id("delete-confirm").click()
    expect(page.locator("#alert")).to_contain_text("Nothing was deleted")

    page.get_by_test_id("delete-password").fill("pass-ana-123")
    page.once("dialog", lambda dialog: dialog.dismiss())  # the second question, answered no
    page.get_by_test_id("delete-confirm").click()
    assert get_user_model().objects.filter(pk=user.pk).exists()

    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_test_id("delete-confirm").click()

    expect(page.get_by_test_id("account-deleted")).to_be_visible()
    assert not get_user_model().objects.filter(pk=user.pk).exists()
