"""Lupusburg's houses as players read and type them: ``ann:left`` is shown ``ann:izquierda`` to a
Spanish reader (``ann:izq`` by SMS, where every character is paid for), and typed in any of the
three languages, with or without accents (``3:izquierda``, ``ann:destra``, ``mostrar dcha``). What
is typed is handed on in English (``vote ann:left``), as the grammar does for verbs, so records
replay in any language. A seat or a name where a house is needed means the player's one house
among the choices; with two, the question names only those two.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from service.texts import grammar
from service.texts.i18n import t

SIDES = ("left", "right")
#: How a house reads in the engine's events and moves.
HOUSE = re.compile(r"^(?P<owner>[^\s:]+):(?P<side>left|right)$")
#: What a player may type for a side (folded), in English, Italian and Spanish: the words, their
#: usual abbreviations, and the numbers the rules read (1 left, 2 right).
SIDE_WORDS: dict[str, str] = {
    **dict.fromkeys(("left", "l", "1", "izquierda", "izq", "izda", "i", "sinistra", "sin", "sx", "s"), "left"),
    **dict.fromkeys(("right", "r", "2", "derecha", "der", "dcha", "d", "destra", "des", "dx"), "right"),
}


def side_typed(word: str) -> str | None:
    """The side a word means in any language (``izquierda``, ``Destra``, ``dcha``), or None."""
    return SIDE_WORDS.get(grammar.fold(word.strip()))


def side_word(side: str, lang: str, sms: bool = False) -> str:
    """A side in the reader's language: ``izquierda``; by SMS its short form (``izq``, ``sx``)."""
    key = f"side.{side}"
    return t(lang, "sms." + key if sms else key)


def label(target: str, lang: str, sms: bool = False) -> str:
    """A move's target as the reader reads it: a house with its side in his language
    (``ann:izquierda``), a bare side (``show left``'s) likewise; anything else as it is."""
    found = HOUSE.match(target)
    if found is not None:
        return f"{found['owner']}:{side_word(found['side'], lang, sms)}"
    return side_word(target, lang, sms) if target in SIDES else target


def localize(value: Any, lang: str, sms: bool = False) -> Any:
    """An event's data with every house in it shown in the reader's language (values, list items,
    and mapping keys, as a ballot's counts have them); everything else as it is."""
    if isinstance(value, str):
        return label(value, lang, sms) if HOUSE.match(value) else value
    if isinstance(value, dict):
        return {localize(k, lang, sms): localize(v, lang, sms) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [localize(v, lang, sms) for v in value]
    return value


def spaced(args: Sequence[str], candidates: Sequence[str]) -> str | None:
    """The one word a move names, from what was typed after its verb: a house may be typed with a
    space where the lists show a colon (``4 izquierda``, ``ann dx``) when houses are the choices;
    anything else in more than one word is None (a move names one choice)."""
    if len(args) == 1:
        return args[0]
    if len(args) == 2 and side_typed(args[1]) and any(HOUSE.match(c) for c in candidates):
        return f"{args[0]}:{args[1]}"
    return None


def typed(word: str, candidates: Sequence[str], seats: Sequence[str]) -> str:
    """What a player named, for a move whose choices are ``candidates`` (``grammar.resolve``), with
    the sides of a house read in any language. A seat or a name that stands for a player whose houses
    are the choices means his house if only one of them is (``vote 6`` in a ballot of ``oli:left``);
    with both, ``grammar.Ambiguous`` names them; with none, the player, whose refusal the rules say."""
    text = word.strip()
    head, colon, side = text.rpartition(":")
    if colon and head and side_typed(side):
        text = f"{head}:{side_typed(side)}"
    elif not colon and side_typed(text) and any(c in SIDES for c in candidates):
        return str(side_typed(text))  # show's choices are his own sides
    target = grammar.resolve(text, candidates, seats)
    mine = [c for c in candidates if HOUSE.match(c) and c.rpartition(":")[0] == target]
    if len(mine) > 1:
        raise grammar.Ambiguous(word.strip(), tuple(mine))
    return mine[0] if mine else target
