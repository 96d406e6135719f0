"""People tools (relationships skill): the user's personal CRM."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext as _

from lifeassistant.models import Person
from lifeassistant.text import normalize

from .common import DATE_SCHEMA, date_from, owned
from .knowledge import knowledge_dict, matching_knowledge
from .registry import ToolContext, ToolError, tool

if TYPE_CHECKING:
    from django.contrib.auth.models import User

MAX_FACTS = 50


def person_dict(person: Person) -> dict[str, Any]:
    return {
        "id": person.pk,
        "name": person.name,
        "relationship": person.relationship,
        "birthday": person.birthday.isoformat() if person.birthday else None,
        "notes": person.notes,
        "facts": person.facts,
        "last_interaction_on": person.last_interaction_on.isoformat() if person.last_interaction_on else None,
    }


def find_people(user: User, name: str) -> list[Person]:
    """The user's people whose name or relationship matches ``name`` (accents and case ignored)."""
    wanted = normalize(name)
    people = list(Person.objects.filter(owner=user)[:1000])
    exact = [p for p in people if normalize(p.name) == wanted]
    if exact:
        return exact
    return [p for p in people if wanted in normalize(p.name) or (p.relationship and normalize(p.relationship) == wanted)]


@tool(
    "get_person",
    "What the user told about someone in their life (relationship, birthday, notes, facts), by name or id, "
    "with related facts from memory.",
    {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 120, "description": "Name or relationship (e.g. 'mãe')."},
            "person_id": {"type": "integer", "minimum": 1},
        },
        "anyOf": [{"required": ["name"]}, {"required": ["person_id"]}],
        "additionalProperties": False,
    },
)
def get_person(context: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
    if "person_id" in arguments:
        people = [owned(Person, context, arguments["person_id"], "person")]
    else:
        people = find_people(context.user, arguments["name"])
    if not people:
        return {"found": False, "name": arguments.get("name"), "people": []}
    related = matching_knowledge(context.user, people[0].name, limit=5)
    return {
        "found": True,
        "people": [person_dict(p) for p in people[:10]],
        "related_knowledge": [knowledge_dict(item) for item in related],
    }


def _target(context: ToolContext, arguments: dict[str, Any]) -> Person | None:
    """The person to update; None when the name is new (the call will add them)."""
    if "person_id" in arguments:
        return owned(Person, context, arguments["person_id"], "person")
    matches = [p for p in find_people(context.user, arguments["name"]) if normalize(p.name) == normalize(arguments["name"])]
    if len(matches) > 1:
        raise ToolError(f"More than one person is called {arguments['name']!r}; pass person_id.")
    return matches[0] if matches else None


def _changes(arguments: dict[str, Any]) -> list[str]:
    return [key for key in ("relationship", "birthday", "notes", "facts", "last_interaction_on") if key in arguments]


def _summarize_update(context: ToolContext, arguments: dict[str, Any]) -> str:
    person = _target(context, arguments)
    if "birthday" in arguments:
        date_from(arguments["birthday"])
    if "last_interaction_on" in arguments:
        date_from(arguments["last_interaction_on"])
    details = []
    if arguments.get("relationship"):
        details.append(arguments["relationship"])
    if arguments.get("birthday"):
        details.append(_("birthday %(date)s") % {"date": arguments["birthday"]})
    if arguments.get("notes"):
        details.append(arguments["notes"])
    for key, value in (arguments.get("facts") or {}).items():
        details.append(f"{key}: {value}")
    suffix = f" ({'; '.join(details)})" if details else ""
    if person is None:
        if "person_id" in arguments or "name" not in arguments:
            raise ToolError("Give the person's name.")
        return _("Add %(name)s to your people%(details)s") % {"name": arguments["name"], "details": suffix}
    if not _changes(arguments) and arguments.get("name", person.name) == person.name:
        raise ToolError("Nothing to change: give relationship, birthday, notes, facts or last_interaction_on.")
    return _("Update %(name)s%(details)s") % {"name": person.name, "details": suffix}


@tool(
    "update_person",
    "Save something new about someone in the user's life; adds the person when the name is new. Notes are "
    "appended, facts merged. Requires the user's confirmation.",
    {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 120},
            "person_id": {"type": "integer", "minimum": 1},
            "relationship": {"type": "string", "maxLength": 64},
            "birthday": DATE_SCHEMA,
            "notes": {"type": "string", "maxLength": 1000, "description": "Appended to what is already known."},
            "facts": {
                "type": "object",
                "additionalProperties": {"type": "string", "maxLength": 300},
                "maxProperties": 20,
                "description": "Short named facts, e.g. {\"gosta de\": \"café\"}.",
            },
            "last_interaction_on": DATE_SCHEMA,
        },
        "anyOf": [{"required": ["name"]}, {"required": ["person_id"]}],
        "additionalProperties": False,
    },
    writes=True,
    summary=_summarize_update,
)
def update_person(context: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
    person = _target(context, arguments)
    created = person is None
    if person is None:
        person = Person(owner=context.user, name=" ".join(arguments["name"].split()))
    if "relationship" in arguments:
        person.relationship = arguments["relationship"].strip()
    if "birthday" in arguments:
        person.birthday = date_from(arguments["birthday"])
    if "last_interaction_on" in arguments:
        person.last_interaction_on = date_from(arguments["last_interaction_on"])
    if arguments.get("notes"):
        person.notes = f"{person.notes}\n{arguments['notes'].strip()}".strip()
    if arguments.get("facts"):
        merged = {**person.facts, **arguments["facts"]}
        if len(merged) > MAX_FACTS:
            raise ToolError(f"A person can hold at most {MAX_FACTS} facts.")
        person.facts = merged
    person.save()
    return {"status": "created" if created else "updated", "person": person_dict(person)}
