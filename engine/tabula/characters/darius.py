"""Darius, Guardian of the Shadow: a wicked seer who may win alone. He looks each night like
the Seer (``see X``; his look does not kill the Werehamster), reads as "Were" and is wicked.
When the game ends with him alive and at most one other living character (the Deadalive is
not counted), he alone wins; dead, he wins with the Humans."""

from __future__ import annotations

from ...types import Role, Team, Verb
from .. import end
from ..character import Character, Power, holders, night_step, register
from ..state import TabulaState
from ..table import Table
from . import werehamster
from .seer import look

# The rulings apply the Werehamster's lone win first, then Darius's: importing the hamster's
# module first registers his end override first, whatever order the package imports in.
_ = werehamster

SLOT = "darius"
SIGHT = Power(Verb.SEE, SLOT)

DARIUS = register(
    Character(
        Role.DARIUS,
        Team.DARIUS,
        reads_as_were=True,
        wicked=True,
        ghost_team=Team.HUMANS,
        powers=(SIGHT,),
        min_players=9,
    )
)


@night_step(32, "darius", Role.DARIUS)
def darius_looks(table: Table) -> None:
    look(table, SLOT, "darius.result")


@end.override
def darius_alone(state: TabulaState, team: Team, reason: str) -> tuple[Team, str, tuple[str, ...]] | None:
    dealt = holders(state, Role.DARIUS)
    if not dealt:
        return None
    living = end.counted_living(state)
    for d in dealt:
        if d in living and len(living) <= 2:
            return Team.DARIUS, "end.darius_alone", (d,)
    return None
