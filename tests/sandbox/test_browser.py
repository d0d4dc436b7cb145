"""The sandbox page in a real browser: headless Chromium (Debian's package, driven by Playwright)
opens it, starts a game of eight, plays the two human phones by typing and tapping as a person would,
moves the clock deadline by deadline, and sees the game to its end. Screenshots go to var/screenshots/.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlmodel import Session, col, select

import engine
from service.sandbox.world import Sandbox
from service.store.models import Game, GameEvent
from tests.sandbox.browser import SHOTS, chromium, need_chromium

pytestmark = pytest.mark.browser
# The choices as Telegram reads them, and in their short SMS form.
OFFER = re.compile(r"Choose with a number or a name|Reply: ")
OPTIONS = re.compile(r"(?:Choose with a number or a name|Reply): (\w+) 1 ")


@pytest.fixture
def sandbox(tmp_path: Path) -> Iterator[Sandbox]:
    need_chromium()
    with Sandbox(tmp_path, seed=8) as sb:
        yield sb


def test_a_game_of_eight_played_through_the_page(sandbox: Sandbox) -> None:
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 2330, "height": 760})
        page.goto(sandbox.url)
        page.click("#quick")
        game = page.locator(".table.game").first
        game.wait_for(timeout=120_000)
        page.wait_for_function("document.querySelector('.table.game').dataset.status === 'running'", timeout=120_000)
        page.screenshot(path=str(SHOTS / "1-game-starts.png"), full_page=True)

        answered: dict[str, int] = {"Ann": 0, "Bob": 0}
        acted = 0
        for turn in range(60):
            if game.get_attribute("data-status") != "running":
                break
            for name in answered:
                acted += _act(page, name, answered)
            if turn == 2:
                page.screenshot(path=str(SHOTS / "2-mid-game.png"), full_page=True)
            phase_no = game.get_attribute("data-phase-no")
            page.click("#next")
            page.wait_for_function(
                "n => { const g = document.querySelector('.table.game');"
                " return g.dataset.phaseNo !== n || g.dataset.status !== 'running'; }",
                arg=phase_no,
                timeout=120_000,
            )
        for name in answered:  # the last texts reach the phones, by Telegram and by SMS
            page.wait_for_function(
                "n => document.querySelector(`[data-phone=\"${n}\"] .msgs`).textContent.includes('Game over')",
                arg=name,
                timeout=60_000,
            )
        page.evaluate("document.querySelectorAll('.msgs').forEach(m => { m.scrollTop = m.scrollHeight; })")
        page.screenshot(path=str(SHOTS / "3-game-over.png"), full_page=True)
        assert game.get_attribute("data-status") == "over"
    assert acted > 0
    # The moves typed and tapped in the page reached the game as moves of Ann's and Bob's seats.
    assert sandbox.service is not None
    with Session(sandbox.service.db) as s:
        moves = s.exec(select(GameEvent).where(col(GameEvent.kind) == "move")).all()
    assert {m.data.get("actor") for m in moves} & {"Ann", "Bob"}


def _act(page: object, name: str, answered: dict[str, int]) -> int:
    """If `name` was offered a choice since he last answered one, take it: tap the first button when
    his phone shows buttons, else type the first option's verb and the number 1."""
    phone = page.locator(f'[data-phone="{name}"]')  # type: ignore[attr-defined]
    offers = phone.locator(".bubble.bot", has_text=OFFER)
    count = offers.count()
    if count <= answered[name]:
        return 0
    answered[name] = count
    offer = offers.nth(count - 1)
    buttons = offer.locator(".kb button")
    if buttons.count():
        buttons.first.click()
        return 1
    match = OPTIONS.search(offer.inner_text())
    if match is None:
        return 0
    phone.locator(".compose input").fill(f"{match.group(1)} 1")
    phone.locator(".compose button").click()
    return 1


