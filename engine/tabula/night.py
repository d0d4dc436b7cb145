"""Closing the night: every choice resolved in the rulings' order, then the dawn.

The steps are declared beside their characters (``characters/``) with their order:
first-night calls, Medium and Miss Purple, the looks, the Bodyguard, Baron Samedi,
Dr. Jekyll, the Werewolves (Lara just before), the Mythomaniac, the deadly Owl-man's victim.
"""

from __future__ import annotations

from .character import NIGHT_STEPS
from .state import TabulaState
from .table import Table


def resolve(state: TabulaState) -> Table:
    table = Table(state, "night")
    for step in NIGHT_STEPS:
        step.run(table)
    died = [p for p, _ in table.died_now]
    if died:
        # "Welcome!" goes to the one killed; of several, one at random.
        table.welcome = died[0] if len(died) == 1 else table.rng.choice(sorted(died))
    table.announce("night.dawn", night=state.night, dead=died, welcome=table.welcome)
    return table
