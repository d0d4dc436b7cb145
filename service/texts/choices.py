"""The numbered choices a player is sent (``svc.options``, ``help``, the reminders): each player by
his seat, the number he is known by in every list of the game; a Lupusburg house by its owner's
seat and its side in the reader's language (``service.texts.houses``). Pure functions."""

from __future__ import annotations

from collections.abc import Sequence

from service.texts import houses
from service.texts.i18n import has, sms_key, t


def verb_word(lang: str, verb: str) -> str:
    """A verb as a player of ``lang`` types it (``sbrana`` for ``kill``)."""
    return t(lang, f"verb.{verb}") if has("en", f"verb.{verb}") else verb


def seat_number(target: str, seats: Sequence[str]) -> str | None:
    """What a player types for ``target`` by number: the seat of a player (``3``), the seat and side
    of a house (``3:left``); None for a choice that is no player's (a side, a coin, on or off)."""
    if target in seats:
        return str(seats.index(target) + 1)
    owner, colon, side = target.rpartition(":")
    return f"{seats.index(owner) + 1}:{side}" if colon and owner in seats else None


def options_text(actions: Sequence[str], lang: str, sms: bool, *, seats: Sequence[str]) -> str:
    """The line that offers ``actions``: "Choose by number or name: vote 2 bob, 5 eve" (``options``)."""
    return t(lang, sms_key("svc.options", sms), options=options(actions, lang, sms, seats=seats)[0])


def options(actions: Sequence[str], lang: str, sms: bool = False, *, seats: Sequence[str]) -> tuple[str, list[str]]:
    """What a player may do now, each player numbered by his seat (``seats``: the table in seating
    order), the number he is known by in every list for the whole game, so ``vote 3`` means one
    player whatever list came last: ``vote 2 bob, 5 eve``; by SMS without the commas (``vote 2 bob 5
    eve``). A Lupusburg player's houses go by his seat, their sides in the reader's language: ``votar
    2 bob:izquierda/derecha`` (``votar 2:izq``; by SMS ``2 bob:izq/der``). Choices that are no players
    (a coin, a side) are listed as they are typed, a side in his language. Returns the text and the
    seating its numbers refer to."""
    by_verb: dict[str, list[str]] = {}
    for a in actions:
        verb, _, target = a.partition(" ")
        by_verb.setdefault(verb, [])
        if target:
            by_verb[verb].append(target)
    parts = []
    for verb, targets in by_verb.items():
        items: list[str] = []
        owners: dict[str, int] = {}  # owner -> index of his item, to add his other side to it
        for x in targets:
            number = seat_number(x, seats)
            owner, colon, side = x.rpartition(":")
            if number is None:
                items.append(houses.label(x, lang, sms))
            elif colon and owner in owners:
                items[owners[owner]] += "/" + houses.side_word(side, lang, sms)
            else:
                if colon:
                    owners[owner] = len(items)
                    number = number.partition(":")[0]
                items.append(f"{number} {houses.label(x, lang, sms)}")
        listed = (" " if sms else ", ").join(items)
        word = verb_word(lang, verb)
        parts.append(f"{word} {listed}" if listed else word)
    return "; ".join(parts), list(seats)
