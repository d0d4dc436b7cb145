"""The worker of ``tests/worker/celery_target`` (the product's app on a clock the test moves), with
one more test-only change for the SIGKILL test: every phase close, once it holds the game's lock and
before it changes anything, writes ``game phase pid`` to a file and waits ``LUPUS_TEST_CLOSE_DELAY``
seconds, so the test can kill the worker while a close is in progress (or just after it commits)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from tests.worker.celery_target import app  # noqa: F401 - what `celery -A` looks for
from worker import runtime

_MARKS = Path(os.environ["LUPUS_TEST_CLOSE_MARKS"])
_DELAY = float(os.environ.get("LUPUS_TEST_CLOSE_DELAY", "0.3"))


def _slow_close(_ctx: Any, room: Any) -> None:
    with _MARKS.open("a") as f:
        f.write(f"{room.id} {room.game.phase_no} {os.getpid()}\n")
    time.sleep(_DELAY)


_service = runtime.service


def _service_with_slow_close() -> Any:
    svc = _service()
    if _slow_close not in svc.before_close:
        svc.before_close.append(_slow_close)
    return svc


runtime.service = _service_with_slow_close
