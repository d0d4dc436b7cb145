"""Turning engine events and views into texts, per reader and language. Pure functions.

A text is only ever built from an event its reader is in the audience of, or from his own
view (``engine.view``): nothing here reads the state's secrets, so nothing here can leak
one. The moderator (a host who does not play) reads everything, marked with its audience.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .i18n import deadline_text, has, role_name, t


@dataclass(frozen=True)
class Reader:
    """Who reads: a player by his game name, or the moderator (name None)."""

    name: str | None
    lang: str
    moderator: bool = False


@dataclass(frozen=True)
class Info:
    """What texts need to know about the game besides the event."""

    code: str
    tz: str
    deadline: datetime | None


def reads(audience: Sequence[str] | None, player: str) -> bool:
    """Whether a player is in an event's audience: the one test every outbound text passes."""
    return audience is None or player in audience


def names(items: Sequence[Any], lang: str) -> str:
    return ", ".join(str(i) for i in items) if items else t(lang, "svc.none")


def alternatives(items: Sequence[str], lang: str) -> str:
    return t(lang, "svc.or").join(items)


def counts(pairs: Sequence[Sequence[Any]] | Mapping[str, Any]) -> str:
    items = pairs.items() if isinstance(pairs, Mapping) else pairs
    return ", ".join(f"{p} {n}" for p, n in items)


def verb_word(lang: str, verb: str) -> str:
    return t(lang, f"verb.{verb}") if has("en", f"verb.{verb}") else verb


def roles_line(roles: Mapping[str, str], became: Mapping[str, str], lang: str) -> str:
    out = []
    for p, r in roles.items():
        card = role_name(lang, r)
        if p in became:
            card = t(lang, "svc.became", role=card, became=role_name(lang, became[p]))
        out.append(f"{p} ({card})")
    return ", ".join(out)


def deck_line(deck: Mapping[str, int], lang: str) -> str:
    return ", ".join(f"{role_name(lang, r)} ({n})" for r, n in deck.items())


def role_help(lang: str, role: str) -> str:
    key = f"rolehelp.{role}"
    return t(lang, key) if has("en", key) else t(lang, "rolehelp.default")


def event_text(key: str, data: Mapping[str, Any], reader: Reader, info: Info) -> str:
    """One event (or one remembered fact) as ``reader`` reads it."""
    lang = reader.lang
    d: dict[str, Any] = dict(data)
    d.setdefault("code", info.code)
    d["deadline"] = deadline_text(info.deadline, info.tz, lang)
    msg = key
    if key == "game.started":
        d["count"] = len(data.get("players", ()))
        d["deck"] = deck_line(data.get("deck", {}), lang)
        d["seating"] = ", ".join(f"{i} {p}" for i, p in enumerate(data.get("players", ()), start=1))
    elif key == "role.dealt":
        d["role_help"] = role_help(lang, str(data.get("role")))
        d["role"] = role_name(lang, str(data.get("role")))
    elif key in ("night.choice", "day.choice"):
        msg = f"{key}.self" if data.get("actor") == reader.name else f"{key}.other"
        d["verb"] = verb_word(lang, str(data.get("verb")))
        d["target"] = data.get("target") or ""
    elif key == "night.dawn":
        msg = "night.dawn.some" if data.get("dead") else "night.dawn.none"
        d["dead"] = names(data.get("dead", ()), lang)
    elif key == "day.vote" or key == "day.suspects":
        d["tally"] = counts(data.get("tally", ()))
        d["suspects"] = names(data.get("suspects", ()), lang)
    elif key == "phase.ballot":
        d["suspects"] = alternatives(list(data.get("suspects", ())), lang)
    elif key == "day.ballots":
        ballots = {v: f"-> {tg}" for v, tg in data.get("ballots", {}).items()}
        d["ballots"] = counts(ballots) or t(lang, "svc.none")
        d["counts"] = counts(data.get("counts", {}))
    elif key == "game.over":
        d["team"] = t(lang, f"team.{data.get('team')}")
        reason = str(data.get("reason"))
        d["reason"] = t(lang, reason) if has("en", reason) else reason
        d["winners"] = names(data.get("winners", ()), lang)
        d["roles"] = roles_line(data.get("roles", {}), data.get("became", {}), lang)
    elif key in ("seer.result", "medium.result"):
        msg = f"{key}.were" if data.get("were") else f"{key}.not"
    elif key in ("werewolf.pack", "freemason.lodge", "mythomaniac.joined_pack", "mythomaniac.joined_seer"):
        d["members"] = names(data.get("members", ()), lang)
        if "role" in data:
            d["role"] = role_name(lang, str(data["role"]))
    if not has("en", msg):
        raw = json.dumps(dict(data), ensure_ascii=False, sort_keys=True)
        return t(lang, "event.unknown", key=key, data=raw)
    return t(lang, msg, **d)


