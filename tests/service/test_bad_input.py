"""Bad input of every kind gets a clear answer and changes nothing in any game."""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

from service.models import GameEvent, Seat

from .conftest import Harness
from .play import open_game, play_phase, start

BAD = [
    ("ann", "vote"),                      # no target
    ("ann", "vote nobodyhere"),           # no such player
    ("ann", "vote 99"),                   # no such number
    ("ann", "vote ann bob"),              # two names
    ("ann", "see bob"),                   # a power she does not have (or not now)
    ("ann", "kill"),                      # no target / not hers
    ("ann", "protect bob"),
    ("ann", "mimic bob"),
    ("ann", "revive"),
    ("ann", "coin 3"),
    ("ann", "lang xx"),
    ("ann", "extend 2h"),                 # not a host
    ("ann", "pause"),
    ("ann", "replace bob"),
    ("ann", "remove bob"),
    ("ann", "end yes"),
    ("ann", "start"),
    ("ann", "leave"),                     # the game is running
    ("ann", "#ZZZZ vote bob"),            # no such game
    ("ann", "join"),
    ("ann", "join ZZZZ ann"),
    ("ann", "record"),                    # not before the end
    ("stranger", "vote bob"),             # not in a game
    ("stranger", "status"),
    ("stranger", "hello everyone"),
    ("host", "extend soon"),              # not a duration
    ("host", "resume"),                   # not paused
    ("host", "replace nobodyhere"),
    ("host", "new deck unicorn"),         # not a character
    ("host", "new night forever"),
    ("host", "new tz Mars/Olympus"),
]


def _snapshot(h: Harness) -> tuple[object, ...]:
    game = h.game()
    with Session(h.db) as s:
        seats = [(x.name, x.identity_id, x.status) for x in s.exec(select(Seat).order_by(Seat.id))]  # type: ignore[arg-type]
        events = len(s.exec(select(GameEvent)).all())
    return game.state, game.phase_no, game.deadline, game.status, game.paused, tuple(seats), events


@pytest.mark.parametrize("night", [True, False])
def test_bad_input_is_answered_and_changes_nothing(h: Harness, night: bool) -> None:
    open_game(h)
    start(h)
    if not night:
        play_phase(h)
    state = h.state()
    # A plain Villager, so that no line of BAD is by chance a move his card allows.
    villager = next(p for p in state.players if state.roles[p].value == "villager")  # type: ignore[attr-defined]
    before = _snapshot(h)
    games_before = h.game().id
    for who, text in BAD:
        who = villager if who == "ann" else who
        replies = h.say(who, text)
        assert replies and all(r.strip() for r in replies), (who, text, replies)
    assert _snapshot(h) == before
    assert h.game().id == games_before  # no game was created by a bad "new"


def test_ambiguous_prefix_gets_a_question(h: Harness) -> None:
    open_game(h, names=["anna", "anne", "bob", "cat", "dan", "eve", "fay", "gus"])
    start(h)
    h.finish_phase()  # a night without a kill: both still live
    state = h.state()
    voter = next(p for p in state.players if p in state.alive)  # type: ignore[attr-defined]
    before = _snapshot(h)
    out = h.say(voter, "vote ann")
    assert out in (["ann could be anna or anne: which one?"], ["ann could be anne or anna: which one?"])
    assert _snapshot(h) == before
