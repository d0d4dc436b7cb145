"""What the sandbox page says of its games and its clock, read from its JSON API as the page reads it:
running games first, each game's line written for a person (where it stands, until when, paused),
the clock in the games' own time with how far ahead of the real one it runs, in words."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from service.sandbox.world import Sandbox
from service.texts.i18n import deadline_text


@pytest.fixture
def sandbox(tmp_path: Path) -> Iterator[Sandbox]:
    with Sandbox(tmp_path, seed=5) as sb:
        yield sb


def _state(sandbox: Sandbox) -> dict[str, Any]:
    return httpx.get(sandbox.url + "/api/state", timeout=30).json()


def _game(state: dict[str, Any], code: str) -> dict[str, Any]:
    return next(g for g in state["games"] if g["code"] == code)


def test_running_games_come_first_then_lobbies_then_finished_ones(sandbox: Sandbox) -> None:
    ended = sandbox.quick_game()  # Ann hosts it
    sandbox.say("Ann", "end yes")
    lobby_host = sandbox.add_phone("Zoe")
    sandbox.say(lobby_host.name, "new")
    running = sandbox.quick_game(humans=(("Yves", "telegram"),))
    lobby = next(g["code"] for g in sandbox.games() if g["code"] not in (ended, running))
    assert [g["code"] for g in _state(sandbox)["games"]] == [running, lobby, ended]


def test_a_games_line_says_where_it_stands_and_until_when_as_its_phones_do(sandbox: Sandbox) -> None:
    code = sandbox.quick_game()
    game = _game(_state(sandbox), code)
    until = deadline_text(datetime.fromisoformat(game["deadline"]), game["timezone"], "en")  # as the phones say it
    assert re.fullmatch(r"\w{3} \d{1,2} \w{3} \d\d:\d\d [A-Z]{3,4}", until), until  # "Sat 5 Dec 21:55 CET"
    assert game["line"] == f"#{code} · night 1 until {until} · 8 players"
    sandbox.say("Ann", "pause")
    assert _game(_state(sandbox), code)["line"] == f"#{code} · night 1 · paused · 8 players"
    sandbox.say("Ann", "resume")
    sandbox.say("Ann", "end yes")
    assert _game(_state(sandbox), code)["line"] == f"#{code} · ended by its host · 8 players"
    sandbox.add_phone("Zoe")
    sandbox.say("Zoe", "new")
    lobby = next(g for g in _state(sandbox)["games"] if g["code"] != code)
    assert lobby["line"] == f"#{lobby['code']} · waiting for players · none yet (its host writes start)"
    sandbox.say("Zoe", f"join {lobby['code']} Zoe")
    assert _game(_state(sandbox), lobby["code"])["line"].endswith(" · 1 player (its host writes start)")


def test_a_finished_game_says_who_won(sandbox: Sandbox) -> None:
    code = sandbox.quick_game()
    for _ in range(40):
        if _game(_state(sandbox), code)["status"] == "over":
            break
        sandbox.advance(code)
    line = _game(_state(sandbox), code)["line"]
    assert re.fullmatch(rf"#{code} · over: the (Humans|Werewolves) won · 8 players", line), line


def test_the_clock_reads_the_games_time_and_how_far_ahead_it_runs(sandbox: Sandbox) -> None:
    assert _state(sandbox)["clock"].endswith(" · in step with the real clock")
    sandbox.quick_game()
    sandbox.advance()
    clock = _state(sandbox)["clock"]
    now = deadline_text(sandbox.clock.now(), "Europe/Rome", "en")
    assert clock in (
        f"{now} · 12 hours ahead of the real clock",
        f"{now} · 11 hours 59 minutes ahead of the real clock",
    )
    assert "+" not in clock and " h)" not in clock


@pytest.mark.parametrize(
    ("span", "words"),
    [
        (timedelta(seconds=40), "in step with the real clock"),
        (timedelta(minutes=45, seconds=10), "45 minutes ahead of the real clock"),
        (timedelta(hours=1), "1 hour ahead of the real clock"),
        (timedelta(hours=11, minutes=59, seconds=50), "12 hours ahead of the real clock"),
        (timedelta(hours=67, minutes=54), "2 days 20 hours ahead of the real clock"),  # was "(+67.9 h)"
        (timedelta(days=2, hours=19, minutes=7), "2 days 19 hours ahead of the real clock"),
        (timedelta(days=1), "1 day ahead of the real clock"),
    ],
)
def test_how_far_ahead_in_words(span: timedelta, words: str) -> None:
    from service.sandbox.clock import ahead_text

    assert ahead_text(span) == words


def test_the_clock_moved_by_next_deadline_is_said_in_words(sandbox: Sandbox) -> None:
    code = sandbox.quick_game()
    line = sandbox.advance().line
    assert re.match(
        rf"The clock jumped (12 hours|11 hours 59 minutes), to \w{{3}} \d{{1,2}} \w{{3}} \d\d:\d\d "
        rf"[A-Z]{{3,4}}: #{code} night 1 closed, now day 1 nominations\.$",
        line,
    ), line
