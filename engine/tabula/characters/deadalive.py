"""The Deadalive: a Human who is already dead. He never counts as living for the end of the
game. When killed he becomes a Ghost as usual, but his card is revealed to all and he goes on
talking and voting like a living character (``marks['walking']``, honoured by the day); as a
Ghost he can no longer be chosen as a victim or a suspect."""

from __future__ import annotations

from ...types import Role, Team
from ..character import Character, register
from ..table import Table

WALKING = "walking"


def _killed(table: Table, who: str, cause: str) -> None:
    table.reveal(who)
    if who not in table.marks.get(WALKING, ()):
        table.marks[WALKING] = (*table.marks.get(WALKING, ()), who)
    table.announce("deadalive.revealed", player=who)


DEADALIVE = register(Character(Role.DEADALIVE, Team.HUMANS, counts_living=False, on_death=_killed, min_players=12))
