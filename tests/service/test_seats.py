"""A player's number is his seat, in Lupusburg too: a house goes by its owner's seat and its side
(``kill 2:right``), and choices that are no players keep their own numbers (a coin's value)."""

from __future__ import annotations

import engine
from engine.lupusburg.bets import coin_choices

from .conftest import Harness
from .play import open_game, start


def test_lupusburg_houses_go_by_their_owners_seat_and_coins_by_their_value(h: Harness) -> None:
    open_game(h, names=["ann", "bob", "cat", "dan"], extra="lupusburg")
    start(h)
    seats = list(h.state().players)
    wolf = next(p for p, o in ((p, h.inbox(p)[-1]) for p in seats) if "kill 1 " in o)
    victim = next(p for p in seats if p != wolf)
    n = seats.index(victim) + 1
    listed = [f"{i} {p}:left/right" for i, p in enumerate(seats, start=1)]
    assert h.inbox(wolf)[-1] == f"Choose with a number or a name: kill {', '.join(listed)}."
    assert h.say(wolf, f"kill {n}") == [f"Say which house: {victim}:left or {victim}:right."]  # the rules ask
    assert h.say(wolf, f"kill {n}:right") == []
    assert engine.moderator_view(h.state())["choices"]["werewolf"] == ["kill", f"{victim}:right"]
    h.finish_phase()
    better = seats[0]
    other = seats[-1]
    replies = h.say(better, f"bet {seats.index(other) + 1}")  # a seat: the player bet on
    coins = coin_choices(h.state(), better)  # type: ignore[arg-type]
    assert coins and f"coins from the bag ({', '.join(map(str, coins))})" in h.inbox(better)[-2]
    # His coins follow as his choices (buttons on Telegram), not left for him to find in ``help``.
    assert replies == [f"Choose with a number or a name: coin {', '.join(map(str, coins))}."]
    assert h.say(better, f"coin {coins[-1]}") == []  # a coin's value, not a seat
    assert h.state().bets[better] == (other, coins[-1])  # type: ignore[attr-defined]