def for_reader(key: str, data: Mapping[str, Any], audience: Sequence[str] | None, reader: Reader,
               info: Info) -> str:
    text = event_text(key, data, reader, info)
    if reader.moderator and audience is not None:
        return t(reader.lang, "svc.mod.private", to=", ".join(audience), text=text)
    return text


# -- replies built from views ----------------------------------------------------------------------
def options(actions: Sequence[str], lang: str) -> tuple[str, list[str]]:
    """What a player may do now, with the numbered list he may answer with (``vote 2``)."""
    by_verb: dict[str, list[str]] = {}
    numbered: list[str] = []
    for a in actions:
        verb, _, target = a.partition(" ")
        by_verb.setdefault(verb, [])
        if target:
            by_verb[verb].append(target)
            if target not in numbered:
                numbered.append(target)
    parts = []
    for verb, targets in by_verb.items():
        word = verb_word(lang, verb)
        listed = ", ".join(f"{numbered.index(x) + 1} {x}" for x in targets)
        parts.append(f"{word} {listed}" if listed else word)
    return "; ".join(parts), numbered


def phase_label(pv: Mapping[str, Any], lang: str) -> tuple[str, str]:
    phase = str(pv.get("phase"))
    n = pv.get("night") if phase == "night" else pv.get("day")
    number = t(lang, "svc.night_n", n=n) if phase in ("night", "nominations", "ballot") else ""
    return t(lang, f"phase.name.{phase}"), number


def status_text(pv: Mapping[str, Any], reader: Reader, info: Info, paused: bool,
                moderator_view: Mapping[str, Any] | None = None) -> str:
    lang = reader.lang
    if pv.get("status") == "over":
        lines = [t(lang, "svc.status.over", code=info.code, team=t(lang, f"team.{pv.get('team')}"),
                   winners=names(pv.get("winners", ()), lang)),
                 t(lang, "svc.status.roles", roles=roles_line(pv.get("roles", {}), {}, lang))]
        return "\n".join(lines)
    phase, number = phase_label(pv, lang)
    deadline = None if paused else info.deadline
    lines = [t(lang, "svc.status", code=info.code, phase=phase, number=number,
               deadline=deadline_text(deadline, info.tz, lang), alive=names(pv.get("alive", ()), lang),
               dead=names(pv.get("dead", ()), lang))]
    if pv.get("tally"):
        lines.append(t(lang, "svc.status.tally", tally=counts(pv["tally"])))
    if pv.get("suspects"):
        lines.append(t(lang, "svc.status.suspects", suspects=names(pv["suspects"], lang)))
    if moderator_view is not None:
        lines.append(t(lang, "svc.status.roles", roles=roles_line(moderator_view.get("roles", {}), {}, lang)))
        chosen = "; ".join(f"{slot}: {v} {tg or ''}".strip() for slot, (v, tg) in
                           moderator_view.get("choices", {}).items())
        if chosen:
            lines.append(t(lang, "svc.status.choices", choices=chosen))
    return "\n".join(lines)


def role_text(view: Mapping[str, Any], reader: Reader, info: Info) -> str:
    lang = reader.lang
    role = str(view.get("role"))
    lines = [t(lang, "svc.role", role=role_name(lang, role), role_help=role_help(lang, role))]
    if view.get("became"):
        lines.append(role_name(lang, role) + " -> " + role_name(lang, str(view["became"])))
    if not view.get("alive", True):
        lines.append(t(lang, "svc.role.ghost"))
    facts = [f for f in view.get("knowledge", ()) if f.get("key") != "role.dealt"]
    if facts:
        lines.append(t(lang, "svc.role.learned"))
        for f in facts:
            data = {k: v for k, v in f.items() if k != "key"}
            lines.append("- " + event_text(str(f["key"]), data, reader, info))
    return "\n".join(lines)
