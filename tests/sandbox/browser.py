"""Headless Chromium (Debian's package, driven by Playwright) for the sandbox page's browser tests:
where Chromium is, the flags it runs with here, and where screenshots go (var/screenshots/).

CI (.ci/run) installs Chromium and sets LUPUS_REQUIRE_BROWSER=1, so there a missing browser fails
instead of skipping."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
LAPTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}


def need_chromium() -> None:
    """Skip (or, where the browser is required, fail) when Chromium is not installed."""
    if not Path(CHROMIUM).exists():
        if os.environ.get("LUPUS_REQUIRE_BROWSER"):
            pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium")
        pytest.skip(f"{CHROMIUM} is missing (apt-get install -y chromium)")


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium, closed at the end of the block."""
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()
