"""Bad input of every kind gets a clear answer and changes nothing in any game."""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

from service.store.models import GameEvent, Seat

from .conftest import Harness
from .play import open_game, play_phase, start

BAD = [
    ("ann", "vote"),  # no target
    ("ann", "vote nobodyhere"),  # no such player
    ("ann", "vote 99"),  # no such number
    ("ann", "vote ann bob"),  # two names
    ("ann", "see bob"),  # a power she does not have (or not now)
    ("ann", "kill"),  # no target / not hers
    ("ann", "protect bob"),
    ("ann", "mimic bob"),
    ("ann", "revive"),
    ("ann", "coin 3"),
    ("ann", "lang xx"),
    ("ann", "extend 2h"),  # not a host
    ("ann", "pause"),
    ("ann", "replace bob"),
    ("ann", "remove bob"),
    ("ann", "end yes"),
    ("ann", "start"),
    ("ann", "leave"),  # the game is running
    ("ann", "#ZZZZ vote bob"),  # no such game
    ("ann", "join"),
    ("ann", "join ZZZZ ann"),
    ("ann", "record"),  # not before the end
    ("stranger", "vote bob"),  # not in a game
    ("stranger", "status"),
    ("stranger", "hello everyone"),
    ("host", "extend soon"),  # not a duration
    ("host", "resume"),  # not paused
    ("host", "replace nobodyhere"),
    ("host", "new deck unicorn"),  # not a character
    ("host", "new night forever"),
    ("host", "new tz Mars/Olympus"),
    ("ann", "cohost bob"),  # not a host
    ("ann", "set night 2h"),
    ("ann", "say"),  # nothing to say
    ("ann", "digest maybe"),
    ("ann", "tz Mars/Olympus"),
    ("host", "cohost nobodyhere"),
    ("host", "remove nobodyhere"),
    ("host", "set deck seer"),  # only timings once running
    ("host", "set"),
    ("host", "end"),  # needs yes
    ("host", "shorten 99d"),  # past the longest duration
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


LOBBY_BAD = [
    ("ann", "vote bob"),  # no game running yet
    ("ann", "kill bob"),
    ("ann", "role"),
    ("ann", "record"),
    ("ann", "start"),  # not a host
    ("ann", "set night 2h"),
    ("ann", "cohost bob"),
    ("ann", "remove bob"),
    ("ann", "end yes"),
    ("ann", "extend 2h"),
    ("ann", "join {code} ann2"),  # already in it
    ("zed", "join {code}"),  # no name
    ("zed", "join {code} ann"),  # taken
    ("zed", "join {code} two words"),
    ("zed", "join {code} 7"),
    ("zed", "join {code} " + "x" * 21),  # too long
    ("zed", "leave"),  # not in it
    ("zed", "#{code} status"),  # not a member
    ("zed", "volunteer {code}"),  # not running
    ("host", "extend 2h"),  # not running
    ("host", "pause"),
    ("host", "replace bob"),
    ("host", "cohost nobodyhere"),
    ("host", "remove nobodyhere"),
    ("host", "end"),  # needs yes
    ("host", "set deck unicorn"),
    ("host", "set"),
    ("host", "tz Mars/Olympus"),
    ("host", "digest maybe"),
]


def test_bad_input_in_the_lobby_is_answered_and_changes_nothing(h: Harness) -> None:
    code = open_game(h)
    game = h.game()
    before = _snapshot(h), game.options, game.setup, game.timezone, game.language
    for who, text in LOBBY_BAD:
        replies = h.say(who, text.format(code=code))
        assert replies and all(r.strip() for r in replies), (who, text, replies)
    game = h.game()
    assert (_snapshot(h), game.options, game.setup, game.timezone, game.language) == before
