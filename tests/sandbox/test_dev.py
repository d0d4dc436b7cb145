"""The README's first command as a person runs it: `python3 dev.py up` in a terminal, the page's
address printed, then Ctrl-C typed at the keyboard. The terminal sends SIGINT to the whole
foreground group, dev.py and `lupus up` alike; dev.py must wait for `lupus up` to stop cleanly.

(test_up.py runs `lupus up` itself; a fresh clone's set-up, the venv and the install, is tried by
hand: here dev.py finds the venv it made, as in CI, where `python3 dev.py test` runs this.)"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import subprocess
import sys
import termios
import time
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.processes  # starts the real processes: not in the fast lane

ROOT = Path(__file__).resolve().parents[2]


def _made_by_dev_py() -> bool:
    from dev import digest  # what dev.py stamps .venv with (pyproject.toml and requirements.lock)

    stamp = ROOT / ".venv" / ".installed"
    return Path(sys.prefix) == ROOT / ".venv" and stamp.exists() and stamp.read_text() == digest()


def _read(fd: int, seconds: float, until: bytes | None = None) -> bytes:
    out, end = b"", time.monotonic() + seconds
    while time.monotonic() < end and (until is None or until not in out):
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the terminal closed: everyone on it exited
                break
            if not chunk:
                break
            out += chunk
    return out


@pytest.mark.skipif(not _made_by_dev_py(), reason="runs where dev.py made .venv (python3 dev.py test, CI)")
def test_dev_py_up_prints_the_address_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    master, slave = pty.openpty()

    def in_a_terminal() -> None:  # a session of its own, with the pty as its controlling terminal
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    proc = subprocess.Popen(
        [sys.executable, "dev.py", "up", "--port", "0", "--data", str(tmp_path)],
        cwd=ROOT,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        preexec_fn=in_a_terminal,
    )
    os.close(slave)
    try:
        out = _read(master, 120, until=b"Press Ctrl-C")
        text = out.decode(errors="replace")
        (page,) = re.findall(r"https?://[^\s\x1b]+", text)  # the one address printed: the page's
        assert "Game of eight with robots" in httpx.get(page, timeout=30).text
        os.write(master, b"\x03")  # Ctrl-C, typed
        code = proc.wait(180)  # a hang guard, not a speed target
        rest = _read(master, 5).decode(errors="replace")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        os.close(master)
    assert code == 0, text + rest
    assert "stopping..." in rest and rest.rstrip().endswith("stopped"), rest