def test_the_page_groups_phones_by_game_marks_the_dead_and_says_errors_in_a_line(sandbox: Sandbox) -> None:
    from playwright.sync_api import expect

    with chromium() as browser:
        page = browser.new_page(viewport={"width": 2330, "height": 1100})
        page.goto(sandbox.url)
        page.click("#next")  # nothing runs yet: it says so
        expect(page.locator("#notice")).to_contain_text("No game is running", timeout=30_000)
        page.click("#quick")
        page.wait_for_function("document.querySelector('.table.game')?.dataset.status === 'running'", timeout=120_000)
        code = page.locator(".table.game").first.get_attribute("data-game")
        # Until when, as the phones write it: the zone named ("Sat 5 Dec 21:55 CET").
        expect(page.locator(".table.game h2").first).to_contain_text(
            re.compile(r"night 1 until \w{3} \d{1,2} \w{3} \d\d:\d\d [A-Z]{3,4} · 8 players")
        )
        table = page.locator(f'.table[data-game="{code}"]')
        expect(table.locator(".phone")).to_have_count(8, timeout=30_000)
        expect(table.locator("h2")).to_contain_text(f"#{code} · night 1 until ")
        # A phone in no game has a row of its own; a game in its lobby, another.
        page.fill("#add-phone [name=name]", "Zoe")
        page.click("#add-phone button")
        expect(page.locator('.table[data-game=""] [data-phone="Zoe"]')).to_be_visible(timeout=30_000)
        zoe = page.locator('[data-phone="Zoe"]')
        zoe.locator(".compose input").fill("new")
        zoe.locator(".compose button").click()
        expect(page.locator("#next-game option")).to_have_count(2, timeout=30_000)
        # A 5,000-character text: Telegram's app sends it in two messages; an SMS phone refuses
        # it, and the page says why in one line (not a validation dump).
        long = "wolves " * 714 + "ok"
        ann, bob = page.locator('[data-phone="Ann"]'), page.locator('[data-phone="Bob"]')
        bob.locator(".compose input").fill(long)
        bob.locator(".compose button").click()
        error = page.locator("#error")
        expect(error).to_have_text("Too long for an SMS: at most 1,600 characters, this one has 5,000.", timeout=30_000)
        assert bob.locator(".compose input").input_value() == long  # not lost: he can shorten it
        ann.locator(".compose input").fill(long)
        ann.locator(".compose button").click()
        expect(ann.locator(".bubble.me", has_text="wolves wolves")).to_have_count(2, timeout=30_000)
        expect(error).to_have_text("")
        # Next deadline for the picked game, saying what it did, until the night has its dead.
        page.select_option("#next-game", code)
        page.click("#next")
        expect(page.locator("#notice")).to_contain_text(f"#{code} night 1 closed, now day 1", timeout=60_000)
        for _ in range(6):
            if page.locator(f'.table[data-game="{code}"] .phone.dead').count():
                break
            page.click("#next")
            page.wait_for_timeout(1500)
        dead = page.locator(f'.table[data-game="{code}"] .phone.dead')
        expect(dead.first).to_be_visible(timeout=30_000)
        expect(dead.first.locator(".tag.dead")).to_be_visible()
        marked = {dead.nth(i).get_attribute("data-phone") for i in range(dead.count())}
        page.screenshot(path=str(SHOTS / "4-grouped-and-dead.png"), full_page=True)
        # What the worker gave up sending is on the page: Bob's carrier refuses him (21610).
        sandbox.twilio.opt_out(sandbox.phones["Bob"].address)
        bob.locator(".compose input").fill("status")
        bob.locator(".compose button").click()
        expect(page.locator("#failures")).to_contain_text(re.compile(r"Bob \(sms\): .*21610"), timeout=30_000)
        # Zoe's game has not started: the line says so, and nothing moves.
        zoe_code = next(g["code"] for g in sandbox.games() if g["code"] != code)
        page.select_option("#next-game", zoe_code)
        page.click("#next")
        expect(page.locator("#notice")).to_have_text(
            f"#{zoe_code} has not started: no deadline yet (its host writes start).", timeout=30_000
        )
    # The phones marked dead are the game's dead (each phone plays under its own name here).
    assert sandbox.service is not None
    with Session(sandbox.service.db) as s:
        game = s.exec(select(Game).where(col(Game.code) == code)).one()
    assert game.state is not None
    assert marked == set(engine.public_view(engine.from_json(game.state))["dead"])
