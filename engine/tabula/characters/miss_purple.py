"""Miss Purple: from the second night, told how many wicked characters are alive (Werewolves,
Lara, the Werecow, the Werehamster, Darius, a Mythomaniac turned Werewolf). In the Aura
variant she sees instead the last Aura card discarded (none yet: she is told so)."""

from __future__ import annotations

from ...types import Role, RuleSet, Team
from ..auras import PILE
from ..character import Character, is_wicked, night_step, register
from ..table import Table

MISS_PURPLE = register(Character(Role.MISS_PURPLE, Team.HUMANS, min_players=9))


@night_step(22, "miss_purple", Role.MISS_PURPLE)
def miss_purple_learns(table: Table) -> None:
    s = table.start
    if s.night < 2:
        return
    for purple in table.holders(Role.MISS_PURPLE):
        if s.rules is RuleSet.AURA:
            pile = s.marks.get(PILE, ())
            table.tell(purple, "miss_purple.aura", aura=pile[-1] if pile else None, night=s.night)
        else:
            wicked = sum(1 for p in s.living() if is_wicked(s, p))
            table.tell(purple, "miss_purple.result", wicked=wicked, night=s.night)
