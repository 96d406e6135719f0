"""The message service: one user message, from the API to a dispatched reply.

``submit_message`` is the spine of the product (README "Architecture"):
each of its steps is a function below, in the order they run.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, prefetch_related_objects
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from documents.analysis import Analysis
from documents.language import BROWSER_SWITCH_CONFIDENCE, SWITCH_CONFIDENCE, detect_language
from documents.models import ChatDocument
from documents.services import (
    ReferencedDocuments,
    analyze_message,
    attach_documents,
    delete_originals,
    document_tools,
    reference_blocks,
)
from lifeassistant.consents import Consents, consents_of, consents_of_user
from lifeassistant.db import retry_once_on_conflict
from lifeassistant.privacy import purposes_to_ask, withheld_skills, withheld_tools
from lifeassistant.models import KnowledgeItem, Profile
from lifeassistant.memory_prompt import replace_memory_section
from lifeassistant.observability.metrics import record_skill_activations
from lifeassistant.text import join_sections
from skills.catalog_prompt import skills_prompt
from skills.inertia import is_allowed
from skills.services import Catalog, SkillPlan, current_catalog, plan_skills, route_if_unmatched

from .actions import (
    apply_confirmation,
    withdraw_for_failed_reply,
    withdraw_for_stopped_reply,
    withdraw_for_superseded_reply,
)
from .replies import can_retry, fail
from .failures import Failure
from .reply_progress import clear_events, publish_deleted, publish_end, stop_events
from skills.commands import CommandPlan, plan_commands
from .language import django_language, fallback_language
from .limits import bounded
from .memory import memory_section
from .light_context_store import context_for, context_tools, prompt_section_for
from .models import FINAL_STATUSES, conversations_to_lock, lock_conversation, Conversation, IdempotencyRecord, Message, ToolCall
from skills.preprocessor import PreprocessingResult
from skills.preprocessor import execute as preprocess
from .tasks import queue_reply
from .titles import heuristic_title

if TYPE_CHECKING:
    from django.contrib.auth.models import User

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Submission:
    user_message: Message
    assistant_message: Message | None
    # What the just-created messages' relations hold, by message id (the API shows them
    # without asking the database for relations known to be empty).
    relations: dict[int, dict[str, list[Any]]] = field(default_factory=dict)


class IdempotencyConflict(Exception):
    """The Idempotency-Key was already used with a different request."""


class TurnConflict(Exception):
    """The message cannot be regenerated or edited now; the text says why (for a 409)."""


@dataclass(frozen=True)
class Understood:
    """What steps 1–2 made of the message: its commands, intent, documents and language."""

    preprocessed: PreprocessingResult
    commands: CommandPlan
    analysis: Analysis
    referenced: ReferencedDocuments
    intent: str

    @property
    def needs_model(self) -> bool:
        """False when a command (/help, shell output, unknown command) already answered."""
        return self.commands.reply is None


def submit_message(
    *,
    user: User,
    conversation: Conversation,
    content: str,
    accept_language: str | None = None,
    replacing: Message | None = None,
) -> Submission:
    """Store the user's message and its reply, queueing the reply task when the model must answer.

    ``accept_language`` (the request's header) decides the language of a first message
    too short to tell its own, when neither the conversation nor the profile has one.
    ``replacing`` is the user message an edit replaces: it and its reply are superseded
    in the same transaction (``TurnConflict`` when it is no longer editable).
    """
    if replacing is not None:
        check_editable(replacing)  # before the model calls below; again under the lock
    profile = profile_for(user, conversation)
    consents = consents_of(profile)
    catalog = current_catalog()
    understood = understand(
        content, user=user, conversation=conversation, profile=profile, catalog=catalog,
        consents=consents, accept_language=accept_language,
    )
    routed = route_before_lock(understood, conversation=conversation, profile=profile, consents=consents)
    # A deadlock or serialization failure rolls the whole transaction back: once more.
    return retry_once_on_conflict(
        lambda: store_turn(
            understood,
            user=user,
            conversation=conversation,
            profile=profile,
            catalog=catalog,
            consents=consents,
            routed=routed,
            content=content,
            replacing=replacing,
        )
    )


def store_turn(
    understood: Understood,
    *,
    user: User,
    conversation: Conversation,
    profile: Profile,
    catalog: Catalog,
    consents: Consents,
    routed: str | None,
    content: str,
    replacing: Message | None = None,
) -> Submission:
    """Steps 3–7 in one transaction: route with inertia, store the message and its
    documents, build the system prompt, store the pending reply, apply a typed
    confirmation, save the inertia state and queue the reply after commit."""
    with transaction.atomic():
        # Locking the conversation serialises its messages, so the skill-inertia state
        # is read and written atomically (lock order: conversation, then actions).
        # Asked with the lock, a read most turns can skip: a new user has no knowledge items
        # yet. (The EXISTS sees the items committed when the statement started; none is
        # written under this lock, so one committed while it waited reaches the next message.)
        locked = (
            conversations_to_lock()
            .annotate(knows_the_user=Exists(KnowledgeItem.objects.filter(owner_id=OuterRef("owner_id"))))
            .get(pk=conversation.pk)
        )
        if replacing is not None:
            supersede_turn(replacing)
            forget_title_of_edited_opening(locked)
        previous_skills = list(locked.active_skills or [])
        light = context_for(locked, understood.intent)
        plan = detect_and_compose(
            understood, conversation=locked, profile=profile, catalog=catalog, consents=consents, routed=routed,
            has_documents=locked.has_documents, light=light,
        )
        user_message, attached = persist_user_message(locked, content=content, understood=understood)
        system_prompt = system_prompt_for(
            plan,
            understood,
            conversation=locked,
            profile=profile,
            catalog=catalog,
            consents=consents,
            previous_skills=previous_skills,
            knows_the_user=locked.knows_the_user,
            light=light,
        )
        assistant_message = persist_reply(
            locked, user_message, plan=plan, system_prompt=system_prompt, understood=understood,
            consent_asked=consents_to_ask(understood, plan, profile=profile, catalog=catalog, consents=consents),
        )
        confirmed = understood.needs_model and apply_confirmation(
            conversation=locked, text=content, user=user, reply=assistant_message
        )  # "sim" / "não" answers the actions the last reply proposed; the model sees the outcome
        save_conversation_state(locked, plan, understood=understood, content=content, attached=bool(attached))
        if understood.needs_model:
            dispatch_reply(assistant_message)
    record_skill_activations(assistant_message.active_skills, assistant_message.skill_reason)
    return Submission(
        user_message,
        assistant_message,
        {**new_relations(user_message, documents=attached), **new_relations(assistant_message, tool_calls=bool(confirmed))},
    )


def profile_for(user: User, conversation: Conversation) -> Profile:
    """The user's profile: the one loaded with the conversation when the view asked
    for it (``select_related("owner__profile")``, no extra query), else from the database."""
    if Conversation.owner.is_cached(conversation):
        owner = conversation.owner
        if type(owner).profile.is_cached(owner):
            try:
                return owner.profile
            except Profile.DoesNotExist:
                pass
    return Profile.for_user(user)


def skills_off(profile: Profile, consents: Consents) -> list[str]:
    """The skills a message may not use: those the user turned off, and those whose
    sensitive data they have not consented to (``lifeassistant.privacy``)."""
    return [*profile.disabled_skills, *withheld_skills(consents.given)]


def consents_to_ask(
    understood: Understood, plan: SkillPlan, *, profile: Profile, catalog: Catalog, consents: Consents
) -> list[str]:
    """The purposes to ask the user's consent for on this reply: a skill withheld for lack
    of it that the message called for (by a trigger or its command), or a withheld tool
    that an active skill would have offered; never one the user already answered."""
    # Skills that wait on a purpose not answered yet, and that the user otherwise has on.
    waiting = {
        skill.name for skill in catalog.skills
        if skill.name in withheld_skills(consents.answered) and skill.name not in profile.disabled_skills
        and is_allowed(skill, profile.preferences)
    }
    wanted_skills: set[str] = set()
    if waiting:
        wanted_skills = {command.name for command in understood.preprocessed.commands if command.type == "skill"}
        if understood.needs_model:  # the triggers again: detection left these skills out
            wanted_skills.update(catalog.matcher.match(understood.intent))
        wanted_skills &= waiting
    active = set(plan.composition.skill_names)
    wanted_tools = [tool for skill in catalog.skills if skill.name in active for tool in skill.tools]
    return purposes_to_ask(consents.answered, wanted_skills=wanted_skills, wanted_tools=wanted_tools)


def understand(
    content: str,
    *,
    user: User,
    conversation: Conversation,
    profile: Profile,
    catalog: Catalog,
    consents: Consents,
    accept_language: str | None = None,
) -> Understood:
    """Steps 1–2: preprocess and analyze.

    1. ``/skill args``, ``!shell`` and ``@document`` references are separated from the
       prose; /help, unknown commands and shell output answer at once (skills.commands),
       in the message's language.
    2. The prose becomes a clean intent; bulky pasted content becomes context items
       (documents later), and the language is detected (documents.services): a message
       too short to tell keeps the conversation's, else the profile's, else the
       browser's language (chat.language). Referenced documents are appended after the
       analysis, so they are not extracted again.
    """
    preprocessed = preprocess(content)
    known = fallback_language(conversation.language, profile.language, accept_language)
    # Only the browser's language (none used or chosen yet) gives way to a less sure vote.
    switch = SWITCH_CONFIDENCE if conversation.language or profile.language else BROWSER_SWITCH_CONFIDENCE
    # Command lines ("!date", "/finance …") are not prose: their names would vote English.
    language = detect_language(preprocessed.cleaned_content, previous=known, switch_confidence=switch)
    commands = commands_of(
        preprocessed, user=user, profile=profile, catalog=catalog, consents=consents, language=language
    )
    model_text = commands.model_text or content
    # A skill's arguments ("/finance Hoy gasté…") are the user's words too, so they are
    # judged with the prose; a command's output ("!date") is not the user's language.
    own_words = "\n\n".join(part for part in (commands.skill_raw_arguments.strip(), preprocessed.cleaned_content) if part)
    if own_words != preprocessed.cleaned_content:
        language = detect_language(own_words, previous=known, switch_confidence=switch)
    analysis = analyze_message(model_text, language=language)
    referenced = reference_blocks(user=user, conversation=conversation, references=preprocessed.references)
    intent = bounded(join_sections(analysis.intent, referenced.text), settings.INTENT_MAX_CHARS)
    return Understood(preprocessed, commands, analysis, referenced, intent)


def commands_of(
    preprocessed: PreprocessingResult,
    *,
    user: User,
    profile: Profile,
    catalog: Catalog,
    consents: Consents,
    language: str | None,
) -> CommandPlan:
    """What the message's commands do, their answers in ``language``."""
    with translation.override(django_language(language)):
        return plan_commands(
            preprocessed,
            skills=catalog.skills,
            preferences=profile.preferences,
            is_staff=user.is_staff,
            disabled=profile.disabled_skills,
            needs_consent=withheld_skills(consents.given),
        )


def route_before_lock(
    understood: Understood, *, conversation: Conversation, profile: Profile, consents: Consents
) -> str | None:
    """The semantic router's skill for a message no trigger or inertia claims (None if off).

    A model call, so it runs before the conversation is locked: other messages of the
    conversation must not wait behind it.
    """
    if not understood.needs_model:
        return None
    return route_if_unmatched(
        conversation=conversation,
        text=understood.intent,
        preferences=profile.preferences,
        explicit=understood.commands.explicit_skill,
        disabled=skills_off(profile, consents),
    )


def detect_and_compose(
    understood: Understood,
    *,
    conversation: Conversation,
    profile: Profile,
    catalog: Catalog,
    consents: Consents,
    routed: str | None,
    has_documents: bool,
    light: dict[str, Any] | None,
) -> SkillPlan:
    """Steps 3–4: triggers → inertia on the locked conversation, then tools, prompt, tone
    and temperature composed from the active skills (skills.services.plan_skills), with
    the catalog the message was understood with; ``light`` is the message's light
    context (``context_for``), whose tool is offered while there is one."""
    commands = understood.commands
    return plan_skills(
        catalog=catalog,
        conversation=conversation,
        text=understood.intent,
        preferences=profile.preferences,
        explicit=commands.explicit_skill,
        explicit_args=commands.skill_args,
        explicit_raw_arguments=commands.skill_raw_arguments,
        extra_tools=(
            *document_tools(
                has_documents=has_documents,
                needed=bool(understood.analysis.items) or understood.referenced.needs_reader,
            ),
            *context_tools(light),
        ),
        routed=routed,
        disabled=skills_off(profile, consents),
        withheld_tools=withheld_tools(consents.given),
    )


def persist_user_message(
    conversation: Conversation, *, content: str, understood: Understood
) -> tuple[Message, list[ChatDocument]]:
    """Step 6a: the user's message, verbatim, with its intent and its extracted documents."""
    intent = understood.intent
    user_message = Message.objects.create(
        conversation=conversation,
        role=Message.Role.USER,
        status=Message.Status.DONE,
        content=content,
        intent=intent if intent != content else "",
        language=understood.analysis.language or "",
    )
    return user_message, attach_documents(user_message, understood.analysis.items)


def system_prompt_for(
    plan: SkillPlan,
    understood: Understood,
    *,
    conversation: Conversation,
    profile: Profile,
    catalog: Catalog,
    consents: Consents,
    previous_skills: list[str],
    knows_the_user: bool,
    light: dict[str, Any] | None,
) -> str:
    """Steps 4–5: the composed prompt, the skills catalog, what is known about the user
    (profile and knowledge items, chat.memory; ``knows_the_user`` False when there are
    no items to read), and the light context ``light`` (cleared on closing words, shown
    when the message refers back).

    The AVAILABLE_DOCUMENTS listing is not part of it: the worker adds it when the reply
    runs (``chat.answering.model_system_prompt``). Every paste changes that listing, so
    stored here it made each paste's prompt a new row of several KB.
    """
    composition = plan.composition
    return join_sections(
        composition.system_prompt,
        skills_prompt(catalog.skills, profile.preferences, skills_off(profile, consents)),
        memory_section(profile, composition.skill_names, has_items=knows_the_user),
        prompt_section_for(
            conversation,
            understood.intent,
            context=light,
            previous_skills=previous_skills,
            new_skills=list(composition.skill_names),
            reason=plan.reason,
        ),
    )


def persist_reply(
    conversation: Conversation,
    user_message: Message,
    *,
    plan: SkillPlan,
    system_prompt: str,
    understood: Understood,
    consent_asked: list[str],
) -> Message:
    """Step 6b: the assistant's reply, pending for the model or already answered by a
    command, with the skills ledger of the plan and the consents it asks for."""
    reply = understood.commands.reply
    ledger = {**plan.ledger_fields(), "system_prompt": system_prompt}
    if reply is not None and understood.commands.explicit_skill is None:
        # /help, an unknown command or shell output: no skill wrote it (the page would show
        # the skills of the conversation as this reply's). A "/finance" that turns the
        # skill on keeps it.
        ledger.update(active_skills=[], tools_offered=[])
    message = Message.objects.create(
        conversation=conversation,
        role=Message.Role.ASSISTANT,
        status=Message.Status.PENDING if reply is None else Message.Status.DONE,
        reply_to=user_message,
        content=bounded(reply or "", settings.REPLY_MAX_CHARS),
        finished_at=None if reply is None else timezone.now(),
        # The reply's fixed texts (action summaries, notices) follow the message's language.
        language=understood.analysis.language or "",
        consent_asked=consent_asked,
        **ledger,
    )
    return message


RELATIONS = ("tool_calls", "pending_actions", "documents")


def new_relations(
    message: Message, *, documents: list[ChatDocument] | None = None, tool_calls: bool = False
) -> dict[int, dict[str, list[Any]]]:
    """A just-created message's relations for the API, by its id: it has no tool calls,
    pending actions or documents, except the ``documents`` just attached and, with
    ``tool_calls``, the confirmed calls just copied (read back)."""
    return {
        message.pk: {
            "tool_calls": list(message.tool_calls.all()) if tool_calls else [],
            "pending_actions": [],
            "documents": list(documents or []),
        }
    }


def save_conversation_state(
    conversation: Conversation, plan: SkillPlan, *, understood: Understood, content: str, attached: bool
) -> None:
    """The new inertia state, the language, a first title and whether the conversation
    holds documents (``attached``: this message attached some), saving only those fields.

    /help, shell output and unknown commands leave inertia alone.
    """
    fields: list[str] = []
    if attached and not conversation.has_documents:
        conversation.has_documents = True
        fields.append("has_documents")
    if understood.needs_model or understood.commands.explicit_skill:
        fields += plan.apply_state(conversation)
    language = understood.analysis.language
    if language and language != conversation.language:
        conversation.language = language
        fields.append("language")
    if not conversation.title and understood.needs_model:
        # The request in the first message, until the reply task asks the model (if any).
        # A command answered at once ("/help", a skill that is off) names nothing: the next
        # message will.
        conversation.title = heuristic_title(understood.analysis.intent or content)
        conversation.title_source = Conversation.TitleSource.MESSAGE
        fields += ["title", "title_source"]
    if fields:
        conversation.save(update_fields=[*fields, "updated_at"])


def dispatch_reply(assistant_message: Message) -> None:
    """Step 7: queue the reply task for ``assistant_message`` after the current transaction commits.

    A broker that refuses the task fails the reply at once, so the user sees an error
    and can retry instead of waiting on a reply nothing will ever answer.
    """
    def send() -> None:
        try:
            queue_reply(assistant_message.pk)
        except Exception:
            logger.exception("could not queue reply %s", assistant_message.pk)
            fail(assistant_message, Failure.NOT_QUEUED, "the reply task could not be queued (see the traceback logged above)")

    transaction.on_commit(send)


def lock_reply(message: Message) -> Message:
    """Inside a transaction: lock the message's conversation, then the message's row, in
    the one lock order (conversation first), and return the row as it is now."""
    lock_conversation(message.conversation_id)
    return Message.objects.select_for_update().get(pk=message.pk)


def retry_reply(assistant_message: Message) -> Message | None:
    """Put a failed (or stuck) reply back in the queue; None when it cannot be (see ``can_retry``).

    Checked again under the row lock, so of two concurrent retries one queues the reply
    and the other gets None. The new queueing time goes in ``started_at`` (the claim
    overwrites it when a worker starts), so a queued retry is not "stuck" until the time
    limit passes again: a second retry meanwhile is refused.
    """
    with transaction.atomic():
        locked = lock_reply(assistant_message)
        if not can_retry(locked):
            return None
        # The new run starts over: the old run's offers must not run, and its tool
        # calls go (confirmed writes, iteration 0, stay).
        withdraw_for_failed_reply(locked)
        if locked.prompt_id is not None:
            locked.system_prompt = with_fresh_memory(locked, locked.conversation)
            locked.save(update_fields=["prompt"])
        locked.tool_calls.filter(iteration__gte=1).delete()
        Message.objects.filter(pk=locked.pk).update(
            status=Message.Status.PENDING, error="", error_code="", started_at=timezone.now(), finished_at=None, content=""
        )
        # The old run's log ended with its final event; the new run streams a new one.
        transaction.on_commit(lambda: clear_events(locked.pk))
        dispatch_reply(locked)
    assistant_message.refresh_from_db()
    return assistant_message


def cancel_reply(assistant_message: Message) -> Message:
    """Stop a pending or running reply (idempotent): it becomes ``cancelled`` at once.

    Its text is what its readers were sent: the log is marked stopped first, so no later
    batch of the worker's is accepted, and the text before the mark is saved (when the log
    is unavailable, the last checkpoint stays). What it proposed is withdrawn at once (and
    again by the worker, for proposals made before it noticed); its readers get the final
    event now. The worker notices at its next batch of text or tool call, closes the model
    stream and records the usage spent. A reply that already ended is returned unchanged.
    """
    with transaction.atomic():
        locked = lock_reply(assistant_message)
        was = locked.status
        if locked.role == Message.Role.ASSISTANT and was in (Message.Status.PENDING, Message.Status.RUNNING):
            fields: dict[str, Any] = {"status": Message.Status.CANCELLED, "finished_at": timezone.now()}
            if was == Message.Status.RUNNING:
                text = stop_events(locked.pk)
                if text is not None:
                    fields["content"] = bounded(text, settings.REPLY_MAX_CHARS)
            Message.objects.filter(pk=locked.pk).update(**fields)
            withdraw_for_stopped_reply(locked)
            transaction.on_commit(lambda: publish_end(locked.pk, Message.Status.CANCELLED))
    return Message.objects.prefetch_related("tool_calls", "documents", "pending_actions").get(pk=assistant_message.pk)


def delete_conversation(conversation: Conversation) -> None:
    """Delete a conversation and everything in it.

    Django gathers the rows to delete before its own transaction; a message stored in
    between (a POST racing the delete) was left out, and the commit failed on its foreign
    key: a 500. Locking the conversation first orders the two: a message being stored
    finishes first and goes with the conversation, or finds it gone (a 404)."""
    with transaction.atomic():
        locked = lock_conversation(conversation.pk)
        # Replies still being written have readers following them: end their streams now.
        unended = list(
            Message.objects.filter(conversation=locked, role=Message.Role.ASSISTANT)
            .exclude(status__in=FINAL_STATUSES)
            .values_list("pk", flat=True)
        )
        # The files people sent go with it, once the delete is committed.
        originals = list(
            ChatDocument.objects.filter(conversation=locked).exclude(original="").values_list("original", flat=True)
        )
        locked.delete()
        if unended:
            transaction.on_commit(lambda: publish_deleted(unended))
        if originals:
            transaction.on_commit(lambda: delete_originals(originals))


def live_messages(conversation_id: int) -> Any:
    """The conversation's messages in its thread: superseded ones are kept but left out."""
    return Message.objects.filter(conversation_id=conversation_id, superseded_at__isnull=True)


def last_live(conversation_id: int, role: str) -> Message | None:
    return live_messages(conversation_id).filter(role=role).order_by("-created_at", "-id").first()


def check_regenerable(reply: Message) -> None:
    """A reply can be regenerated when it is the conversation's last one and it has ended."""
    last = last_live(reply.conversation_id, Message.Role.ASSISTANT)
    if reply.role != Message.Role.ASSISTANT or reply.reply_to_id is None or last is None or last.pk != reply.pk:
        raise TurnConflict(_("Only the conversation's last reply can be regenerated."))
    if not reply.has_ended:
        raise TurnConflict(_("This reply is still being written; stop it before regenerating it."))


def check_editable(user_message: Message) -> None:
    """A message can be edited when it is the user's last one and its reply has ended."""
    last = last_live(user_message.conversation_id, Message.Role.USER)
    if last is None and not Message.objects.filter(pk=user_message.pk).exists():
        raise Message.DoesNotExist  # its conversation was deleted meanwhile: a 404
    if user_message.role != Message.Role.USER or last is None or last.pk != user_message.pk:
        raise TurnConflict(_("Only your last message in the conversation can be edited."))
    if live_messages(user_message.conversation_id).filter(reply_to=user_message).exclude(status__in=FINAL_STATUSES).exists():
        raise TurnConflict(_("Its reply is still being written; stop it before editing the message."))


def supersede(messages: list[Message]) -> None:
    """Take messages out of the thread, keeping them; what their replies proposed expires,
    so a later "sim" cannot run an offer the user no longer sees."""
    now = timezone.now()
    Message.objects.filter(pk__in=[m.pk for m in messages]).update(superseded_at=now)
    for message in messages:
        message.superseded_at = now
        if message.role == Message.Role.ASSISTANT:
            withdraw_for_superseded_reply(message)


def forget_title_of_edited_opening(conversation: Conversation) -> None:
    """An edit of the conversation's first message takes back the title made from it (by
    the heuristic or the model, never one the user set): the new text names it, and what
    the user edited away no longer shows in the list or answers a search."""
    derived = (Conversation.TitleSource.MESSAGE, Conversation.TitleSource.MODEL)
    if conversation.title_source not in derived:
        return
    if live_messages(conversation.pk).filter(role=Message.Role.USER).exists():
        return  # not the first message: the title stays
    conversation.title, conversation.title_source = "", Conversation.TitleSource.NONE
    conversation.save(update_fields=["title", "title_source"])


def supersede_turn(user_message: Message) -> None:
    """Under the conversation's lock: check the edit still applies and supersede the
    message with its reply."""
    check_editable(user_message)
    supersede([user_message, *live_messages(user_message.conversation_id).filter(reply_to=user_message)])


def regenerate_reply(reply: Message) -> Submission:
    """Supersede the conversation's last reply and queue a new one to the same user message.

    The new reply keeps the old one's plan (skills, tools, prompt): the question did not
    change; only the prompt's "About the user" section is built again (``with_fresh_memory``).
    Actions the user confirmed with that message already ran; their outcomes
    (tool calls of iteration 0) are copied so the model sees them again, not run again.
    A reply a command wrote (/help, an unknown command, shell output) is written again by
    the command, at once, as sending it again would: the model never answered it.
    ``TurnConflict`` when ``reply`` is not the last one or still runs.
    """
    answer = command_answer(reply)
    with transaction.atomic():
        locked = lock_conversation(reply.conversation_id)
        old = Message.objects.select_related("reply_to").get(pk=reply.pk)
        check_regenerable(old)
        supersede([old])
        new = Message(
            conversation=locked,
            role=Message.Role.ASSISTANT,
            status=Message.Status.PENDING if answer is None else Message.Status.DONE,
            content=answer or "",
            finished_at=None if answer is None else timezone.now(),
            reply_to_id=old.reply_to_id,
            language=old.language,
            active_skills=old.active_skills,
            skill_reason=old.skill_reason,
            # A consent revoked since takes back what the old plan offered.
            tools_offered=[name for name in old.tools_offered if name not in withheld_tools(consents_of_user(locked.owner_id).given)],
            temperature=old.temperature,
            fixed_tokens=old.fixed_tokens,
            monolithic_fixed_tokens=old.monolithic_fixed_tokens,
        )
        new.system_prompt = with_fresh_memory(old, locked)
        new.save(force_insert=True)
        confirmed = list(old.tool_calls.filter(iteration=0))
        for call in confirmed:
            call.pk, call.message = None, new
        ToolCall.objects.bulk_create(confirmed)
        # A new reply is activity: the conversation moves up its owner's list.
        Conversation.objects.filter(pk=locked.pk).update(updated_at=timezone.now())
        if answer is None:
            dispatch_reply(new)
    user_message = old.reply_to
    assert user_message is not None  # check_regenerable refused a reply to nothing
    prefetch_related_objects([user_message], *RELATIONS)
    return Submission(user_message, new, new_relations(new, tool_calls=bool(confirmed)))


def with_fresh_memory(reply: Message, conversation: Conversation) -> str:
    """The reply's stored prompt with its "About the user" section built from what is known
    now: a memory item the user deleted since must not reach the model again."""
    stored = reply.system_prompt
    if not stored:
        return ""
    section = memory_section(Profile.for_user(conversation.owner), reply.active_skills or [])
    return replace_memory_section(stored, section)


def command_answer(reply: Message) -> str | None:
    """What the commands of the message ``reply`` answers write now, in the reply's
    language; None when the model answers that message."""
    if reply.reply_to_id is None:
        return None
    asked = Message.objects.select_related("conversation__owner").filter(pk=reply.reply_to_id).first()
    if asked is None:
        return None
    owner = asked.conversation.owner
    profile = Profile.for_user(owner)
    plan = commands_of(
        preprocess(asked.content),
        user=owner,
        profile=profile,
        catalog=current_catalog(),
        consents=consents_of(profile),
        language=reply.language or None,
    )
    return None if plan.reply is None else bounded(plan.reply, settings.REPLY_MAX_CHARS)


def request_fingerprint(*, conversation_id: int, body: Any) -> str:
    """A stable hash of what a create request asked for, to tell a retry from a reuse."""
    canonical = json.dumps({"conversation": conversation_id, "body": body}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def replay_or_none(*, user: User, key: str, fingerprint: str) -> dict[str, Any] | None:
    """The stored first response for this key, None when the key is new.

    Raises ``IdempotencyConflict`` when the key was used for a different request.
    """
    record = IdempotencyRecord.objects.filter(owner=user, key=key).first()
    if record is None:
        return None
    if record.fingerprint != fingerprint:
        raise IdempotencyConflict(_("This Idempotency-Key was already used with a different request."))
    return dict(record.response_body)


def submit_message_once(
    *,
    user: User,
    conversation: Conversation,
    content: str,
    key: str,
    fingerprint: str,
    render: Callable[[Submission], dict[str, Any]],
    accept_language: str | None = None,
) -> tuple[dict[str, Any], bool]:
    """``submit_message`` guarded by an Idempotency-Key: (response body, created).

    The record is written in the same transaction as the messages, so two concurrent
    requests with one key write one pair of messages: the loser rolls back and replays.
    """
    stored = replay_or_none(user=user, key=key, fingerprint=fingerprint)
    if stored is not None:
        return stored, False
    try:
        with transaction.atomic():
            body = render(
                submit_message(user=user, conversation=conversation, content=content, accept_language=accept_language)
            )
            IdempotencyRecord.objects.create(owner=user, key=key, fingerprint=fingerprint, response_body=body)
    except IntegrityError:
        stored = replay_or_none(user=user, key=key, fingerprint=fingerprint)
        if stored is None:
            raise
        return stored, False
    return body, True
