"""Standing orders: what a player decides in advance for a moment he cannot be asked about in
time (Dorian Wolf's and Hamlet's "reveal when killed"). Set at any time, in any phase, with
``reveal on`` / ``reveal off``; the default is on. Kept in ``marks['reveal']``."""

from __future__ import annotations

from collections.abc import Iterable

from ..types import Event, Phase, Verb
from .character import Power
from .state import TabulaState

ON, OFF = "on", "off"
MARK = "reveal"


def reveals(state: TabulaState, player: str) -> bool:
    """The player's standing order to reveal himself when killed (default: yes)."""
    return bool(state.marks.get(MARK, {}).get(player, True))


def _choices(state: TabulaState, actor: str) -> Iterable[str]:
    return (ON, OFF)


def _set(state: TabulaState, actor: str, value: str | None) -> tuple[TabulaState, list[Event]]:
    orders = dict(state.marks.get(MARK, {}))
    orders[actor] = value == ON
    fact = {"key": "standing.reveal", "on": value == ON}
    knowledge = dict(state.knowledge)
    knowledge[actor] = (*knowledge.get(actor, ()), fact)
    new = state.with_marks(**{MARK: orders}).evolve(knowledge=knowledge)
    return new, [Event("standing.reveal", {"on": value == ON}, (actor,))]


def reveal_power() -> Power:
    return Power(
        Verb.REVEAL,
        "reveal:{actor}",
        targets=_choices,
        phases=frozenset({Phase.NIGHT, Phase.NOMINATIONS, Phase.BALLOT}),
        immediate=_set,
        target_hint="say reveal on or reveal off",
    )
