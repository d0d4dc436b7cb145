"""The worker of ``tests/worker/celery_target`` (the product's app on a clock the test moves), with
two more test-only changes for the SIGKILL test, each leaving a mark the test waits for:

- every phase close, once it holds the game's lock and before it changes anything, writes
  ``close game phase pid`` to the marks file and waits ``LUPUS_TEST_CLOSE_DELAY`` seconds, so the
  test can kill the worker while a close is in progress (or just after it commits);
- every round of sends, once its rows are marked in flight and before any is sent (the
  ``in_flight`` seam of ``service/delivery/dispatch.py``), writes ``send ids pid``. While the file
  ``LUPUS_TEST_SEND_ARM`` holds ``row game phase``, a round with a row newer than ``row``, once that
  phase's close has begun, then waits (for the kill, two minutes at most): the test kills the
  worker with texts written by the close, or after it, in flight. (Rows written before the close
  began, a reminder's, go as usual: a round held then would hold the close up behind it.)
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from service.delivery import dispatch
from tests.worker.celery_target import app  # noqa: F401 - what `celery -A` looks for
from worker import runtime

_MARKS = Path(os.environ["LUPUS_TEST_CLOSE_MARKS"])
_ARM = Path(os.environ["LUPUS_TEST_SEND_ARM"])
_DELAY = float(os.environ.get("LUPUS_TEST_CLOSE_DELAY", "0.3"))


def _mark(line: str) -> None:
    with _MARKS.open("a") as f:
        f.write(f"{line} {os.getpid()}\n")


def _slow_close(_ctx: Any, room: Any) -> None:
    _mark(f"close {room.id} {room.game.phase_no}")
    time.sleep(_DELAY)


def _armed() -> tuple[int, str] | None:
    """(row, the close mark) while the test has armed the next round of sends."""
    try:
        row, game, phase = _ARM.read_text().split()
    except (FileNotFoundError, ValueError):
        return None
    return int(row), f"close {game} {phase} "


def _slow_send(ids: set[int]) -> None:
    if not ids:
        return
    _mark("send " + ",".join(map(str, sorted(ids))))
    end = time.monotonic() + 120
    while (armed := _armed()) is not None and max(ids) > armed[0] and time.monotonic() < end:
        if armed[1] not in _MARKS.read_text():
            return  # the close has not begun: not a round of its texts
        time.sleep(0.05)


_service = runtime.service


def _service_with_slow_close() -> Any:
    svc = _service()
    if _slow_close not in svc.before_close:
        svc.before_close.append(_slow_close)
    return svc


runtime.service = _service_with_slow_close
# The seam must be there: without it the test would wait for a mark that never comes.
assert callable(dispatch.in_flight), "service/delivery/dispatch.py lost its in_flight seam"
dispatch.in_flight = _slow_send
