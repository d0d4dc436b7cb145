"""The sandbox without a browser: phones talk to the real webhooks, the bot's texts come back through
the stand-ins, robots move, the clock jumps to each deadline until the game ends."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlmodel import Session, col, select

from service.models import Game, GameEvent
from service.sandbox.clock import SandboxClock
from service.sandbox.world import Sandbox


def test_the_clock_only_moves_forward() -> None:
    clock = SandboxClock()
    start = clock.now()
    later = clock.advance(timedelta(hours=12))
    assert later - start >= timedelta(hours=12)
    assert clock.advance_to(start) >= later  # the past changes nothing
    assert clock.offset > timedelta(hours=11, minutes=59)


@pytest.fixture
def sandbox(tmp_path: Path) -> Iterator[Sandbox]:
    with Sandbox(tmp_path, seed=3) as sb:
        yield sb


def test_phones_reach_the_bot_through_its_webhooks(sandbox: Sandbox) -> None:
    tg, sms = sandbox.add_phone("Ann", "telegram"), sandbox.add_phone("Bob", "sms")
    assert sandbox.say("Ann", "help") == 200
    assert sandbox.say("Bob", "help") == 200
    sandbox.flush()
    assert sandbox.telegram.sent(int(tg.address)), "Telegram's stand-in got nothing for Ann"
    assert sandbox.twilio.messages(to=sms.address), "Twilio's stand-in got nothing for Bob"
    ann = sandbox.timeline(tg)
    assert ann[0] == {"from": "me", "text": "help"} and ann[1]["from"] == "bot"
    with pytest.raises(ValueError):
        sandbox.add_phone("ann")  # names are unique, whatever the case
    with pytest.raises(ValueError):
        sandbox.tap("Bob", 1, "x")  # SMS has no buttons


def test_robots_fill_a_game_and_the_clock_closes_its_phases(sandbox: Sandbox) -> None:
    """(The browser test plays a whole game; here two deadlines are enough.)"""
    code = sandbox.quick_game()
    assert sandbox.service is not None

    def game() -> Game:
        with Session(sandbox.service.db) as s:  # type: ignore[union-attr]
            return s.exec(select(Game).where(Game.code == code)).one()

    assert game().status == "running"
    for _ in range(2):
        before = game().phase_no
        deadline = sandbox.next_deadline()
        assert deadline is not None and sandbox.clock.now() > deadline
        assert game().phase_no > before or game().status == "over"
    with Session(sandbox.service.db) as s:
        movers = {e.data.get("actor") for e in s.exec(select(GameEvent).where(col(GameEvent.kind) == "move"))}
    robots = {p.name for p in sandbox.phones.values() if p.robot}
    assert len(robots) == 6 and movers & robots
    snap = sandbox.snapshot()
    assert snap["games"][0]["code"] == code and snap["ahead_hours"] > 12
    humans = [p for p in snap["phones"] if not p["robot"]]
    assert {p["channel"] for p in humans} == {"telegram", "sms"}
    dealt = {"telegram": "Your character: ", "sms": "Your card: "}  # the SMS form is the short one
    for phone in snap["phones"]:  # everyone was dealt a card, by Telegram or by SMS
        said = dealt[phone["channel"]]
        assert any(said in m["text"] for m in phone["messages"] if m["from"] == "bot"), phone["name"]
