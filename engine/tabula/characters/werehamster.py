"""Werehamster: plays alone. The Werewolves cannot kill him; he dies if the Seer or the
Fortune Teller looks at him; he counts as human for the end of the game and for the
Medium; if alive when the game ends, he alone wins (see ``end.py``)."""

from __future__ import annotations

from ...types import Role, Team
from .. import end
from ..character import Character, register
from ..state import TabulaState
from ..table import Table


def _seen(table: Table, who: str, lookers: list[str]) -> None:
    table.kill(who, "seen", by=lookers)


WEREHAMSTER = register(
    Character(Role.WEREHAMSTER, Team.WEREHAMSTER, wicked=True, wolf_proof=True, on_seen=_seen, min_players=15)
)


@end.override
def alone(state: TabulaState, team: Team, reason: str) -> tuple[Team, str, tuple[str, ...]] | None:
    """A living Werehamster takes the game from whichever side has just won."""
    living = tuple(p for p in state.dealt(Role.WEREHAMSTER) if p in state.alive)
    return (Team.WEREHAMSTER, "end.werehamster_alive", living) if living else None
