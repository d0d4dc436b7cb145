"""Handing new outbox rows to the worker once the transaction that wrote them has committed.

The web process calls `install(service)` at startup when it runs with a worker: every command's
new outbox ids are then enqueued for dispatch. If the broker is unreachable the rows stay pending
and beat's outbox sweep sends them: a lost enqueue delays a message, it never loses one.
"""

from __future__ import annotations

from collections.abc import Sequence

import structlog

from service.app import Service

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
