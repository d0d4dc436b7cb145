"""Closing the night: every choice resolved in the rulings' order, then the dawn.

The steps are declared beside their characters (``characters/``) with their order:
first-night calls, Medium and Miss Purple, the looks, the Bodyguard, Baron Samedi,
Dr. Jekyll, the Werewolves (Lara just before), the Mythomaniac, the deadly Owl-man's victim.
"""

from __future__ import annotations

from ..types import RuleSet
from .character import NIGHT_STEPS, steps_of
from .state import TabulaState
from .table import Table


def resolve(state: TabulaState) -> Table:
    table = Table(state, "night")
    for step in steps_of(state, NIGHT_STEPS):
        step.run(table)
    died = [p for p, _ in table.died_now]
    if len(died) > 1 and state.rules is RuleSet.TABULA:
        # The Moderator does not say why each one died: the order the steps killed them in
        # would (Mr. Hyde before the pack), so they are named, and listed dead, in seating order.
        # In ``aura`` the order is the rulebook's (the Potion's victim first) and the tiles are public.
        died = [p for p in state.players if p in died]
        table.dead = [p for p in table.dead if p not in died] + died
    if died:
        # "Welcome!" goes to the one killed; of several, one at random.
        table.welcome = died[0] if len(died) == 1 else table.rng.choice(sorted(died))
    table.announce("night.dawn", night=state.night, dead=died, welcome=table.welcome)
    return table
