"""`lupus up` as a newcomer runs it: it migrates, serves the page and the real web app, prints the
page's address (the one address it prints: the rest is said as ports, not as places to open), and
stops cleanly on Ctrl-C (SIGINT) and on SIGTERM (``kill``, a process manager)."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.processes  # starts the real processes: not in the fast lane


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_up_serves_the_page_and_stops_cleanly(tmp_path: Path, stop: signal.Signals) -> None:
    lupus = str(Path(sys.executable).parent / "lupus")
    proc = subprocess.Popen(
        [lupus, "up", "--port", "0", "--data", str(tmp_path)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    lines: list[str] = []
    try:
        end = time.monotonic() + 90
        while time.monotonic() < end:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            if "Press Ctrl-C" in line:
                break
        out = "".join(lines)
        (page,) = re.findall(r"https?://\S+", out)  # one address to open, and it is the page
        web = re.search(r"the bot's real web app \(port (\d+)\)", out)
        assert page.endswith("/") and web, out
        assert "Game of eight with robots" in httpx.get(page, timeout=30).text
        assert httpx.get(page + "api/state", timeout=30).json()["phones"] == []
        health = httpx.get(f"http://127.0.0.1:{web.group(1)}/healthz", timeout=30)
        assert health.status_code == 200 and health.json()["database"] == "ok"
        assert (tmp_path / "sandbox.db").exists()
    finally:
        proc.send_signal(stop)
        rest, _ = proc.communicate(timeout=180)  # a hang guard, not a speed target (CI machines are shared)
    assert proc.returncode == 0, rest
    assert rest.rstrip().endswith("stopped")
