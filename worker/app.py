"""The Celery app the Procfile runs: `celery -A worker.app worker` and `celery -A worker.app beat`.

Built from the settings object: Redis when REDIS_URL is set, else the embedded SQLite broker (see
worker.celery_app). Beat only enqueues sweeps; everything it sweeps lives in the database, so a
restart of the worker, of beat or of Redis loses nothing: the next sweep finds it again.
Run ONE beat (Procfile `beat`, one instance): two would enqueue every sweep twice (harmless, the
tasks are idempotent, but wasteful).

The senders are made once per worker process, when it starts (`worker_process_init`; for the solo
pool, `worker_init`), and closed when it stops.
"""

from __future__ import annotations

from typing import Any

from celery import signals
from celery.signals import setup_logging

from service.logging import configure
from worker import runtime
from worker.celery_app import make_celery


def build(settings: Any = None) -> Any:
    cfg = settings or runtime.settings()
    celery = make_celery(cfg.REDIS_URL or None, include=["worker.tasks"])

    def every(seconds: float, task: str) -> dict[str, Any]:
        # A sweep nobody ran for a minute is dropped (workers down, a backlog): the next one does
        # the same work, so they never pile up.
        return {"task": task, "schedule": seconds, "options": {"expires": max(60.0, 3 * seconds)}}

    # weak=False: Celery's signals hold weak references by default, and this local function would
    # be gone once build() returns, leaving Celery to set up its own plain-text logging.
    @setup_logging.connect(weak=False)
    def _logging(**_: Any) -> None:  # one log format for every process: JSON lines in production
        configure()

    celery.conf.beat_schedule = {
        "sweep-deadlines": every(cfg.SWEEP_SECONDS, "lupus.sweep_deadlines"),
        "sweep-outbox": every(cfg.OUTBOX_SWEEP_SECONDS, "lupus.sweep_outbox"),
        "reminders": every(cfg.REMINDER_SWEEP_SECONDS, "lupus.reminders"),
    }
    return celery


app = build()


@signals.worker_process_init.connect
@signals.worker_init.connect
def _start(**_: Any) -> None:
    runtime.delivery()


@signals.worker_process_shutdown.connect
@signals.worker_shutdown.connect
def _stop(**_: Any) -> None:
    runtime.shutdown()
