"""The Burgomaster: runs the day, holds the privilege, breaks the ties, and passes on.

Privilege (once a day, optional, during the nominations): each day begins by telling the
Burgomaster what his privilege is (``burgomaster.privilege``). ``privilege ann:left`` names a
living character of another player; the Burgomaster sees it at once and is told that he must
now show that player one of his own two characters, of his choice (``show right``), or the bot
will show one at random when the nominations close. Who was looked at is public (the
physical look happens at the table); the two characters are not: each of the two players is
told what he saw and what he showed.

After each day the Burgomaster passes clockwise, even to a player with no living
characters; a game that ends with a lynching ends before the pass.
"""

from __future__ import annotations

import random

from ..errors import IllegalAction
from ..types import Event
from .close import tell_now
from .houses import SIDES, house, owner
from .state import LupusburgState


def pending_show(state: LupusburgState) -> bool:
    return state.privilege is not None and state.privilege[1] is None


def may_use_privilege(state: LupusburgState, player: str) -> bool:
    return player == state.burgomaster and state.privilege is None


def privilege_targets(state: LupusburgState, player: str) -> tuple[str, ...]:
    return tuple(h for h in state.living() if owner(h) != player)


def use_privilege(state: LupusburgState, player: str, target: str) -> tuple[LupusburgState, list[Event]]:
    if player != state.burgomaster:
        raise IllegalAction(
            "privilege.not_burgomaster",
            f"only the Burgomaster ({state.burgomaster}) has the privilege",
            burgomaster=state.burgomaster,
        )
    if state.privilege is not None:
        raise IllegalAction("privilege.used", "you have already used your privilege today")
    if owner(target) == player:
        raise IllegalAction("target.own", "choose another player's character, not your own")
    if target not in state.alive:
        raise IllegalAction("target.dead", f"{target} is empty: its character is out of the game", target=target)
    new = state.evolve(privilege=(target, None))
    new, seen = tell_now(
        new, player, "privilege.seen", house=target, card=state.cards[target].value, player=owner(target)
    )
    used = Event("privilege.used", {"burgomaster": player, "house": target, "player": owner(target)})
    # Not a fact to remember: what he must do now, which ``role`` would repeat once it is done.
    must = Event("privilege.must_show", {"player": owner(target)}, (player,))
    return new, [used, seen, must]


def show(state: LupusburgState, player: str, side: str) -> tuple[LupusburgState, list[Event]]:
    if player != state.burgomaster:
        raise IllegalAction(
            "privilege.not_burgomaster",
            "only the Burgomaster shows a character after his privilege",
            burgomaster=state.burgomaster,
        )
    if state.privilege is None:
        raise IllegalAction("show.no_privilege", "use your privilege first: privilege PLAYER:left")
    if state.privilege[1] is not None:
        raise IllegalAction("show.already", "you have already shown a character today")
    if side not in SIDES:
        raise IllegalAction("show.bad_side", f"show left or show right, not {side!r}", side=side)
    return shown(state, player, side)


def shown(state: LupusburgState, player: str, side: str, at_random: bool = False) -> tuple[LupusburgState, list[Event]]:
    """He shows his ``side``; each of the two is told what was shown (``at_random``: by the bot, at
    the close)."""
    assert state.privilege is not None
    target = state.privilege[0]
    mine = house(player, side)
    card = state.cards[mine].value
    new = state.evolve(privilege=(target, side))
    new, ev = tell_now(
        new, owner(target), "privilege.shown", burgomaster=player, house=mine, card=card, seen=target, random=at_random
    )
    new, own = tell_now(new, player, "privilege.showed", player=owner(target), side=side, card=card, random=at_random)
    return new, [ev, own, Event("privilege.answered", {"burgomaster": player, "player": owner(target)})]


def close_day(state: LupusburgState, rand: random.Random) -> tuple[LupusburgState, list[Event]]:
    """At the nominations' close: a Burgomaster who did not choose shows a character at random (he
    was told so when he used his privilege)."""
    if not pending_show(state):
        return state, []
    return shown(state, state.burgomaster, rand.choice(SIDES), at_random=True)


def told_of_privilege(burgomaster: str, day: int) -> Event:
    """At the start of each day the Burgomaster alone is told that he holds it, and what his privilege is."""
    return Event("burgomaster.privilege", {"burgomaster": burgomaster, "day": day}, (burgomaster,))


def next_burgomaster(state: LupusburgState) -> str:
    i = state.players.index(state.burgomaster)
    return state.players[(i + 1) % len(state.players)]
