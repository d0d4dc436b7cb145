"""The closes a worker holds, and the leases it renews on them, so that a worker killed holding a
close (running it, or keeping it for its deadline) loses it to a live worker within seconds.

The sweep marks each close it enqueues (`worker.sweeps`); the mark keeps the next sweeps from
enqueueing it again while it waits in the queue (CLOSE_RETRY_SECONDS). Once a worker has received
the task, its main process renews the mark as a short lease (CLOSE_LEASE_SECONDS, renewed four
times a lease) until the task is acknowledged (run, or rejected). A worker that dies without a word
(SIGKILL, a machine lost) stops renewing: the lease lapses, the next sweep finds the phase still
due and enqueues it again, and a live worker closes it. Redis would hand the dead worker's
unacknowledged task back only after its visibility timeout, an hour; by then the phase is closed
and that copy is a no-op, as is any copy a lapse too early lets through (a stale phase is ignored).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any

import structlog

from worker.marks import Marks
from worker.sweeps import close_key

log = structlog.get_logger("lupus.worker")
CLOSE_TASK = "lupus.close_phase"
RENEWALS = 4
"""Renewals a lease: three in a row may be late (a slow Redis) before the lease lapses."""


def lease_key(request: Any) -> str | None:
    """The mark a close task request holds: None for another task, or a close not from the sweep."""
    args = list(getattr(request, "args", None) or ())
    if getattr(request, "name", None) != CLOSE_TASK or len(args) < 3 or args[2] is None:
        return None
    return close_key(int(args[0]), int(args[1]), float(args[2]))


class Leases:
    """A worker process's held closes (``received`` from Celery's ``task_received`` signal, in the
    process that consumes) and a daemon thread renewing their leases until each is acknowledged."""

    def __init__(self, marks: Callable[[], Marks], seconds: float) -> None:
        self.marks, self.seconds = marks, seconds
        self._held: dict[str, tuple[weakref.ref[Any], str]] = {}  # task id -> (its request, its mark)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._failing = False

    def received(self, request: Any) -> None:
        """Hold a close from now: its mark becomes a lease at once (a worker may die the next second)."""
        key = lease_key(request)
        if key is None:
            return
        with self._lock:
            self._held[request.id] = (weakref.ref(request), key)
        self._renew([key])

    def held(self) -> list[str]:
        """The marks of the closes still held (a request acknowledged or gone is dropped)."""
        with self._lock:
            for task_id, (ref, _) in list(self._held.items()):
                request = ref()
                if request is None or getattr(request, "acknowledged", False):
                    del self._held[task_id]
            return sorted({key for _, key in self._held.values()})

    def renew(self) -> int:
        """Renew the lease of every close held; how many."""
        keys = self.held()
        return len(keys) if self._renew(keys) else 0

    def _renew(self, keys: list[str]) -> bool:
        try:
            self.marks().renew(keys, self.seconds)
        except Exception as e:  # the sweep's own mark keeps it meanwhile, or it is handed out twice
            if not self._failing:
                log.warning("leases.not_renewed", held=len(keys), error=repr(e))
            self._failing = True
            return False
        self._failing = False
        return True

    def start(self) -> Leases:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="lupus-leases", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(self.seconds / RENEWALS):
            self.renew()
