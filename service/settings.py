"""The one settings object. Nothing else in the project reads ``os.environ``.

Values come from the environment (or a ``.env`` file), with defaults that run locally on
nothing but a SQLite file under ``./var``.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from service.delivery.limiter import TELEGRAM_PER_SECOND

DEFAULT_DB = Path("var") / "lupus.db"


def redis_tls_options(url: str | None) -> dict[str, object]:
    """Options for ``redis.Redis.from_url``: Heroku's ``rediss://`` Redis presents a self-signed
    certificate, which a default client refuses; the connection stays encrypted."""
    return {"ssl_cert_reqs": "none"} if (url or "").startswith("rediss://") else {}


def normalize_database_url(url: str) -> str:
    """Heroku and Fly hand out ``postgres://`` URLs, which SQLAlchemy refuses; we use psycopg 3."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    # -- infrastructure ----------------------------------------------------------------------------
    DATABASE_URL: str = f"sqlite:///{DEFAULT_DB}"
    REDIS_URL: str | None = None
    PUBLIC_URL: str = "http://localhost:8000"
    PORT: int = 8000

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

    # -- the worker (worker/, service/delivery/dispatch.py, service/reminders.py) -----------------
    SWEEP_SECONDS: float = 5.0
    """How often beat sweeps due deadlines (a phase closes at most this long after its deadline)."""
    CLOSE_RETRY_SECONDS: float = 60.0
    """How long a close the sweep enqueued is trusted to be on its way; after that (a worker killed
    while closing, a lost task) the next sweep enqueues it again."""
    OUTBOX_SWEEP_SECONDS: float = 15.0
    """The safety net for messages whose after-commit dispatch was lost (normal dispatch is instant)."""
    REMINDER_SWEEP_SECONDS: float = 60.0
    DISPATCH_LEASE_SECONDS: int = 60
    """How long a worker holds an outbox row it reserved or is sending (wall clock); after that it
    is taken for crashed. Longer than one send can take (a sender gives up after 30 s), and short
    enough that a crash delays a chat's texts by a minute at most."""
    TELEGRAM_PER_SECOND: float = TELEGRAM_PER_SECOND  # the limiter's default says why
    SMS_SEGMENTS_PER_SECOND: float = 1.0
    """Per sender number: a long code sends about one segment a second."""
    REMINDER_MINUTES: int = 60
    """How long before a deadline players who still have to act are reminded (per game: option)."""
    QUIET_HOURS: str = "22:00-08:00"
    """No reminder in these hours of the game's time zone ("" for none)."""
    INACTIVE_PHASES: int = 2
    """Phases missed in a row before a player is warned; one more and the host is asked to replace him."""

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
