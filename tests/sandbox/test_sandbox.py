"""The sandbox without a browser: phones talk to the real webhooks, the bot's texts come back through
the stand-ins, robots move, the clock jumps to each deadline until the game ends."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from sqlmodel import Session, col, select

from service.sandbox.clock import SandboxClock
from service.sandbox.world import Sandbox
from service.store.models import Game, GameEvent


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
    assert snap["games"][0]["code"] == code and snap["clock"].endswith(" ahead of the real clock")
    humans = [p for p in snap["phones"] if not p["robot"]]
    assert {p["channel"] for p in humans} == {"telegram", "sms"}
    dealt = {"telegram": "Your character: ", "sms": "Your card: "}  # the SMS form is the short one
    for phone in snap["phones"]:  # everyone was dealt a card, by Telegram or by SMS
        said = dealt[phone["channel"]]
        assert any(said in m["text"] for m in phone["messages"] if m["from"] == "bot"), phone["name"]


def test_next_deadline_moves_the_game_picked_and_says_what_it_did(sandbox: Sandbox) -> None:
    assert sandbox.advance().line.startswith("No game is running")
    code = sandbox.quick_game()
    other = sandbox.add_phone("Zoe")
    sandbox.say("Zoe", "new")
    lobby = next(g["code"] for g in sandbox.games() if g["code"] != code)
    assert sandbox.advance(lobby).line == f"#{lobby} has not started: no deadline yet (its host writes start)."
    done = sandbox.advance()  # one game runs: that one
    assert done.deadline is not None and f"#{code} night 1 closed, now day 1 nominations." in done.line, done.line
    assert done.line.startswith("The clock jumped ") and re.search(r" CES?T: ", done.line), done.line  # Rome's
    host = next(p.name for p in sandbox.phones.values() if not p.robot and p.channel == "telegram")
    sandbox.say(host, "pause")
    assert sandbox.advance(code) == type(done)(f"#{code} is paused: no deadline to move to (its host writes resume).")
    sandbox.say(host, "resume")
    sandbox.say(other.name, f"join {lobby} Zoe")
    sandbox.add_robots(lobby, 7)
    sandbox.say("Zoe", "start")
    assert sandbox.advance().line.startswith("Several games are running: pick one (")  # never the earliest, silently
    assert sandbox.advance(lobby).deadline is not None
    # The page's phones sit under their game, the dead marked.
    snap = sandbox.snapshot()
    by_game = {p["name"]: p["game"] for p in snap["phones"]}
    assert by_game["Zoe"] == lobby and by_game[host] == code
    dead = {p["name"] for p in snap["phones"] if p["dead"]}
    assert dead == {s["name"] for g in snap["games"] for s in g["seats"] if s["dead"]}


def test_the_page_says_what_is_wrong_in_a_line(sandbox: Sandbox) -> None:
    sandbox.add_phone("Ann", "telegram")
    sandbox.add_phone("Bob", "sms")
    with httpx.Client(base_url=sandbox.url, timeout=30) as http:
        r = http.post("/api/say", json={"phone": "Bob", "text": "x" * 5000})
        assert r.status_code == 400
        assert r.json() == {"detail": "Too long for an SMS: at most 1,600 characters, this one has 5,000."}
        r = http.post("/api/say", json={"text": "hi"})
        assert r.status_code == 422 and r.json() == {"detail": "Say which phone writes."}
        r = http.post("/api/phones", json={"name": "x" * 40})
        assert r.status_code == 422 and r.json() == {"detail": "A phone's name has at most 20 characters."}
        r = http.post("/api/robots", json={"code": "ZZZZ", "count": 2})
        assert r.status_code == 400 and r.json() == {"detail": "There is no game #ZZZZ."}
        # A Telegram phone takes 5,000 characters as its app does: two messages.
        assert http.post("/api/say", json={"phone": "Ann", "text": "word " * 1000}).status_code == 200
    said = [m for m in sandbox.timeline(sandbox.phones["Ann"]) if m["from"] == "me"]
    assert len(said) == 2 and all(len(m["text"]) <= 4096 for m in said)


def test_what_the_worker_gave_up_sending_is_on_the_page(sandbox: Sandbox) -> None:
    bob = sandbox.add_phone("Bob", "sms")
    assert sandbox.snapshot()["failures"] == []
    sandbox.twilio.opt_out(bob.address)  # the carrier refuses him (21610): the worker gives up
    sandbox.say("Bob", "help")
    (failed,) = sandbox.snapshot()["failures"]
    assert failed["to"] == "Bob" and failed["channel"] == "sms" and "21610" in failed["error"], failed
