"""Werehamster: plays alone. The Werewolves cannot kill him; he dies if the Seer or the
Fortune Teller looks at him; he counts as human for the end of the game and for the
Medium; if alive when the game ends, he alone wins (see ``end.py``)."""

from __future__ import annotations

from ...types import Role, Team
from ..character import Character, register
from ..table import Table


def _seen(table: Table, who: str) -> None:
    table.kill(who, "seen")


WEREHAMSTER = register(
    Character(Role.WEREHAMSTER, Team.WEREHAMSTER, wicked=True, wolf_proof=True, on_seen=_seen, min_players=15)
)
