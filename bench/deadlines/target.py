"""The product's worker (`worker.app`) with one bench-only change, so the bench can kill it while a
close is in progress: every close, once it holds the game's lock and before it changes anything,
appends `close game phase pid` to the file `LUPUS_BENCH_CLOSE_MARKS`; the close of the game named in
the file `LUPUS_BENCH_CLOSE_ARM` then waits `LUPUS_BENCH_CLOSE_DELAY` seconds (inside its
transaction) for the kill. Run as `celery -A target worker` with bench/deadlines on PYTHONPATH."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from worker import runtime
from worker.app import app  # noqa: F401 - what `celery -A` looks for

_MARKS = Path(os.environ["LUPUS_BENCH_CLOSE_MARKS"])
_ARM = Path(os.environ["LUPUS_BENCH_CLOSE_ARM"])
_DELAY = float(os.environ.get("LUPUS_BENCH_CLOSE_DELAY", "2"))


def _marked_close(_ctx: Any, room: Any) -> None:
    with _MARKS.open("a") as f:
        f.write(f"close {room.id} {room.game.phase_no} {os.getpid()}\n")
    try:
        armed = int(_ARM.read_text().split()[0])
    except (FileNotFoundError, ValueError, IndexError):
        return
    if armed == room.id:
        time.sleep(_DELAY)


_service = runtime.service


def _service_with_marks() -> Any:
    svc = _service()
    if _marked_close not in svc.before_close:
        svc.before_close.append(_marked_close)
    return svc


runtime.service = _service_with_marks
