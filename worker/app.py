"""The Celery app the Procfile runs: `celery -A worker.app worker` and `celery -A worker.app beat`.

Built from the settings object: Redis when REDIS_URL is set, else the embedded SQLite broker (see
worker.celery_app). Beat only enqueues sweeps; everything it sweeps lives in the database, so a
restart of the worker, of beat or of Redis loses nothing: the next sweep finds it again.
With Redis, two beats may run (a standby): a lock in Redis lets one schedule (`standby_beats`).
Without it, run one: two would enqueue every sweep twice (harmless, the tasks are idempotent).

The senders are made once per worker process, when it starts (`worker_process_init`; for the solo
pool, `worker_init`), and closed when it stops.

What a real worker or beat process does at start, and the sandbox and tests running tasks in their
own process do not: refuse a deployment that cannot work (``service.ops.preflight``: one line, exit
status 2, nothing left behind), report errors to Sentry (SENTRY_DSN), count in files for /metrics,
and leave a heartbeat in the database every HEARTBEAT_SECONDS, deleted when it stops cleanly
(``service.ops.health``).
"""

from __future__ import annotations

import sys
from typing import Any

import structlog
from celery import signals
from celery.signals import setup_logging

from service.ops.logging import configure
from worker import pump, runtime
from worker.celery_app import embedded_broker_url, make_celery
from worker.leases import Leases

log = structlog.get_logger("lupus.worker")


def build(settings: Any = None) -> Any:
    cfg = settings or runtime.settings()
    # The embedded broker's folder is made by a process that starts on it (_refuse_or_start), not here.
    celery = make_celery(cfg.REDIS_URL or None, include=["worker.tasks"], make=False)
    # From the settings, not the command line: the Procfile's and fly.toml's lines stay the same
    # (Fly runs a process's command without a shell to expand ${WORKER_CONCURRENCY}).
    celery.conf.worker_concurrency = cfg.WORKER_CONCURRENCY

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
    if cfg.REDIS_URL and cfg.STANDBY_BEATS:
        celery.conf.update(standby_beats(cfg.REDIS_URL, cfg.BEAT_LOCK_SECONDS))
    return celery


def standby_beats(redis_url: str, lock_seconds: int) -> dict[str, Any]:
    """celery-redbeat: the schedule lives in Redis and every beat but the one holding its lock stands
    by (docs/decisions/0250). The leader renews the lock at each tick, at least once a second; a
    standby tries for it every second, so it leads at most `lock_seconds` and a second after the
    leader died, and at once after a clean stop (which releases it). Without Redis (one machine, the
    embedded broker) there is no lock: Celery's own scheduler, and one beat. `worker.standby` keeps
    a leader alive through a Redis outage."""
    import ssl

    # Heroku's Key-Value Store presents a self-signed certificate (as for the broker).
    tls = {"ssl_cert_reqs": ssl.CERT_NONE} if redis_url.startswith("rediss://") else None
    return {
        "beat_scheduler": "worker.standby:StandbyScheduler",
        "redbeat_redis_url": redis_url,
        "redbeat_redis_options": {},
        "redbeat_redis_use_ssl": tls,
        "redbeat_key_prefix": "lupus:beat",
        "redbeat_lock_timeout": lock_seconds,
        "beat_max_loop_interval": 1,
    }


app = build()
_heartbeats: list[Any] = []
_leases = Leases(runtime.marks, runtime.settings().CLOSE_LEASE_SECONDS)


_started: set[str] = set()


def _refuse_or_start(role: str) -> None:
    """The start of a real `worker` or `beat` process (see the module docstring); once a process
    (beat's Redis scheduler asks before Celery's `beat_init`, since it reads Redis as it is made)."""
    from service.ops.preflight import refusal

    if role in _started:
        return
    _started.add(role)
    cfg = runtime.settings()
    problem = refusal(cfg, role)
    if problem:
        print(f"lupus {role}: {problem}", file=sys.stderr, flush=True)
        raise SystemExit(2)  # not an Exception: Celery's signal dispatch lets it through, and stops
    if not cfg.REDIS_URL:
        embedded_broker_url()  # its folder, now that this process runs on it
    from service.ops import metrics
    from service.ops.reporting import init_sentry

    init_sentry(cfg, role)
    metrics.multiprocess(cfg, role)  # before the pool's children exist: they inherit it
    if role == "worker" and cfg.METRICS_PORT:
        try:
            metrics.serve(cfg, cfg.METRICS_PORT)
        except OSError as e:  # another worker on this machine serves them already (they are its files too)
            log.warning("metrics.port_busy", port=cfg.METRICS_PORT, error=repr(e))


def _heartbeat(role: str) -> None:
    from service.ops.health import start_heartbeat

    _heartbeats.append(start_heartbeat(runtime.settings(), role))  # deleted at a clean stop


@signals.worker_init.connect
def _worker_starts(**_: Any) -> None:
    _refuse_or_start("worker")


@signals.worker_ready.connect
def _worker_ready(**_: Any) -> None:
    _heartbeat("worker")  # ready: connected to the broker and consuming
    _closes_go_again()
    _leases.start()


@signals.task_received.connect
def _received(request: Any = None, **_: Any) -> None:
    _leases.received(request)  # a close: its lease is renewed while this worker holds it


def _closes_go_again() -> None:
    """A worker that starts may be replacing one killed while it held closes: their leases lapse
    within CLOSE_LEASE_SECONDS anyway (``worker.leases``), and dropping the marks hands them out at
    the next sweep. A close still held by a live worker is then run twice, and the second finds its
    phase closed."""
    try:
        log.info("marks.forgotten", marks=runtime.marks().forget())
    except Exception as e:  # a mark only saves work: the sweep finds the phases again without it
        log.warning("marks.not_forgotten", error=repr(e))


@signals.beat_init.connect
def _beat_starts(**_: Any) -> None:
    _refuse_or_start("beat")
    _heartbeat("beat")


@signals.worker_shutdown.connect
def _stop_heartbeats(**_: Any) -> None:
    _leases.stop()
    while _heartbeats:
        _heartbeats.pop().stop()


@signals.worker_process_init.connect
@signals.worker_init.connect
def _start(**_: Any) -> None:
    runtime.delivery()


@signals.worker_process_shutdown.connect
@signals.worker_shutdown.connect
def _stop(**_: Any) -> None:
    pump.stop()  # the sends in flight land and are written before the senders close
    runtime.shutdown()
