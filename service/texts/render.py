"""Turning engine events and views into texts, per reader and language. Pure functions.

A text is only ever built from an event its reader is in the audience of, or from his own
view (``engine.view``): nothing here reads the state's secrets, so nothing here can leak
one. The moderator (a host who does not play) reads everything, marked with its audience.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from engine import payloads
from service.texts import houses, lupusburg
from service.texts.choices import options as options  # what a player may do, numbered: named here too
from service.texts.choices import seat_number as seat_number
from service.texts.choices import verb_word as verb_word
from service.texts.i18n import deadline_text, has, role_name, sms_key, t


@dataclass(frozen=True)
class Reader:
    """Who reads: a player by his game name, or the moderator (name None)."""

    name: str | None
    lang: str
    moderator: bool = False
    sms: bool = False
    """He reads by SMS: where a text has a short ``sms.`` variant, he gets that one (he pays and
    waits per segment; the numbered options he is sent say what to type)."""
    acts: bool = False
    """He has a move in the phase the text opens, and his options follow it: the phase's text may
    leave to them what they name (the ballot's suspects)."""


@dataclass(frozen=True)
class Info:
    """What texts need to know about the game besides the event."""

    code: str
    tz: str
    deadline: datetime | None
    now: datetime | None = None
    """The clock: an SMS reader's deadlines read "Tue 18:00" when that cannot be mistaken."""


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


def roles_line(roles: Mapping[str, str | Sequence[str]], became: Mapping[str, str], lang: str) -> str:
    """``ann (Seer), ...``; a Lupusburg player's two characters read ``ann (Werewolf + Townsfolk)``."""
    out = []
    for p, r in roles.items():
        cards = [r] if isinstance(r, str) else list(r)
        card = " + ".join(role_name(lang, c) if has("en", f"role.{c}") else c for c in cards)
        if p in became:
            card = t(lang, "svc.became", role=card, became=role_name(lang, became[p]))
        out.append(f"{p} ({card})")
    return ", ".join(out)


def roles_by_card(roles: Mapping[str, str | Sequence[str]], became: Mapping[str, str], lang: str) -> str:
    """Everyone's card grouped by card, the commonest last ("Werewolf: cat, jon; Villager: ann, ..."):
    the short form for SMS, where "(Villager)" nine times cost a segment. A Lupusburg player's two
    characters are one item ("Townsfolk + Werewolf")."""
    by_card: dict[str, list[str]] = {}
    for p, r in roles.items():
        cards = [r] if isinstance(r, str) else list(r)
        card = " + ".join(role_name(lang, c) if has("en", f"role.{c}") else c for c in cards)
        if p in became:
            card = t(lang, "svc.became", role=card, became=role_name(lang, became[p]))
        by_card.setdefault(card, []).append(p)
    order = sorted(by_card, key=lambda c: len(by_card[c]))  # stable: the deal's order among equals
    items = [f"{card}: {', '.join(by_card[card])}" for card in order]
    if len(order) > 1 and len(by_card[order[-1]]) > 2:  # the commonest card: everyone not named before
        items[-1] = t(lang, "sms.cards.rest", card=order[-1])
    return "; ".join(items)


def grouped(pairs: Sequence[tuple[str, str]], lang: str, also: Sequence[str] = ()) -> str:
    """Votes by target, with who cast them, most voted first: ``bob(ann,cat) eve(dan)``; the names
    in ``also`` that got none are listed after, as ``ivy(nobody)``."""
    by: dict[str, list[str]] = {}
    for voter, target in pairs:
        by.setdefault(target, []).append(voter)
    order = sorted(by, key=lambda k: -len(by[k]))  # stable: the first voted first among equals
    items = [t(lang, "sms.group", target=k, voters=",".join(by[k])) for k in order]
    items += [t(lang, "sms.group", target=k, voters=t(lang, "svc.none")) for k in also if k not in by]
    return " ".join(items)


def move_sentence(actors: Sequence[str], text: str, lang: str, sep: str = ", ") -> str:
    """A move as typed (``kill bob``) told as what its actors chose: "ann kills bob", "ann y dan matan a
    bob" (``reveal.move.VERB``, its verb agreeing with how many chose it; the pack's choices when they
    differ). A verb without a sentence of its own reads ``ann: kill bob``."""
    verb, _, target = text.partition(" ")
    key = f"reveal.move.{verb}"
    if not has("en", key):
        key = "reveal.move.other"
    return t(
        lang,
        key,
        count=len(actors),
        actors=sep.join(actors),
        verb=verb_word(lang, verb),
        target=houses.label(target, lang),
    ).strip()


def deck_line(deck: Mapping[str, int], lang: str, sms: bool = False) -> str:
    """``Seer (1), Villager (9), Werewolf (2)``; by SMS a single card goes without its count."""
    return ", ".join(role_name(lang, r) if sms and n == 1 else f"{role_name(lang, r)} ({n})" for r, n in deck.items())


def role_help(lang: str, role: str) -> str:
    key = f"rolehelp.{role}"
    return t(lang, key) if has("en", key) else t(lang, "rolehelp.default")


#: Looks: what a look showed chooses the text (Were or not; in ``aura`` the Aura, the card, or a tile).
LOOKS = frozenset({"seer.result", "fortune_teller.result", "darius.result", "hamlet.peek"})


def look_variant(data: Mapping[str, Any], _reader: Reader | None = None) -> str:
    look = cast("payloads.Look", data)
    if look.get("blocked"):
        return "blocked"
    if look.get("aura"):
        return "aura"
    if look.get("role"):
        return "role"
    return "were" if look.get("were") else "not"


def _self_or_other(data: Mapping[str, Any], reader: Reader) -> str:
    return "self" if cast("payloads.Choice", data).get("actor", reader.name) == reader.name else "other"


def tied_out(data: Mapping[str, Any]) -> list[str]:
    """Who had as many nominations as the last suspect and is not one: the order around the table
    left him out (RULINGS: every tie goes by it). Nobody where the suspects are not simply the most
    nominated (the Owl-man named one; fewer than two were nominated)."""
    named = cast("payloads.Suspects", data)
    suspects = [str(p) for p in named.get("suspects", [])]
    tally = [(str(p), int(n)) for p, n in named.get("tally", [])]
    top = tally[: len(suspects)]
    if not suspects or len(tally) <= len(suspects) or {p for p, _ in top} != set(suspects):
        return []
    return [p for p, n in tally[len(suspects) :] if n == top[-1][1]]


def ballot_tied(data: Mapping[str, Any]) -> bool:
    """Whether the lynched had no more ballots than another suspect: the order around the table chose."""
    ballots = cast("payloads.Ballots", data)
    found = ballots.get("counts", {})
    most = found.get(ballots.get("lynched", ""))
    return most is not None and sum(n == most for n in found.values()) > 1


Variant = Callable[[Mapping[str, Any], "Reader"], "str | None"]

#: The rule by which an event's message is found in the catalogs, for anyone grepping from an event
#: key: the message is the key itself, or ``<key>.<variant>`` when the event's data picks one of
#: several sentences, the variant named here (``seer.result`` -> ``seer.result.were``); an SMS
#: reader gets ``sms.<that>`` where the catalog has a short form (``sms_key``). Each reads the data
#: as the shape ``engine.payloads`` declares for that key (values typed; a missing key reads as
#: absent, as in a fact remembered from an older game).
VARIANTS: dict[str, Variant] = {
    "night.choice": _self_or_other,
    "day.choice": _self_or_other,
    "night.dawn": lambda d, _r: "some" if cast("payloads.Dawn", d).get("dead") else "none",
    "werewolf.split": lambda d, _r: "lara" if cast("payloads.Split", d).get("overridden") else None,
    **dict.fromkeys(LOOKS, look_variant),
    "medium.result": lambda d, _r: "were" if cast("payloads.Look", d).get("were") else "not",
    "thief.result": lambda d, _r: "chest" if cast("payloads.ThiefResult", d).get("chest") else "nochest",
    "standing.reveal": lambda d, _r: "on" if cast("payloads.StandingReveal", d).get("on") else "off",
    "hamlet.skull_passed": lambda d, _r: "random" if cast("payloads.SkullPassed", d).get("random") else None,
    "miss_purple.aura": lambda d, _r: "none" if cast("payloads.LastAura", d).get("aura") is None else None,
    "phase.ballot": lupusburg.ballot_variant,
    # A tie says so: players who see "Bob 2, Eve 2, Bea 2" and then two suspects ask why not Bea.
    "day.suspects": lambda d, _r: "tie" if tied_out(d) else None,
    "day.ballots": lambda d, _r: "tie" if ballot_tied(d) else None,
    **lupusburg.VARIANTS,
}


def message_key(key: str, data: Mapping[str, Any], reader: Reader) -> str:
    """The catalog key of event ``key`` for ``reader`` (before its SMS form): see ``VARIANTS``."""
    variant = VARIANTS[key](data, reader) if key in VARIANTS else None
    return f"{key}.{variant}" if variant else key


def localized(data: Mapping[str, Any], lang: str) -> dict[str, Any]:
    """Data values as a reader reads them: cards, Auras and sides named in his language, lists joined."""
    out: dict[str, Any] = {}
    for k, v in data.items():
        if k in ("role", "card", "left", "right") and isinstance(v, str):
            out[k] = role_name(lang, v)
        elif k == "aura" and isinstance(v, str):
            out[k] = t(lang, f"aura.{v}") if has("en", f"aura.{v}") else v
        elif k in ("chest", "side") and isinstance(v, str):
            out[k] = t(lang, f"side.{v}") if has("en", f"side.{v}") else v
        elif isinstance(v, list | tuple) and all(isinstance(x, str | int) for x in v):
            out[k] = names(list(v), lang)
        elif v is None:
            out[k] = t(lang, "svc.none")
        else:
            out[k] = v
    return out


def event_text(key: str, data: Mapping[str, Any], reader: Reader, info: Info) -> str:
    """One event (or one remembered fact) as ``reader`` reads it: its message (``message_key``)
    filled with its data as he reads them, and with what ``FILLS`` works out for its key."""
    if key == "game.over":
        return game_over(data, reader.lang, reader.sms, None if reader.moderator else reader.name)
    data = houses.localize(data, reader.lang, reader.sms)  # a Lupusburg house in his language
    msg = message_key(key, data, reader)
    if not has("en", msg):
        raw = json.dumps(dict(data), ensure_ascii=False, sort_keys=True)
        return t(reader.lang, "event.unknown", key=key, data=raw)
    d: dict[str, Any] = localized(data, reader.lang)
    d.setdefault("code", info.code)
    d["deadline"] = deadline_text(info.deadline, info.tz, reader.lang, info.now if reader.sms else None)
    if key in FILLS:
        d.update(FILLS[key](data, reader))
    return t(reader.lang, sms_key(msg, reader.sms), **d)


def _started(data: Mapping[str, Any], reader: Reader) -> dict[str, Any]:
    started = cast("payloads.GameStarted", data)
    players = started.get("players", [])
    # Numbered: each player's seat is the number he is known by in every list of the game.
    return {
        "count": len(players),
        "deck": deck_line(started.get("deck", {}), reader.lang, reader.sms),
        "seating": ", ".join(f"{i} {name}" for i, name in enumerate(players, start=1)),
    }


def _choice(data: Mapping[str, Any], reader: Reader) -> dict[str, Any]:
    """A choice as what it does, to be said in a sentence ("Hai scelto di scrutare Marco"): ``choice.VERB``;
    a verb without one reads as typed ("kill bob")."""
    choice = cast("payloads.Choice", data)
    verb, target = str(choice.get("verb")), choice.get("target") or ""
    said = f"choice.{verb}"
    return {
        "choice": t(reader.lang, said, target=target)
        if has("en", said)
        else f"{verb_word(reader.lang, verb)} {target}".strip()
    }


def _tally(data: Mapping[str, Any], _reader: Reader) -> dict[str, Any]:
    vote = cast("payloads.Vote", data)  # or ``p.Suspects``: both carry the tally
    if "tally" in vote:  # the running tally (``Room.advance`` adds it to a nomination)
        return {"tally": counts(vote.get("tally", []))}
    return {"tally": f"{vote.get('target')} {vote.get('votes', '')}".strip()}  # what changed


def _split(data: Mapping[str, Any], reader: Reader) -> dict[str, Any]:
    split = cast("payloads.Split", data)
    return {
        "choices": ", ".join(
            move_sentence([actor], f"kill {target}", reader.lang) for actor, target in split.get("choices", {}).items()
        )
    }


def _ballots(data: Mapping[str, Any], reader: Reader) -> dict[str, Any]:
    lang = reader.lang
    cast_ = cast("payloads.Ballots", data)
    ballots, tallied = cast_.get("ballots", {}), cast_.get("counts", {})
    if reader.sms:  # by target, with who cast them: the counts go without saying ("hal(bob,lou) gus(dan)")
        pairs = [(v, str(x)) for v, tg in ballots.items() for x in (tg if isinstance(tg, list | tuple) else [tg])]
        listed = grouped(pairs, lang, list(tallied))
    else:
        # Lupusburg's players give one ballot per living character: a list, read "ann + bob".
        listed = ", ".join(
            f"{v} -> {' + '.join(str(x) for x in tg) if isinstance(tg, list | tuple) else tg}"
            for v, tg in ballots.items()
        ) or t(lang, "svc.none")
    return {"counts": counts(tallied), "ballots": listed, **_order(data, reader)}


def _order(data: Mapping[str, Any], reader: Reader) -> dict[str, Any]:
    """Whom a tie's order around the table is counted from (``payloads.TieOrder``), as the tie's text
    names it: "closest clockwise after fay, who holds "Welcome!"" (``first``: the one counted first,
    which an SMS reader is told)."""
    order = cast("payloads.TieOrder", data.get("order") or {})
    player = order.get("player", "")
    return {
        "order": t(reader.lang, f"tie.order.{order.get('by', 'seat')}", player=player),
        "first": order.get("first", player),
    }


#: What an event's message needs beyond its data as read (``localized``), by event key, each reading
#: the data as ``engine.payloads`` declares it.
FILLS: dict[str, Callable[[Mapping[str, Any], Reader], dict[str, Any]]] = {
    "game.started": _started,
    "night.dawn": lambda d, _r: {"count": len(cast("payloads.Dawn", d).get("dead", []))},
    "role.dealt": lambda d, r: {"role_help": role_help(r.lang, str(cast("payloads.RoleDealt", d).get("role")))},
    "night.choice": _choice,
    "day.choice": _choice,
    "day.vote": _tally,
    "day.suspects": lambda d, r: {**_tally(d, r), "tied": names(tied_out(d), r.lang), **_order(d, r)},
    "werewolf.split": _split,
    "phase.ballot": lambda d, r: {
        "suspects": alternatives(list(cast("payloads.BallotBegins", d).get("suspects", [])), r.lang)
    },
    "day.ballots": _ballots,
    **lupusburg.FILLS,
}


#: The sides that are one character: a verb agrees with them in the singular ("the Werehamster wins").
LONE_SIDES = frozenset({"werehamster", "darius", "werewolf"})


def side_count(team: object) -> int:
    """The ``count`` a sentence whose subject is a side takes (``game.over``): 1 for a lone one."""
    return 1 if team in LONE_SIDES else 2


def game_over(data: Mapping[str, Any], lang: str, sms: bool = False, name: str | None = None) -> str:
    """The end: a player (``name``) told first whether he won, then the side that won, the winners,
    every card. By SMS the cards and the nights are on request (``status``) and the text says how to ask."""
    reason = str(data.get("reason"))
    roles = {
        p: " + ".join(role_name(lang, c) for c in r) if isinstance(r, list) else r
        for p, r in data.get("roles", {}).items()
    }
    line = roles_by_card if sms else roles_line
    winners = names(data.get("winners", ()), lang)
    losers = [p for p in roles if p not in data.get("winners", ())]
    if sms and losers and data.get("winners") and len(", ".join(losers)) < len(winners):
        winners = t(lang, "sms.all_but", names=", ".join(losers))
    key = "game.over.points" if lupusburg.won_on_points(data) else "game.over"
    text = t(
        lang,
        sms_key(key, sms),
        team=t(lang, f"team.{data.get('team')}"),
        count=side_count(data.get("team")),
        reason=t(lang, reason) if has("en", reason) else reason,
        winners=winners,
        roles=line(roles, data.get("became", {}), lang),
    )
    if name is not None and name in roles:
        text = t(lang, "game.won" if name in data.get("winners", ()) else "game.lost") + " " + text
    if data.get("scores"):  # Lupusburg's, each explained
        text += ("\n" if "score_table" in data and not sms else " ") + lupusburg.scores_text(data, lang, sms)
    if sms:
        text += " " + t(lang, "sms.end.more")
    return text


def for_reader(key: str, data: Mapping[str, Any], audience: Sequence[str] | None, reader: Reader, info: Info) -> str:
    text = event_text(key, data, reader, info)
    if reader.moderator and audience is not None:
        return t(reader.lang, "svc.mod.private", to=", ".join(audience), text=text)
    return text
