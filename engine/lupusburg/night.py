"""Closing the night in the rulings' order: the Thief looks, then the Claw falls, then the
dawn announces the death as a player and a house, never the character."""

from __future__ import annotations

from collections.abc import Callable

from . import thief, werewolf
from .close import Close
from .houses import owner
from .state import LupusburgState

STEPS: tuple[Callable[[Close], None], ...] = (thief.resolve, werewolf.resolve)


def resolve(state: LupusburgState) -> Close:
    close = Close(state)
    for step in STEPS:
        step(close)
    close.announce(
        "night.dawn", night=state.night, dead=list(close.died_now), players=[owner(h) for h in close.died_now]
    )
    return close
