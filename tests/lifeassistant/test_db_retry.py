"""A transaction the database aborted for a serialization failure or a deadlock runs once
more; anything else, or a second conflict, reaches the caller (docs/api.md,
Concurrent requests). And a row read by its key compiles no ordering."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.db import OperationalError

from lifeassistant.db import retry_once_on_conflict


class _DriverError(Exception):
    def __init__(self, sqlstate: str) -> None:
        super().__init__(sqlstate)
        self.sqlstate = sqlstate


def _aborted(sqlstate: str) -> OperationalError:
    # Django wraps the driver's error; psycopg's carries the SQLSTATE.
    error = OperationalError(f"aborted ({sqlstate})")
    error.__cause__ = _DriverError(sqlstate)
    return error


def _work(*outcomes: BaseException | str) -> tuple[list[int], Callable[[], str]]:
    calls: list[int] = []

    def work() -> str:
        calls.append(1)
        outcome = outcomes[len(calls) - 1]
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    return calls, work


@pytest.mark.parametrize("sqlstate", ["40001", "40P01"], ids=["serialization-failure", "deadlock"])
def test_a_conflict_is_retried_once_and_the_second_run_answers(sqlstate: str) -> None:
    calls, work = _work(_aborted(sqlstate), "stored")

    assert retry_once_on_conflict(work) == "stored"
    assert len(calls) == 2


def test_a_second_conflict_reaches_the_caller() -> None:
    calls, work = _work(_aborted("40P01"), _aborted("40001"))

    with pytest.raises(OperationalError):
        retry_once_on_conflict(work)
    assert len(calls) == 2


def test_any_other_database_error_is_not_retried() -> None:
    calls, work = _work(_aborted("53300"))  # too many connections

    with pytest.raises(OperationalError):
        retry_once_on_conflict(work)
    assert len(calls) == 1


@pytest.mark.django_db
def test_one_row_reads_a_row_by_its_key_without_ordering() -> None:
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from chat.models import Conversation
    from lifeassistant.db import one_row

    owner = get_user_model().objects.create(username="one-row")
    conversation = Conversation.objects.create(owner=owner)  # the model orders by its update time
    with CaptureQueriesContext(connection) as queries:
        assert one_row(Conversation.objects.filter(pk=conversation.pk)) == conversation
        assert one_row(Conversation.objects.filter(pk=conversation.pk + 1)) is None
        assert one_row(Conversation.objects.filter(pk=conversation.pk).values_list("title", flat=True)) == conversation.title
    assert not any("ORDER BY" in query["sql"] for query in queries), [query["sql"] for query in queries]
