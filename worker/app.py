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

from worker import runtime
from worker.celery_app import make_celery


def build(settings: Any = None) -> Any:
    cfg = settings or runtime.settings()
    celery = make_celery(cfg.REDIS_URL or None, include=["worker.tasks"])
    celery.conf.beat_schedule = {
        "sweep-deadlines": {"task": "lupus.sweep_deadlines", "schedule": cfg.SWEEP_SECONDS,
                            "options": {"expires": cfg.SWEEP_SECONDS * 2}},
        "sweep-outbox": {"task": "lupus.sweep_outbox", "schedule": cfg.OUTBOX_SWEEP_SECONDS,
                         "options": {"expires": cfg.OUTBOX_SWEEP_SECONDS * 2}},
        "reminders": {"task": "lupus.reminders", "schedule": cfg.REMINDER_SWEEP_SECONDS,
                      "options": {"expires": cfg.REMINDER_SWEEP_SECONDS * 2}},
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
