"""Pending actions: a writing call waits for the user's yes, then runs exactly once."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from chat.actions import ActionConflict, accept, apply_confirmation, propose, reject
from chat.answering import build_llm_messages, execute_tool_call
from chat.replies import fail
from chat.failures import Failure
from chat.models import Conversation, Message, PendingAction, ToolCall
from lifeassistant.tools import ToolContext
from lifeassistant.models import Expense


pytestmark = pytest.mark.django_db


@pytest.fixture
def conversation(user: Any) -> Conversation:
    return Conversation.objects.create(owner=user)


def reply_in(conversation: Conversation, text: str = "Posso registrar?") -> Message:
    asked = Message.objects.create(conversation=conversation, role="user", content="Gastei 50 reais no mercado")
    return Message.objects.create(conversation=conversation, role="assistant", reply_to=asked, content=text)


def propose_expense(reply: Message, call_id: str = "call_1", amount: Any = 50) -> PendingAction:
    context = ToolContext(reply.conversation.owner, reply.conversation, reply)
    arguments = json.dumps({"amount": amount, "description": "mercado"})
    outcome = propose(message=reply, context=context, call_id=call_id, name="create_expense", arguments=arguments)
    assert outcome.ok, outcome.error
    return PendingAction.objects.get(pk=outcome.result["action_id"])


def new_reply(conversation: Conversation, text: str) -> Message:
    said = Message.objects.create(conversation=conversation, role="user", content=text)
    return Message.objects.create(conversation=conversation, role="assistant", reply_to=said, status="pending")


def test_a_writing_call_from_the_model_writes_nothing_and_asks(conversation: Conversation) -> None:
    reply = reply_in(conversation)
    context = ToolContext(conversation.owner, conversation, reply)

    content = execute_tool_call(
        reply, context, iteration=1, call_id="call_1", name="create_expense",
        arguments='{"amount": 50, "description": "mercado"}',
    ).content

    told = json.loads(content)
    assert told["status"] == "pending_confirmation"
    assert told["summary"] == "Record an expense of R$50.00 (mercado)"
    assert not Expense.objects.exists()
    assert PendingAction.objects.get().status == "pending"


def test_a_redelivered_writing_call_proposes_once(conversation: Conversation) -> None:
    reply = reply_in(conversation)
    context = ToolContext(conversation.owner, conversation, reply)
    arguments = '{"amount": 50, "description": "mercado"}'

    first = execute_tool_call(reply, context, iteration=1, call_id="call_1", name="create_expense", arguments=arguments)
    second = execute_tool_call(reply, context, iteration=1, call_id="call_1", name="create_expense", arguments=arguments)

    assert json.loads(first.content) == json.loads(second.content)
    assert first.status == second.status == "proposed"
    assert PendingAction.objects.count() == 1
    assert ToolCall.objects.count() == 1


def test_a_proposal_with_unusable_arguments_is_an_error_for_the_model(conversation: Conversation) -> None:
    reply = reply_in(conversation)
    context = ToolContext(conversation.owner, conversation, reply)

    content = execute_tool_call(
        reply, context, iteration=1, call_id="call_1", name="create_expense",
        arguments='{"amount": "cinquenta", "description": "mercado"}',
    ).content

    assert "is not an amount of money" in json.loads(content)["error"]
    assert not PendingAction.objects.exists()


def test_a_yes_runs_the_last_replys_action_once_and_records_it_on_the_new_reply(conversation: Conversation) -> None:
    action = propose_expense(reply_in(conversation))
    reply = new_reply(conversation, "sim")

    result = apply_confirmation(conversation=conversation, text="sim", user=conversation.owner, reply=reply)
    again = apply_confirmation(conversation=conversation, text="sim", user=conversation.owner, reply=new_reply(conversation, "sim"))

    assert [a.pk for a in result.executed] == [action.pk]
    assert again is None
    assert Expense.objects.count() == 1
    call = reply.tool_calls.get()
    assert (call.iteration, call.tool, call.ok) == (0, "create_expense", True)


def test_the_model_sees_the_confirmed_call_after_the_users_yes(conversation: Conversation) -> None:
    propose_expense(reply_in(conversation))
    reply = new_reply(conversation, "sim")
    apply_confirmation(conversation=conversation, text="sim", user=conversation.owner, reply=reply)

    messages = build_llm_messages(reply)

    assert [m["role"] for m in messages[-3:]] == ["user", "assistant", "tool"]
    assert messages[-2]["tool_calls"][0]["id"] == messages[-1]["tool_call_id"]
    assert json.loads(messages[-1]["content"])["status"] == "recorded"


def test_a_no_rejects_and_the_action_never_runs(conversation: Conversation) -> None:
    action = propose_expense(reply_in(conversation))

    result = apply_confirmation(conversation=conversation, text="não", user=conversation.owner, reply=new_reply(conversation, "não"))

    action.refresh_from_db()
    assert action.status == "rejected"
    assert result.rejected == [action]
    with pytest.raises(ActionConflict, match="already rejected"):
        accept(action)
    assert not Expense.objects.exists()


def test_an_expired_action_never_runs(conversation: Conversation) -> None:
    action = propose_expense(reply_in(conversation))
    PendingAction.objects.filter(pk=action.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    reply = new_reply(conversation, "sim")

    result = apply_confirmation(conversation=conversation, text="sim", user=conversation.owner, reply=reply)

    assert [a.pk for a in result.expired] == [action.pk]
    assert not Expense.objects.exists()
    assert "expired" in reply.tool_calls.get().error


def test_a_yes_after_a_question_in_between_confirms_the_reply_whose_action_waits(conversation: Conversation) -> None:
    action = propose_expense(reply_in(conversation))
    reply_in(conversation, "Você gastou R$ 320,00 este mês.")  # the user asked something else meanwhile

    result = apply_confirmation(conversation=conversation, text="sim, pode registrar", user=conversation.owner, reply=new_reply(conversation, "sim"))

    assert [a.pk for a in result.executed] == [action.pk]
    assert Expense.objects.count() == 1


def test_a_yes_goes_to_the_newest_reply_with_waiting_actions_only(conversation: Conversation) -> None:
    older = propose_expense(reply_in(conversation))
    newer = propose_expense(reply_in(conversation), call_id="call-2")

    result = apply_confirmation(conversation=conversation, text="sim", user=conversation.owner, reply=new_reply(conversation, "sim"))

    assert [a.pk for a in result.executed] == [newer.pk]
    older.refresh_from_db()
    assert older.status == "pending"  # still answerable from its card


def test_a_yes_with_only_an_old_expired_proposal_is_just_a_message(conversation: Conversation) -> None:
    action = propose_expense(reply_in(conversation))
    PendingAction.objects.filter(pk=action.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    reply_in(conversation, "Quer que eu mostre um resumo?")

    result = apply_confirmation(conversation=conversation, text="sim", user=conversation.owner, reply=new_reply(conversation, "sim"))

    assert result is None
    assert not Expense.objects.exists()


def test_accepting_twice_runs_once(conversation: Conversation) -> None:
    action = propose_expense(reply_in(conversation))

    done = accept(action)
    with pytest.raises(ActionConflict, match="already executed"):
        accept(PendingAction.objects.get(pk=action.pk))
    with pytest.raises(ActionConflict):
        accept(action)  # a stale copy still loses the claim

    assert done.status == "executed"
    assert done.result["expense"]["amount"]["formatted"] == "R$ 50,00"
    assert Expense.objects.count() == 1


def test_an_action_that_fails_when_run_is_reported_failed(conversation: Conversation) -> None:
    action = propose_expense(reply_in(conversation))
    PendingAction.objects.filter(pk=action.pk).update(arguments={"amount": -1, "description": "mercado"})
    action.refresh_from_db()

    done = accept(action)

    assert done.status == "failed"
    assert "positive" in done.error
    assert not Expense.objects.exists()


def test_rejecting_an_action_stops_it_for_good(conversation: Conversation) -> None:
    action = propose_expense(reply_in(conversation))

    assert reject(action).status == "rejected"
    with pytest.raises(ActionConflict):
        reject(PendingAction.objects.get(pk=action.pk))


def test_a_failed_reply_withdraws_its_proposals(conversation: Conversation) -> None:
    reply = reply_in(conversation)
    action = propose_expense(reply)

    fail(reply, Failure.MODEL_UNAVAILABLE, "The language model is unavailable (ServiceUnavailableError).")

    action.refresh_from_db()
    assert action.status == "expired"


def test_the_history_tells_the_model_what_became_of_a_proposal(conversation: Conversation) -> None:
    first = reply_in(conversation)
    execute_tool_call(
        first, ToolContext(conversation.owner, conversation, first), iteration=1, call_id="call_1",
        name="create_expense", arguments='{"amount": 50, "description": "mercado"}',
    )
    accept(PendingAction.objects.get())

    messages = build_llm_messages(new_reply(conversation, "e agora?"))

    replayed = json.loads(next(m for m in messages if m["role"] == "tool")["content"])
    assert replayed["status"] == "executed"
    assert replayed["result"]["status"] == "recorded"


def test_the_summary_follows_the_users_language(conversation: Conversation) -> None:
    said = Message.objects.create(conversation=conversation, role="user", content="I spent 50 at the market", language="en")
    reply = Message.objects.create(conversation=conversation, role="assistant", reply_to=said, content="Record it?")

    action = propose_expense(reply)

    assert action.summary == "Record an expense of R$50.00 (mercado)"


def test_a_rerun_reply_with_new_call_ids_proposes_the_same_write_once(conversation: Conversation) -> None:
    reply = reply_in(conversation)

    first = propose_expense(reply, call_id="call_before_crash")
    second = propose_expense(reply, call_id="call_after_reclaim")
    result = apply_confirmation(conversation=conversation, text="sim", user=conversation.owner, reply=new_reply(conversation, "sim"))

    assert second.pk == first.pk
    assert PendingAction.objects.count() == 1
    assert [a.pk for a in result.executed] == [first.pk]
    assert Expense.objects.count() == 1


def test_a_different_write_in_the_same_reply_is_still_its_own_action(conversation: Conversation) -> None:
    reply = reply_in(conversation)

    fifty = propose_expense(reply, call_id="call_1", amount=50)
    sixty = propose_expense(reply, call_id="call_2", amount=60)
    apply_confirmation(conversation=conversation, text="sim", user=conversation.owner, reply=new_reply(conversation, "sim"))

    assert fifty.pk != sixty.pk
    assert sorted(str(e.amount) for e in Expense.objects.all()) == ["50.00", "60.00"]


def test_a_rerun_after_the_write_ran_tells_the_model_instead_of_proposing_it_again(conversation: Conversation) -> None:
    reply = reply_in(conversation)
    accept(propose_expense(reply, call_id="call_before_crash"))
    context = ToolContext(conversation.owner, conversation, reply)

    outcome = propose(
        message=reply, context=context, call_id="call_after_reclaim", name="create_expense",
        arguments=json.dumps({"amount": 50, "description": "mercado"}),
    )

    assert outcome.result["status"] == "executed"
    assert PendingAction.objects.count() == 1
    assert Expense.objects.count() == 1


def test_a_retried_reply_can_propose_again_what_its_failed_run_had_offered(conversation: Conversation) -> None:
    reply = reply_in(conversation)
    withdrawn = propose_expense(reply, call_id="call_first_run")
    fail(reply, Failure.MODEL_UNAVAILABLE, "The language model is unavailable (ServiceUnavailableError).")

    again = propose_expense(reply, call_id="call_retry")

    assert again.pk != withdrawn.pk
    assert again.status == "pending"


def test_a_crash_between_the_claim_and_the_final_status_leaves_the_action_pending_and_nothing_written(
    conversation: Conversation, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chat import actions

    action = propose_expense(reply_in(conversation))
    real_execute = actions.REGISTRY.execute

    def write_then_crash(*args: Any, **kwargs: Any) -> Any:
        real_execute(*args, **kwargs)  # the expense is written...
        raise RuntimeError("worker lost")  # ...then the process dies before the status update

    monkeypatch.setattr(actions.REGISTRY, "execute", write_then_crash)
    with pytest.raises(RuntimeError):
        accept(action)
    action.refresh_from_db()
    assert action.status == "pending"
    assert not Expense.objects.exists()

    monkeypatch.undo()
    assert accept(action).status == "executed"
    assert Expense.objects.count() == 1


def test_a_crash_while_confirming_by_message_leaves_the_action_pending(
    conversation: Conversation, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chat import actions

    action = propose_expense(reply_in(conversation))

    def crash(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("worker lost")

    monkeypatch.setattr(actions.REGISTRY, "execute", crash)
    with pytest.raises(RuntimeError):
        apply_confirmation(conversation=conversation, text="sim", user=conversation.owner, reply=new_reply(conversation, "sim"))

    action.refresh_from_db()
    assert action.status == "pending"
