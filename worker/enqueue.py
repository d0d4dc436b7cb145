"""Handing new outbox rows to the worker once the transaction that wrote them has committed.

Every command's new outbox ids are enqueued for dispatch (``lupus.dispatch``). The worker's own
service does it in line (``install``); the web process does it through a ``Handoff``, a thread that
sends what piled up while it was sending, in one task, so that a webhook answers without waiting for
the broker. Either way, if the broker is unreachable the rows stay pending and beat's outbox sweep
sends them: a lost enqueue delays a message, it never loses one.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Sequence

import structlog
from celery import Celery

from service.game.app import Service

log = structlog.get_logger(__name__)


def enqueue_dispatch(ids: Sequence[int]) -> None:
    from worker.tasks import dispatch

    try:
        dispatch.apply_async(args=[list(ids)], retry=False)
    except Exception as e:  # the broker is down: the outbox sweep is the safety net
        log.warning("enqueue.failed", ids=list(ids), error=repr(e))


def install(service: Service) -> Service:
    service.after_commit = enqueue_dispatch
    return service


class Handoff:
    """``after_commit`` for the web process: ids are queued at once, and a daemon thread sends them
    to the broker as ``lupus.dispatch`` tasks, all the ids that came meanwhile in one task."""

    def __init__(self, send: Callable[[list[int]], None]) -> None:
        self._send = send
        self._ids: queue.SimpleQueue[list[int]] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="lupus-handoff", daemon=True)
        self._thread.start()

    def __call__(self, ids: Sequence[int]) -> None:
        if ids:
            self._ids.put(list(ids))

    def _run(self) -> None:
        while True:
            ids = self._ids.get()
            while not self._ids.empty():
                ids += self._ids.get_nowait()
            try:
                self._send(ids)
            except Exception as e:  # the broker is down: the outbox sweep is the safety net
                log.warning("enqueue.failed", ids=ids, error=repr(e))


def handoff_to(broker_url: str) -> Handoff:
    """A ``Handoff`` sending to the worker's broker, by task name (the web process does not load the
    worker's tasks or settings)."""
    from worker.celery_app import make_celery

    app: Celery = make_celery(broker_url, include=[])
    return Handoff(lambda ids: app.send_task("lupus.dispatch", args=[ids], retry=False))
