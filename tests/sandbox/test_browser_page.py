"""The sandbox page as a newcomer reads it, in headless Chromium: each phone keeps its scroll where
its reader left it, running games come first, each game's line shows once, and the clock, a paused
game and a refusal read as sentences. Screenshots of a laptop's and a phone's screen go to
var/screenshots/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.sandbox.world import Sandbox
from tests.sandbox.browser import LAPTOP, PHONE, SHOTS, chromium, need_chromium

pytestmark = pytest.mark.browser

RUNNING = "document.querySelector('[data-status=running]') !== null"
GAP = "m => m.scrollHeight - m.scrollTop - m.clientHeight"  # how far above the newest text he reads


@pytest.fixture
def sandbox(tmp_path: Path) -> Iterator[Sandbox]:
    need_chromium()
    with Sandbox(tmp_path, seed=8) as sb:
        yield sb


def _msgs(page: Any, name: str) -> Any:
    return page.locator(f'[data-phone="{name}"] .msgs')


def _settle(page: Any) -> None:
    page.wait_for_timeout(2600)  # the page polls every second: two polls and a render


def _gaps(page: Any) -> dict[str, float]:
    return page.evaluate(f"""() => Object.fromEntries([...document.querySelectorAll('.phone')]
        .map(p => [p.dataset.phone, ({GAP})(p.querySelector('.msgs'))]))""")


def _bubbles(page: Any, name: str) -> int:
    return int(_msgs(page, name).locator(".bubble").count())


def test_each_phone_keeps_its_scroll_where_its_reader_left_it(sandbox: Sandbox) -> None:
    from playwright.sync_api import expect

    with chromium() as browser:
        page = browser.new_page(viewport=LAPTOP)
        page.goto(sandbox.url)
        page.click("#quick")
        page.wait_for_function(RUNNING, timeout=120_000)
        expect(_msgs(page, "Ann")).to_contain_text("Your character", timeout=60_000)
        expect(_msgs(page, "Bob")).to_contain_text("Your card", timeout=60_000)
        _settle(page)
        # After the robots' game is laid, every phone shows its newest text: the card just dealt.
        assert all(gap < 2 for gap in _gaps(page).values()), _gaps(page)
        page.screenshot(path=str(SHOTS / "scroll-1-dealt.png"))

        # Ann scrolls back to read the joins; the others stay at their newest text.
        _msgs(page, "Ann").evaluate("m => { m.scrollTop = 120; }")
        page.fill("#add-phone [name=name]", "Zoe")
        page.click("#add-phone button")
        expect(page.locator('[data-phone="Zoe"]')).to_be_visible(timeout=30_000)
        _settle(page)
        assert _msgs(page, "Ann").evaluate("m => m.scrollTop") == 120  # where she left it
        gaps = _gaps(page)
        assert all(gap < 2 for name, gap in gaps.items() if name != "Ann"), gaps  # not the top of the history
        page.screenshot(path=str(SHOTS / "scroll-2-after-add-phone.png"))

        # Dawn: who reads the newest text is shown the new one; Ann, reading back, is not moved.
        before = _bubbles(page, "Bob")
        page.click("#next")
        page.wait_for_function(
            f"() => document.querySelectorAll('[data-phone=\"Bob\"] .bubble').length > {before}", timeout=60_000
        )
        _settle(page)
        assert _msgs(page, "Ann").evaluate("m => m.scrollTop") == 120
        gaps = _gaps(page)
        assert all(gap < 2 for name, gap in gaps.items() if name != "Ann"), gaps

        # Back at the bottom, she follows the news again.
        _msgs(page, "Ann").evaluate("m => { m.scrollTop = m.scrollHeight; }")
        before = _bubbles(page, "Ann")
        page.click("#next")
        page.wait_for_function(
            f"() => document.querySelectorAll('[data-phone=\"Ann\"] .bubble').length > {before}", timeout=60_000
        )
        _settle(page)
        assert _msgs(page, "Ann").evaluate(GAP) < 2
        page.screenshot(path=str(SHOTS / "scroll-3-next-day.png"))


def _text_nodes_with(page: Any, needle: str) -> int:
    """How many places on the page show ``needle`` (text nodes, the form controls' options aside)."""
    return int(
        page.evaluate(
            """n => { let k = 0;
        const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        while (walk.nextNode()) { const t = walk.currentNode;
          if (t.parentElement.closest('option, script')) continue;
          if (t.textContent.includes(n)) k++; }
        return k; }""",
            needle,
        )
    )


def test_running_games_first_each_line_once_states_in_words(sandbox: Sandbox) -> None:
    from playwright.sync_api import expect

    with chromium() as browser:
        page = browser.new_page(viewport=LAPTOP)
        page.goto(sandbox.url)
        expect(page.locator("#clock")).to_contain_text("in step with the real clock", timeout=30_000)
        page.click("#add-robots button")  # no game to add them to
        expect(page.locator("#error")).to_have_text(
            "Pick a game first: robots join a game in its lobby.", timeout=30_000
        )
        page.click("#quick")
        page.wait_for_function(RUNNING, timeout=120_000)
        first = page.locator(".table.game").first.get_attribute("data-game")
        ann = page.locator('[data-phone="Ann"]')
        ann.locator(".compose input").fill("end yes")  # Ann hosts it: she ends it
        ann.locator(".compose button").click()
        expect(page.locator(f'.table.game[data-game="{first}"]')).to_have_attribute(
            "data-status", "ended", timeout=30_000
        )
        page.click("#quick")
        page.wait_for_function(RUNNING, timeout=120_000)
        second = page.locator(".table.game[data-status=running]").get_attribute("data-game")
        # The running game above the finished one, each game's line once on the page.
        expect(page.locator(".table.game").first).to_have_attribute("data-game", str(second))
        _settle(page)
        assert _text_nodes_with(page, f"#{first}") == 1 and _text_nodes_with(page, f"#{second}") == 1
        heading = page.locator(f'.table.game[data-game="{second}"] h2')
        expect(heading).to_contain_text(f"#{second} · night 1 until ")
        expect(page.locator(f'.table.game[data-game="{first}"] h2')).to_have_text(
            f"#{first} · ended by its host · 8 players"
        )
        # The clock: the games' time, and how far ahead of the real one, in words.
        page.click("#next")
        expect(page.locator("#clock")).to_contain_text(" hours ahead of the real clock", timeout=60_000)
        assert "(+" not in page.locator("#clock").inner_text()
        # A paused game says so, and only so.
        host_name = next(g["host"] for g in sandbox.games() if g["code"] == second)
        assert host_name is not None
        phone = page.locator(f'[data-phone="{host_name}"]')
        phone.locator(".compose input").fill("pause")
        phone.locator(".compose button").click()
        expect(heading).to_have_text(f"#{second} · day 1 nominations · paused · 8 players", timeout=30_000)
        page.screenshot(path=str(SHOTS / "games-laptop.png"))
        page.set_viewport_size(PHONE)
        page.wait_for_timeout(500)
        page.screenshot(path=str(SHOTS / "games-phone.png"))
        page.screenshot(path=str(SHOTS / "games-phone-full.png"), full_page=True)
        # On a phone's screen nothing spills sideways but the row of phones, which scrolls.
        assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")


def test_a_sandbox_gone_is_said_in_a_sentence(sandbox: Sandbox) -> None:
    from playwright.sync_api import expect

    with chromium() as browser:
        page = browser.new_page(viewport=LAPTOP)
        page.goto(sandbox.url)
        expect(page.locator("#clock")).to_contain_text("Sandbox clock: ", timeout=30_000)
        sandbox.page_server.stop()  # as if lupus up were stopped with the page still open
        expect(page.locator("#error")).to_have_text(
            "The sandbox does not answer: is lupus up still running? Start it again, then reload this page.",
            timeout=30_000,
        )
