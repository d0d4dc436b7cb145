"""Bodyguard: from the second night protects another player against the Werewolves
(only against them). He may protect the same player on consecutive nights."""

from __future__ import annotations

from ...types import Role, Team, Verb
from ..character import Character, Power, night_step, register
from ..state import TabulaState
from ..table import Table


def _from_second_night(state: TabulaState, actor: str) -> bool:
    return state.night >= 2


GUARD = Power(
    Verb.PROTECT, "protect:{actor}", when=_from_second_night, why_not="the Bodyguard protects from the second night on"
)

BODYGUARD = register(Character(Role.BODYGUARD, Team.HUMANS, powers=(GUARD,), min_players=11))


@night_step(40, "bodyguard", Role.BODYGUARD)
def protect(table: Table) -> None:
    for actor, target in table.choices_with_prefix("protect:"):
        if actor in table.start.alive and target is not None:
            table.protected.add(target)
