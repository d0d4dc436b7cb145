"""One worker process's sending, in a thread of its own beside the tasks (issue 31: one worker
process delivers near the bot's 30 a second).

A dispatch task no longer sends: it hands its rows to the process's pump and returns, so a close or a
sweep never waits behind a send, and the sends never stop for them. The pump runs one pass
(``service.delivery.dispatch.deliver`` with ``fill``) after another while texts are due: the rows
every task asked for since the last pass first, then whatever else is due. Between two passes of a
pipeline kept full, the bot's slots of a few tenths of a second went unused; with closes falling
due every second on a busy worker, a task's pass of a few seconds lost one in ten of them
(``bench/capacity``: 21 a second, a pass per task, against 28 the limiter allows).

One pump per process, started by the first task that asks (in the process that runs the tasks:
after Celery's fork). A clean stop (``stop``, at the worker's shutdown) ends the pass at once: the
sends in flight land and are written, the rest is handed back; a kill leaves the rows in flight to
their short lease (decision 0260).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import structlog

log = structlog.get_logger("lupus.worker")
STOP_WAIT = 10.0  # seconds a clean stop waits for the pass to end (the sends in flight to land)

# A pass: the rows asked for (None: only what is due) and whether to go on; says whether it did anything.
Pass = Callable[[list[int] | None, Callable[[], bool]], bool]


class Pump:
    """Passes of ``run`` in a daemon thread, one at a time, while there is something to send."""

    def __init__(self, run: Pass) -> None:
        self._run = run
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._asked: set[int] = set()
        self._swept = False  # a sweep asked: whatever is due, not only rows
        self._stopping = False
        self._thread: threading.Thread | None = None

    def ask(self, ids: Sequence[int] | None) -> None:
        """Send these rows (None: whatever is due) soon: in the running pass, or the next."""
        with self._lock:
            if ids is None:
                self._swept = True
            else:
                self._asked.update(ids)
            if self._thread is None or not self._thread.is_alive():
                self._stopping = False
                self._thread = threading.Thread(target=self._serve, name="lupus-pump", daemon=True)
                self._thread.start()
        self._wake.set()

    def going(self) -> bool:
        return not self._stopping

    def stop(self) -> None:
        with self._lock:
            self._stopping, thread = True, self._thread
        self._wake.set()
        if thread is not None and thread is not threading.current_thread():
            thread.join(STOP_WAIT)

    def _take(self) -> list[int] | None:
        with self._lock:
            ids = sorted(self._asked) or None  # none asked: a sweep, or the pass before was busy
            self._asked.clear()
            self._swept = False
            self._wake.clear()
        return ids

    def _serve(self) -> None:
        busy = False
        while not self._stopping:
            if not busy:  # nothing was sent by the last pass: wait for a task to ask
                self._wake.wait()
                if self._stopping:
                    break
            ids = self._take()
            try:
                busy = self._run(ids, self.going)
            except Exception:  # a pass that failed handed its rows back: the next task or sweep goes on
                log.exception("outbox.pass_failed")
                busy = False


_pump: Pump | None = None


def pump(run: Pass) -> Pump:
    """This process's pump (made on first use)."""
    global _pump
    if _pump is None:
        _pump = Pump(run)
    return _pump


def stop() -> None:
    """End this process's sending cleanly, if it sends (the worker's shutdown)."""
    if _pump is not None:
        _pump.stop()
