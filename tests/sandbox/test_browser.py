"""The sandbox page in a real browser: headless Chromium (Debian's package, driven by Playwright)
opens it, starts a game of eight, plays the two human phones by typing and tapping as a person would,
moves the clock deadline by deadline, and sees the game to its end. Screenshots go to var/screenshots/.

CI (.ci/run) installs Chromium and sets LUPUS_REQUIRE_BROWSER=1, so there a missing browser fails
instead of skipping.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlmodel import Session, col, select

from service.models import GameEvent
from service.sandbox.world import Sandbox

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-quic"]
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
# The choices as Telegram reads them, and in their short SMS form.
OFFER = re.compile(r"Choose with a number or a name|Reply: ")
OPTIONS = re.compile(r"(?:Choose with a number or a name|Reply): (\w+) 1 ")


@pytest.fixture
def sandbox(tmp_path: Path) -> Iterator[Sandbox]:
    if not Path(CHROMIUM).exists():
        if os.environ.get("LUPUS_REQUIRE_BROWSER"):
            pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium")
        pytest.skip(f"{CHROMIUM} is missing (apt-get install -y chromium)")
    with Sandbox(tmp_path, seed=8) as sb:
        yield sb


def test_a_game_of_eight_played_through_the_page(sandbox: Sandbox) -> None:
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 2330, "height": 760})
            page.goto(sandbox.url)
            page.click("#quick")
            game = page.locator("#games .game").first
            game.wait_for(timeout=120_000)
            page.wait_for_function("document.querySelector('#games .game').dataset.status === 'running'",
                                   timeout=120_000)
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
                    "n => { const g = document.querySelector('#games .game');"
                    " return g.dataset.phaseNo !== n || g.dataset.status !== 'running'; }",
                    arg=phase_no, timeout=120_000)
            for name in answered:  # the last texts reach the phones, by Telegram and by SMS
                page.wait_for_function(
                    "n => document.querySelector(`[data-phone=\"${n}\"] .msgs`).textContent.includes('Game over')",
                    arg=name, timeout=60_000)
            page.evaluate("document.querySelectorAll('.msgs').forEach(m => { m.scrollTop = m.scrollHeight; })")
            page.screenshot(path=str(SHOTS / "3-game-over.png"), full_page=True)
            assert game.get_attribute("data-status") == "over"
        finally:
            browser.close()
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
