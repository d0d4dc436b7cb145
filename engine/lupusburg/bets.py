"""Bets on who the Werewolf is: once per player per game, by any player (with or without
living characters, the Werewolf too), during the day's nominations.

``bet dan`` takes the seal and draws three coins at random from the bag (all that are left
if fewer); ``coin 7`` keeps the drawn coin of value 7 and puts the others back. ``bet`` is
already final: a player who has not chosen his coin when the nominations close keeps one of
his drawn coins at random. The bet is on a player, never on a character, and stays secret
(target and coin) until the end; that a seal was used is public, as it is at the table.
"""

from __future__ import annotations

import random
from collections import Counter

from ..errors import IllegalAction
from ..rng import rng
from ..types import Event
from .close import tell_now
from .state import LupusburgState

DRAW = 3


def may_bet(state: LupusburgState, player: str) -> bool:
    return player not in state.bets and player not in state.draws and bool(state.bag)


def bet_targets(state: LupusburgState, player: str) -> tuple[str, ...]:
    return tuple(p for p in state.players if p != player)


def coin_choices(state: LupusburgState, player: str) -> tuple[int, ...]:
    if player not in state.draws:
        return ()
    return tuple(sorted(set(state.draws[player][1]), reverse=True))


def _without(bag: tuple[int, ...], coins: tuple[int, ...] | list[int]) -> tuple[int, ...]:
    left = Counter(bag)
    left.subtract(coins)
    return tuple(sorted(left.elements(), reverse=True))


def bet(state: LupusburgState, player: str, target: str) -> tuple[LupusburgState, list[Event]]:
    if player in state.bets:
        raise IllegalAction("bet.already", "you have already bet: a bet is final, and once per game")
    if player in state.draws:
        coins = ", ".join(str(c) for c in state.draws[player][1])
        raise IllegalAction("bet.choose_coin", f"choose your coin first: coin N (you drew {coins})", coins=coins)
    if target not in state.players:
        raise IllegalAction("bet.not_player", f"bet on a player, not on {target!r}", target=target)
    if target == player:
        raise IllegalAction("bet.self", "bet on another player")
    if not state.bag:
        # Eight coins for at most eight bets: the bag is empty only while others choose their coin.
        raise IllegalAction("bet.bag_empty", "the bag is empty while other players choose their coins: try again soon")
    bag = list(state.bag)
    drawn = tuple(sorted(rng(state.seed, "bet", player, state.phase_no).sample(bag, min(DRAW, len(bag))), reverse=True))
    new = state.evolve(bag=_without(state.bag, drawn), draws={**state.draws, player: (target, drawn)})
    new, ev = tell_now(new, player, "bet.drawn", target=target, coins=list(drawn))
    return new, [ev]


def coin(state: LupusburgState, player: str, text: str) -> tuple[LupusburgState, list[Event]]:
    if player not in state.draws:
        if player in state.bets:
            raise IllegalAction("bet.already", "you have already bet: a bet is final, and once per game")
        raise IllegalAction("coin.no_draw", "say whom you bet on first: bet NAME")
    drawn = state.draws[player][1]
    try:
        value = int(text)
    except ValueError:
        raise IllegalAction(
            "coin.not_number", f"say the value of the coin you keep: coin N, not {text!r}", text=text
        ) from None
    if value not in drawn:
        coins = ", ".join(str(c) for c in drawn)
        raise IllegalAction(
            "coin.not_drawn", f"you did not draw a coin of {value} (you drew {coins})", value=value, coins=coins
        )
    return place(state, player, value)


def place(
    state: LupusburgState, player: str, value: int, at_random: bool = False
) -> tuple[LupusburgState, list[Event]]:
    """He keeps the coin ``value`` (``at_random``: the bot kept one for him at the close)."""
    target, drawn = state.draws[player]
    back = list(drawn)
    back.remove(value)
    draws = {p: d for p, d in state.draws.items() if p != player}
    new = state.evolve(
        bag=tuple(sorted(state.bag + tuple(back), reverse=True)),
        draws=draws,
        bets={**state.bets, player: (target, value)},
    )
    new, ev = tell_now(new, player, "bet.placed", target=target, coin=value, random=at_random)
    return new, [ev, Event("bet.sealed", {"player": player})]


def close_day(state: LupusburgState, rand: random.Random) -> tuple[LupusburgState, list[Event]]:
    """At the nominations' close, an unfinished bet keeps one of its drawn coins at random."""
    events: list[Event] = []
    for p in state.players:
        if p in state.draws:
            state, evs = place(state, p, rand.choice(state.draws[p][1]), at_random=True)
            events.extend(evs)
    return state, events
