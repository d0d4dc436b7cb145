"""The Werewolf: each night points the Claw at one house (``kill ann:left``); the character
under it dies at the close, after the Thief's look. He may point at one of his own houses
only while both of his characters live. No choice: nobody dies.

A player dealt the Werewolf is the Werewolf with both his characters: both count as the
Werewolf's living characters at the end, and he hunts until both are out.
"""

from __future__ import annotations

from ..errors import IllegalAction
from ..types import Event, Role, Verb
from .close import Close
from .houses import owner
from .state import LupusburgState

SLOT = "werewolf"


def is_werewolf(state: LupusburgState, player: str) -> bool:
    return state.role_of(player) is Role.WEREWOLF


def can_kill(state: LupusburgState, player: str) -> bool:
    return is_werewolf(state, player) and bool(state.living_of(player))


def may_strike_own(state: LupusburgState, player: str) -> bool:
    return len(state.living_of(player)) == 2


def targets(state: LupusburgState, player: str) -> tuple[str, ...]:
    own_ok = may_strike_own(state, player)
    return tuple(h for h in state.living() if own_ok or owner(h) != player)


def choose(state: LupusburgState, player: str, target: str) -> tuple[LupusburgState, list[Event]]:
    if not is_werewolf(state, player):
        raise IllegalAction("power.none", "only the Werewolf moves the Claw", verb=Verb.KILL.value)
    if target not in state.alive:
        raise IllegalAction("target.dead", f"{target} is empty: its character is out of the game", target=target)
    if owner(target) == player and not may_strike_own(state, player):
        raise IllegalAction("target.own_last", "with one living character left you cannot strike your own house")
    changed = SLOT in state.choices
    new = state.evolve(choices={**state.choices, SLOT: (Verb.KILL, target)})
    return new, [Event("night.choice", {"verb": Verb.KILL.value, "target": target, "changed": changed}, (player,))]


def resolve(close: Close) -> None:
    s = close.start
    choice = s.choices.get(SLOT)
    if choice is None:
        return
    close.kill(choice[1], SLOT, by=[s.holder(Role.WEREWOLF)])
