"""The Celery app factory and the base class every task uses.

Broker: Redis when a URL is given (REDIS_URL); otherwise kombu's SQLAlchemy transport on a SQLite
file, so a newcomer runs the worker with no server at all (one machine, a few tasks a second; see
`broker_settings` for what it does not guarantee).

Delivery guarantees, and why these settings:
- `task_acks_late` + `task_reject_on_worker_lost` + prefetch 1: a task is acknowledged only after it
  ran, so a worker killed mid-task leaves it to be delivered again. Tasks must therefore be
  idempotent: they take ids, and the domain function they call checks state (a stale phase number is
  ignored, an outbox row already sent is skipped).
- Redis's visibility timeout (one hour here, Celery's default, stated so nobody lowers it blindly): a
  task not acknowledged within it is handed to another worker. Our tasks run for seconds, so one hour
  only matters after a crash (kombu puts such a task back when a worker starts, or on its periodic
  sweep, once the timeout has passed). It is also why no task is scheduled hours ahead with an ETA: such a task
  would be redelivered every hour; deadlines live in the database and beat sweeps them.
- Beat: with Redis, several beats may run and one schedules, the holder of a lock in Redis
  (celery-redbeat, `worker.app.standby_beats`); the others stand by to take over. On the embedded
  broker only one may run: two would enqueue every sweep twice (harmless, the sweeps are
  idempotent, but wasteful).
- `rate_limit` is per worker, so it is not used: the global limiter (service.delivery.limiter) is.
- Beat's sweeps go to their own queue, which every worker also consumes: a sweep must not wait
  behind the hundreds of dispatches the previous one enqueued, or the deadlines found by the next
  sweep start late.
- Phase closes go to a queue of their own too, and on Redis a worker takes its queues in the order
  of `QUEUES` (kombu's `queue_order_strategy = "priority"`: closes, then sweeps, then sends), not in
  turn: behind a backlog of sends (each dispatch holds a pool process for up to its budget,
  seconds), a close taken in turn with the sends waits for every send ahead of it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import structlog
from celery import Celery, Task
from celery.exceptions import Retry
from kombu import Queue

log = structlog.get_logger(__name__)

VISIBILITY_TIMEOUT = 3600  # seconds; see the module docstring
QUEUE, CLOSE_QUEUE, BEAT_QUEUE = "lupus", "lupus.close", "lupus.beat"
QUEUES = (CLOSE_QUEUE, BEAT_QUEUE, QUEUE)
"""Every queue a worker consumes, the first taken first (what is waiting is their lengths together)."""
BEAT_TASKS = ("lupus.sweep_deadlines", "lupus.sweep_outbox", "lupus.reminders")
TASK_MODULES: list[str] = []  # the worker's task modules, added as they are written


def embedded_broker_url(data_dir: Path | str = "var", make: bool = True) -> str:
    """The no-server broker: a SQLite file under `data_dir` (made if missing, unless `make` is False:
    a process that may yet refuse to start leaves nothing behind)."""
    path = Path(data_dir).resolve()
    if make:
        path.mkdir(parents=True, exist_ok=True)
    return f"sqla+sqlite:///{path / 'celery.db'}"


def broker_settings(
    broker_url: str | None,
    *,
    data_dir: Path | str = "var",
    visibility_timeout: float = VISIBILITY_TIMEOUT,
    make: bool = True,
) -> dict[str, Any]:
    """The configuration that depends on the broker."""
    if broker_url:
        options: dict[str, Any] = {"visibility_timeout": visibility_timeout, "queue_order_strategy": "priority"}
        redis = {"broker_url": broker_url, "broker_transport_options": options}
        if broker_url.startswith("rediss://"):
            # Heroku's Redis presents a self-signed certificate.
            import ssl

            return {**redis, "broker_use_ssl": {"ssl_cert_reqs": ssl.CERT_NONE}}
        return redis
    # kombu's SQL transport hands its transport options to SQLAlchemy's create_engine, so none are
    # set. It polls once a second, and a message taken by a worker that then dies hard is not
    # delivered again (it has no visibility timeout): fine for trying the bot on one machine, and
    # harmless as long as beat re-sweeps what is due (deadlines, pending outbox rows) from the database.
    return {"broker_url": embedded_broker_url(data_dir, make)}


def make_celery(
    broker_url: str | None = None,
    *,
    data_dir: Path | str = "var",
    result_backend: str | None = None,
    include: list[str] | None = None,
    name: str = "lupus",
    visibility_timeout: float = VISIBILITY_TIMEOUT,
    make: bool = True,
) -> Celery:
    """The app. `broker_url` is REDIS_URL or None (embedded SQLite, its folder made unless `make` is
    False). Results are not kept unless a `result_backend` is given: tasks report through the
    database, not through Celery."""
    app = Celery(name, task_cls=BaseTask, include=include if include is not None else TASK_MODULES)
    app.conf.update(
        **broker_settings(broker_url, data_dir=data_dir, visibility_timeout=visibility_timeout, make=make),
        result_backend=result_backend,
        task_ignore_result=result_backend is None,
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        worker_hijack_root_logger=False,
        # Task events (received, started, succeeded, failed...) for Flower and `celery events`:
        # a few small messages a task, on the broker.
        worker_send_task_events=True,
        task_send_sent_event=True,
        broker_connection_retry_on_startup=True,
        # Back on a restarted Redis within a second, however long it was away (`worker.consumer`).
        broker_connection_max_retries=None,
        worker_consumer="worker.consumer:Consumer",
        task_default_queue=QUEUE,
        task_queues=tuple(Queue(q, routing_key=q) for q in QUEUES),
        task_routes={
            "lupus.close_phase": {"queue": CLOSE_QUEUE, "routing_key": CLOSE_QUEUE},
            **{name: {"queue": BEAT_QUEUE, "routing_key": BEAT_QUEUE} for name in BEAT_TASKS},
        },
        timezone="UTC",
        enable_utc=True,
    )
    return app


class RetryLater(Exception):
    """Raised by a task to run again after `seconds` (a platform's retry_after, the limiter's wait)
    without counting as a failure."""

    def __init__(self, seconds: float, why: str = "") -> None:
        super().__init__(seconds, why)  # the args rebuild it, so Celery can serialize it as JSON
        self.seconds, self.why = seconds, why

    def __str__(self) -> str:
        return f"retry in {self.seconds:.2f}s: {self.why}"


class TransientError(Exception):
    """Raised by a task when something outside us failed and may work later: retried with
    exponential backoff and jitter, up to `max_retries`."""


class BaseTask(Task):
    """Where retries, backoff and logging live, so each task stays ten lines (docs/design.md, house rule 5)."""

    acks_late = True
    reject_on_worker_lost = True
    autoretry_for: ClassVar[tuple[type[BaseException], ...]] = (TransientError,)
    retry_backoff = 2  # seconds, doubled each time
    retry_backoff_max = 600
    retry_jitter = True
    max_retries = 12  # about an hour of backoff: then the task is logged as failed

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().__call__(*args, **kwargs)
        except RetryLater as e:
            request = self.request
            if request.called_directly:
                raise
            log.info("task.deferred", task=self.name, id=request.id, seconds=e.seconds, why=e.why)
            # Like Task.retry, but the retry count stays: waiting for a rate limit is not failing,
            # and must not use up the retries (and lengthen the backoff) kept for real failures.
            sig = self.signature_from_request(request, countdown=e.seconds, retries=request.retries)
            sig.apply_async()
            raise Retry(exc=e, when=e.seconds, sig=sig) from None

    def on_retry(self, exc: BaseException, task_id: str, args: Any, kwargs: Any, einfo: Any) -> None:
        if not isinstance(exc, Retry | RetryLater):
            log.warning("task.retry", task=self.name, id=task_id, error=repr(exc), attempt=self.request.retries + 1)

    def on_failure(self, exc: BaseException, task_id: str, args: Any, kwargs: Any, einfo: Any) -> None:
        log.error("task.failed", task=self.name, id=task_id, error=repr(exc), args=args)

    def on_success(self, retval: Any, task_id: str, args: Any, kwargs: Any) -> None:
        log.debug("task.done", task=self.name, id=task_id)
