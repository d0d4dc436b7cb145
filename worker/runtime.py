"""What one worker process holds: the application service and its delivery (one sender per
configured channel, made when the process starts and closed when it stops).

Tasks reach them through `service()` and `delivery()`; both are built lazily, so a task also works
in a process Celery did not start (tests, `celery call`). `clock` is the service's idea of now: the
real UTC clock, replaced only by tests that move time.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from service.delivery.wiring import Delivery, make_delivery
from service.game.app import Service
from service.game.reminders import install
from service.settings import Settings, get_settings, redis_tls_options
from service.store.models import utcnow
from worker.marks import Marks, make_marks

clock: Callable[[], datetime] = utcnow
_service: Service | None = None
_delivery: Delivery | None = None
_marks: Marks | None = None


def settings() -> Settings:
    return get_settings()


def service() -> Service:
    global _service
    if _service is None:
        # The worker's own commands (a phase closing, a reminder) dispatch their outbox at once.
        from service.ops import metrics
        from service.store.db import is_sqlite, make_engine
        from worker.enqueue import enqueue_dispatch

        cfg = settings()
        pool = {} if is_sqlite(cfg.DATABASE_URL) else cfg.db_pool("worker")
        _service = install(
            Service(
                cfg,
                db=make_engine(cfg.DATABASE_URL, pre_ping=True, **pool),
                clock=lambda: clock(),
                after_commit=enqueue_dispatch,
            )
        )
        if metrics.count_close not in _service.before_close:
            _service.before_close.append(metrics.count_close)
    return _service


def delivery() -> Delivery:
    global _delivery
    if _delivery is None:
        _delivery = make_delivery(settings())
        from service.ops.metrics import Metered

        _delivery.senders = {name: Metered(sender) for name, sender in _delivery.senders.items()}
    return _delivery


def marks() -> Marks:
    global _marks
    if _marks is None:
        cfg = settings()
        _marks = make_marks(cfg.REDIS_URL, redis_tls_options(cfg.REDIS_URL))
    return _marks


def shutdown() -> None:
    global _delivery, _service, _marks
    if _delivery is not None:
        _delivery.close()
    if _service is not None:
        _service.db.dispose()
    _delivery = _service = _marks = None
