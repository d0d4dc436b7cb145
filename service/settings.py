"""The one settings object. Nothing else in the project reads ``os.environ``.

Values come from the environment (or a ``.env`` file), with defaults that run locally on
nothing but a SQLite file under ``./var``.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from pydantic import PrivateAttr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_DB = Path("var") / "lupus.db"
TELEGRAM_PER_SECOND = 28.0
"""Telegram's ~30 a second per bot, less a margin: sends booked back to back by several processes
arrive bunched when a machine stalls, and at 29 the stand-in's one-second window saw 31 (5 answers
of 429 in 3,000 at 29.0 a second, `bench/fanout`, 30 Nov 2026). Here, and not in the Telegram
channel's rules that use it, so that the settings depend on nothing else of the service."""


def redis_tls_options(url: str | None) -> dict[str, object]:
    """Options for ``redis.Redis.from_url``: Heroku's ``rediss://`` Redis presents a self-signed
    certificate, which a default client refuses; the connection stays encrypted."""
    return {"ssl_cert_reqs": "none"} if (url or "").startswith("rediss://") else {}


def normalize_database_url(url: str) -> str:
    """Heroku and Fly hand out ``postgres://`` URLs, which SQLAlchemy refuses; we use psycopg 3."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    # -- infrastructure ----------------------------------------------------------------------------
    DATABASE_URL: str = f"sqlite:///{DEFAULT_DB}"
    REDIS_URL: str | None = None
    PUBLIC_URL: str = ""
    """The public https address Telegram and Twilio call. Unset, it is the platform's own address for
    the app: Heroku's (``HEROKU_APP_DEFAULT_DOMAIN_NAME``, with dyno metadata on) or Fly's
    (``https://<FLY_APP_NAME>.fly.dev``); elsewhere http://localhost:8000."""
    PORT: int = 8000
    HEROKU_APP_DEFAULT_DOMAIN_NAME: str | None = None
    """Set by Heroku in every dyno once ``heroku labs:enable runtime-dyno-metadata`` is on."""
    FLY_APP_NAME: str | None = None
    """Set by Fly in every machine."""

    # -- Telegram ----------------------------------------------------------------------------------
    TELEGRAM_BOT_TOKEN: str | None = None
    TELEGRAM_WEBHOOK_SECRET: str | None = None
    TELEGRAM_API_URL: str = "https://api.telegram.org/bot"

    # -- Twilio (SMS) ------------------------------------------------------------------------------
    TWILIO_ACCOUNT_SID: str | None = None
    TWILIO_AUTH_TOKEN: str | None = None
    TWILIO_FROM_NUMBER: str | None = None
    TWILIO_MESSAGING_SERVICE_SID: str | None = None
    TWILIO_API_URL: str = "https://api.twilio.com"

    # -- game defaults (a host may change them per game) -------------------------------------------
    DEFAULT_LANGUAGE: str = "en"
    DEFAULT_TIMEZONE: str = "Europe/Rome"
    # About a week for a game of eight: a night and a day take a day and a half.
    NIGHT_MINUTES: int = 12 * 60
    NOMINATIONS_MINUTES: int = 20 * 60
    BALLOT_MINUTES: int = 4 * 60
    OUTBOX_MAX_ATTEMPTS: int = 8

    # -- the worker (worker/, service/delivery/dispatch.py, service/game/reminders.py) -----------------
    SWEEP_SECONDS: float = 5.0
    """How often beat sweeps due deadlines (a phase closes at most this long after its deadline)."""
    CLOSE_RETRY_SECONDS: float = 60.0
    """How long a close the sweep enqueued is trusted to wait in the queue; after that (a lost task)
    the next sweep enqueues it again. Once a worker holds it, the lease below says instead."""
    CLOSE_LEASE_SECONDS: float = 4.0
    """A close a worker holds (waiting for its deadline, or running) is trusted to it while the
    worker renews its lease, four times a lease; a worker killed holding it stops renewing, and the
    next sweep after the lease lapses hands the close to another (``worker.leases``)."""
    STANDBY_BEATS: bool = True
    """With Redis, beat schedules only while it holds a lock in Redis (celery-redbeat), so a second
    may run and stand by to take over (docs/decisions/0250); 0 for Celery's own scheduler."""
    BEAT_LOCK_SECONDS: int = 5
    """With Redis, several beats may run and the one holding a lock of this life schedules, renewing
    it every second; a standby takes over at most this long (and a second) after the leader died."""
    OUTBOX_SWEEP_SECONDS: float = 3.0
    """The safety net for messages whose after-commit dispatch was lost (normal dispatch is instant),
    and what sends again, within seconds, the texts of a worker that died holding them."""
    REMINDER_SWEEP_SECONDS: float = 60.0
    DISPATCH_LEASE_SECONDS: int = 4
    """How long a worker holds an outbox row it reserved or is sending (wall clock) without renewing
    it; after that it is taken for crashed. A live worker's pass renews what it holds every third of
    it, however long a send takes, so a crash holds a chat's texts back only this long and a sweep's
    interval: 7 s at most (docs/decisions/0260)."""
    TELEGRAM_PER_SECOND: float = TELEGRAM_PER_SECOND  # the module's constant says why
    SMS_SEGMENTS_PER_SECOND: float = 1.0
    """Per sender number: a long code sends about one segment a second."""
    REMINDER_MINUTES: int = 60
    """How long before a deadline players who still have to act are reminded (per game: option)."""
    QUIET_HOURS: str = "22:00-08:00"
    """No reminder in these hours of the game's time zone ("" for none)."""
    INACTIVE_PHASES: int = 2
    """Phases missed in a row before a player is warned; one more and the host is asked to replace him."""

    # -- operating: health, metrics, errors, connections (service/ops/health.py, service/ops/metrics.py) ----
    HEARTBEAT_SECONDS: float = 15.0
    """How often the worker and beat write their heartbeat in the database."""
    HEARTBEAT_STALE_SECONDS: float = 90.0
    """A worker or beat whose heartbeat is older than this is silent: /healthz answers 503. Longer
    than a restart takes (a deploy stops and starts them), short enough to page within minutes."""
    OVERDUE_SECONDS: float = 30.0
    """A phase still open this long after its deadline is overdue: /healthz answers 503. A close
    comes within a sweep or two (p99 3.7 s with 400 due in 30 s, bench/README.md), so this is
    trouble, and a monitor polling every minute sees a close a minute late."""
    TEXTS_LATE_SECONDS: float = 120.0
    """A channel whose oldest unsent text is older than this is named in /healthz (503). A Telegram
    text goes within seconds; an SMS number sends a segment a second, so a deployment whose dawns
    queue more than ~100 segments on one number raises it (or sends through a Messaging Service)."""
    START_WAIT_SECONDS: float = 20.0
    """How long a process starting waits for its database and its broker to answer before it
    refuses to start (one line, exit status 2): a deploy may start it while they restart."""
    DB_POOL_RECYCLE_SECONDS: int = 300
    """A pooled database connection is replaced after this long: under what a proxy or PgBouncer
    on the way closes (Fly's proxy drains connections within 10 minutes), so none is found dead."""
    SENTRY_DSN: str | None = None
    """Errors of every process go to Sentry when set; nothing changes without it."""
    SENTRY_ENVIRONMENT: str = "production"
    SENTRY_TRACES_SAMPLE_RATE: float = 0.0
    METRICS_DIR: str = ""
    """Where the processes of one machine leave their Prometheus counters (one file each), so that
    one /metrics sums them all; empty: the platform's temporary folder (a new machine starts empty)."""
    PROMETHEUS_MULTIPROC_DIR: str = ""
    """Not to be set by hand: prometheus-client's own variable, which ``lupus web`` and the worker
    set (``service.ops.metrics.multiprocess``) for the processes they start, so that those count in files."""
    METRICS_PORT: int = 0
    """A worker serves its own /metrics on this port (0: not at all), for a scraper that reaches
    worker machines (Fly's [metrics]); the web process serves /metrics on its own port."""
    METRICS_TOKEN: str | None = None
    """When set, /metrics asks for ``Authorization: Bearer <token>`` (a public Heroku app)."""
    WEB_CONCURRENCY: int = 1
    """Web processes on one machine or dyno (uvicorn's --workers; Heroku's buildpack sets it)."""
    WORKER_CONCURRENCY: int = 2
    """Worker pool processes on one machine or dyno (Celery's worker_concurrency, set by ``worker.app``)."""
    WEB_DB_CONNECTIONS: int = 24
    """Database connections one web machine or dyno may hold, shared by its WEB_CONCURRENCY
    processes: see the runbook's connection budget before raising WEB_CONCURRENCY."""
    WORKER_DB_CONNECTIONS: int = 10
    """Database connections one worker machine or dyno may hold, shared by its processes."""

    _public_url_given: bool = PrivateAttr(default=False)

    @model_validator(mode="after")
    def _public_url(self) -> Settings:
        self._public_url_given = bool(
            self.PUBLIC_URL.strip() or self.HEROKU_APP_DEFAULT_DOMAIN_NAME or self.FLY_APP_NAME
        )
        if not self.PUBLIC_URL.strip():
            if self.HEROKU_APP_DEFAULT_DOMAIN_NAME:
                self.PUBLIC_URL = f"https://{self.HEROKU_APP_DEFAULT_DOMAIN_NAME}"
            elif self.FLY_APP_NAME:
                self.PUBLIC_URL = f"https://{self.FLY_APP_NAME}.fly.dev"
            else:
                self.PUBLIC_URL = "http://localhost:8000"
        self.PUBLIC_URL = self.PUBLIC_URL.strip().rstrip("/")
        return self

    def public_url_given(self) -> bool:
        """PUBLIC_URL was set, or found from the platform's variables (not the local default)."""
        return self._public_url_given

    def channels_configured(self) -> list[str]:
        """The channel credentials given: any of them makes this a deployment, not a sandbox."""
        return [n for n in ("TELEGRAM_BOT_TOKEN", "TWILIO_ACCOUNT_SID", "TWILIO_AUTH_TOKEN") if getattr(self, n)]

    def deployment_problem(self) -> str | None:
        """Why a deployment cannot work as configured, in one line, or None. Without REDIS_URL every
        process falls back to its own embedded broker, so beat's sweeps never reach the worker and
        phases never close; a SQLite file is each machine's own. The sandbox and the tests run web,
        worker and beat in one process, where both are fine: they configure no real channel, or do
        not ask."""
        given = self.channels_configured()
        if not given:
            return None
        missing = ([] if self.REDIS_URL else ["REDIS_URL is not set"]) + (
            ["DATABASE_URL is not set (a SQLite file)"] if self.DATABASE_URL.startswith("sqlite") else []
        )
        if not missing:
            return None
        return (
            f"{' and '.join(missing)}, but {given[0]} is: a deployment needs a shared broker (REDIS_URL: "
            "Redis) and a server database (DATABASE_URL: PostgreSQL), or each process keeps its own and "
            "phases never close (see deploy/README.md)"
        )

    def db_pool(self, role: str) -> dict[str, int]:
        """SQLAlchemy pool options for one process of ``role`` (web or worker): the machine's budget
        (WEB_DB_CONNECTIONS, WORKER_DB_CONNECTIONS) shared by its processes, two thirds kept open
        and a third opened only when needed, each replaced after DB_POOL_RECYCLE_SECONDS."""
        budget, processes = (
            (self.WEB_DB_CONNECTIONS, self.WEB_CONCURRENCY)
            if role == "web"
            else (self.WORKER_DB_CONNECTIONS, self.WORKER_CONCURRENCY)
        )
        each = max(2, budget // max(1, processes))
        kept = max(1, each * 2 // 3)
        return {"pool_size": kept, "max_overflow": each - kept, "pool_recycle": self.DB_POOL_RECYCLE_SECONDS}

    @field_validator("DATABASE_URL")
    @classmethod
    def _db_url(cls, v: str) -> str:
        return normalize_database_url(v.strip())

    @field_validator("DEFAULT_LANGUAGE")
    @classmethod
    def _lang(cls, v: str) -> str:
        v = v.strip().lower()
        if v not in ("en", "it", "es"):
            raise ValueError("DEFAULT_LANGUAGE must be en, it or es")
        return v


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()


def hand_down(name: str, value: str) -> None:
    """Set ``name`` for the processes this one starts, where a library reads it from the environment
    as it loads (prometheus_client's ``PROMETHEUS_MULTIPROC_DIR``, in uvicorn's workers and a Celery
    pool's children): the one write to the environment, beside its one read here."""
    os.environ[name] = value
