"""The Thief: while he has a living character, each night he looks under one house of
another player (``peek ann:left``) and learns at the night's close the character there and
whether that house hides the chest. He steals nothing.

A player dealt the Thief is the Thief with both his characters. His look is resolved before
the Claw, so he learns what was under a house even if the Werewolf strikes it that night.
"""

from __future__ import annotations

from ..errors import IllegalAction
from ..types import Event, Role, Verb
from .close import Close
from .houses import owner, side_of
from .state import LupusburgState

SLOT = "thief"


def is_thief(state: LupusburgState, player: str) -> bool:
    return state.role_of(player) is Role.THIEF


def can_peek(state: LupusburgState, player: str) -> bool:
    return is_thief(state, player) and bool(state.living_of(player))


def targets(state: LupusburgState, player: str) -> tuple[str, ...]:
    return tuple(h for h in state.living() if owner(h) != player)


def choose(state: LupusburgState, player: str, target: str) -> tuple[LupusburgState, list[Event]]:
    if not is_thief(state, player):
        raise IllegalAction("power.none", "only the Thief sneaks into houses", verb=Verb.PEEK.value)
    if not state.living_of(player):
        raise IllegalAction("actor.dead", "you have no living character: the Thief cannot sneak out")
    if owner(target) == player:
        raise IllegalAction("target.own", "look under another player's house, not your own")
    if target not in state.alive:
        raise IllegalAction("target.dead", f"{target} is empty: its character is out of the game", target=target)
    changed = SLOT in state.choices
    new = state.evolve(choices={**state.choices, SLOT: (Verb.PEEK, target)})
    return new, [Event("night.choice", {"verb": Verb.PEEK.value, "target": target, "changed": changed}, (player,))]


def resolve(close: Close) -> None:
    s = close.start
    thief = s.holder(Role.THIEF)
    choice = s.choices.get(SLOT)
    if choice is None or not s.living_of(thief):
        return
    target = choice[1]
    seen = {"card": s.cards[target].value, "chest": s.chests[owner(target)] == side_of(target)}
    close.tell(thief, "thief.result", house=target, night=s.night, **seen)
    close.note("look", by=[thief], target=target, as_card=Role.THIEF.value, **seen)
