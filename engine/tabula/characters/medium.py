"""Medium: from the second night, told at close whether the last lynched player was a
Werewolf ("Were" as for the Seer). With nobody lynched yet, no answer."""

from __future__ import annotations

from ...types import Role, Team
from ..character import Character, night_step, reads_as_were, register
from ..table import Table

MEDIUM = register(Character(Role.MEDIUM, Team.HUMANS, min_players=9))


@night_step(20, "medium", Role.MEDIUM)
def medium_learns(table: Table) -> None:
    s = table.start
    if s.night < 2 or not s.lynched:
        return
    last = s.lynched[-1]
    for medium in table.holders(Role.MEDIUM):
        table.tell(medium, "medium.result", target=last, were=reads_as_were(s, last), night=s.night)
