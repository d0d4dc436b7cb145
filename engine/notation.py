"""Moves as players type them, in English: ``vote bob``, ``kill dan``, ``reveal off``.

The service's grammar accepts Italian and Spanish too, prefixes and list numbers; whatever
it understood, it hands the engine a canonical English move, which is also what game
records store.
"""

from __future__ import annotations

from .errors import IllegalAction
from .types import Action, Verb


def parse_move(actor: str, text: str) -> Action:
    words = text.strip().split()
    if not words:
        raise IllegalAction("move.empty", "an empty move")
    try:
        verb = Verb(words[0].lower())
    except ValueError:
        known = ", ".join(v.value for v in Verb)
        raise IllegalAction(
            "move.unknown_verb", f"unknown command {words[0]!r} (known: {known})", word=words[0]
        ) from None
    if len(words) > 2:
        raise IllegalAction(
            "move.too_long", f"{verb.value} takes one name, not {' '.join(words[1:])!r}", verb=verb.value
        )
    return Action(actor, verb, words[1] if len(words) == 2 else None)
