"""Random, Unicode and hostile texts through ``Service.handle_inbound`` on PostgreSQL: no
exception, every reply a readable text, and the game still a valid value in its phase.

Players of a running game (and a stranger) send what Hypothesis makes: arbitrary Unicode,
commands with random arguments, injection attempts, format strings, control characters,
NUL bytes, huge texts. 150 examples by default; 3,000 in the ``slow`` suite.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from tests.service.conftest import Harness
from tests.service.play import open_game, start

from .texts import hostile_texts

WHO = ["ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal", "host", "stranger"]
_ids = itertools.count()


def check(h: Harness, who: str, text: str, phase: tuple[int, str], code: str) -> None:
    replies = h.say(who, text, external_id=f"fz{next(_ids)}")
    for r in replies:
        assert isinstance(r, str) and r.strip(), (text, replies)
        # A placeholder left unfilled is ours; one the sender typed comes back where a reply quotes him
        # ("start with the code, e.g. #WXPJ {target}" answers "{target}").
        assert "Traceback" not in r and ("{" + "target}" not in r or "{" + "target}" in text), (text, r)
    state = h.state(code)  # by its code: a fuzzed "new" may have opened another game
    assert engine.from_json(engine.to_json(state)) == state
    game = h.game(code)
    # Players' moves may change the state, never the phase: only a deadline (or the host) ends one.
    assert (game.phase_no, game.status) == phase or who == "host", (text, game.phase_no, game.status)


def _run(pg_h: Harness, examples: int) -> None:
    h = pg_h
    open_game(h)
    start(h)
    game = h.game()
    code = game.code
    phase = (game.phase_no, game.status)

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(who=st.sampled_from(WHO), text=hostile_texts(code))
    def fuzz(who: str, text: str) -> None:
        nonlocal phase
        check(h, who, text, phase, code)
        g = h.game(code)
        phase = (g.phase_no, g.status)

    fuzz()


def test_hostile_texts_through_the_service(pg_h: Harness) -> None:
    _run(pg_h, 150)


def test_a_nul_byte_is_answered_on_postgresql(pg_h: Harness) -> None:
    open_game(pg_h)
    start(pg_h)
    game = pg_h.game()
    check(pg_h, "ann", "vote a\x00b", (game.phase_no, game.status), game.code)


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_hostile_texts_through_the_service_long(pg_h: Harness) -> None:
    _run(pg_h, 3000)
