"""Werecow: dreams of being a Werewolf. On the first night she sees the hands the Werewolves
raise (they do not learn who she is); a Mythomaniac raises his hand too, though he may never
join them. She wins with the Werewolves, reads as "Were", is wicked, and does not count as
a Werewolf for the end of the game."""

from __future__ import annotations

from ...types import Role, Team
from ..character import Character, is_wolf, night_step, register
from ..table import Table

WERECOW = register(Character(Role.WERECOW, Team.WEREWOLVES, reads_as_were=True, wicked=True, min_players=12))


@night_step(10, "werecow", Role.WERECOW)
def werecow_sees_hands(table: Table) -> None:
    s = table.start
    if s.night != 1:
        return
    cows = table.holders(Role.WERECOW)
    if not cows:
        return
    hands = [p for p in s.living() if is_wolf(s, p) or s.roles[p] is Role.MYTHOMANIAC]
    table.tell(cows, "werecow.hands", hands=hands)
