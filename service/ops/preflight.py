"""What a process of a deployment checks before it starts (``lupus web``, the Celery worker and beat;
not the sandbox, nor the apps the tests make): whatever cannot work is refused there, in one line and
exit status 2, rather than started to fail quietly later (a web answering every update 404, a worker
that never sends a channel's texts, a first webhook answered 500). The rules, and why these, are in
docs/decisions/0120-refuse-at-start.md.

In order: the configuration (a channel without a shared broker and a server database, a channel half
set up, a channel without PUBLIC_URL); the database and the broker answer (waiting up to
START_WAIT_SECONDS for them); then no channel that is in use elsewhere is missing here.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, col, func, select

from service.channels import CHANNELS
from service.ops.health import CARRIERS, carried, live_processes
from service.settings import Settings, redis_tls_options
from service.store.db import is_sqlite, make_engine
from service.store.models import Game, Identity, Seat, utcnow
from service.store.status import NOT_FINISHED

NOT_OVER = NOT_FINISHED
WOULD = {"web": "answer its players' messages 404", "worker": "leave its players' texts unsent"}


def refusal(settings: Settings, role: str) -> str | None:
    """Why a ``role`` process (web, worker, beat) must not start with ``settings``, in one line, or None."""
    server = not is_sqlite(settings.DATABASE_URL)  # a SQLite file is one machine's: nothing to reach or share
    why = configuration(settings, role)
    if why is None and server:
        why = waiting(settings.START_WAIT_SECONDS, lambda: database(settings))
    if why is None and settings.REDIS_URL:
        why = waiting(settings.START_WAIT_SECONDS, lambda: broker(settings))
    if why is None and role in CARRIERS and server:
        why = in_use_elsewhere(settings, role)
    return why


def configuration(settings: Settings, role: str) -> str | None:
    """What the settings alone say cannot work (``Settings.deployment_problem``, then, for a process
    that carries texts, each channel set up in half, and a channel with no public address)."""
    problem = settings.deployment_problem()
    if problem or role not in CARRIERS:
        return problem
    return half_set_up(settings) or no_public_url(settings)


def half_set_up(settings: Settings) -> str | None:
    for name, channel in CHANNELS.items():
        given = channel.credentials(settings)
        if given.half:
            return (
                f"{name} is half set up: {_listed(given.given)} set but {_listed(given.missing)} not; it "
                f"needs all of them (or none, to switch {name} off)"
            )
    return None


def no_public_url(settings: Settings) -> str | None:
    on = carried(settings)
    if on and not settings.public_url_given():
        return (
            f"PUBLIC_URL is not set (nor HEROKU_APP_DEFAULT_DOMAIN_NAME, nor FLY_APP_NAME), but {', '.join(on)} "
            f"{'is' if len(on) == 1 else 'are'}: the platforms call the app there, and Twilio signs every call "
            "over it (deploy/README.md, section 3)"
        )
    return None


def _listed(names: tuple[str, ...]) -> str:
    return " and ".join(names) + (" is" if len(names) == 1 else " are")


def waiting(seconds: float, check: Callable[[], str | None]) -> str | None:
    """``check`` again every second until it passes or ``seconds`` have gone: its last word."""
    end = time.monotonic() + seconds
    while True:
        why = check()
        if why is None or time.monotonic() >= end:
            return why
        time.sleep(1.0)


def database(settings: Settings) -> str | None:
    from sqlalchemy.pool import NullPool

    db = make_engine(settings.DATABASE_URL, poolclass=NullPool, connect_args={"connect_timeout": 10})
    try:
        with db.connect() as conn:
            conn.execute(text("select 1"))
    except SQLAlchemyError as e:
        return f"the database does not answer (DATABASE_URL): {reason(getattr(e, 'orig', None) or e)}"
    finally:
        db.dispose()
    return None


def broker(settings: Settings) -> str | None:
    import redis

    url = settings.REDIS_URL or ""
    client = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5, **redis_tls_options(url))
    try:
        client.ping()
    except redis.RedisError as e:
        return f"the broker does not answer (REDIS_URL): {reason(e)}"
    finally:
        client.close()
    return None


def reason(error: BaseException) -> str:
    """The driver's own words, on one line (``connection to server at "127.0.0.1", port 5432 failed:
    FATAL: database "x" does not exist``), not the exception's class."""
    said = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return " ".join(said.removeprefix("connection failed: ").split())


def in_use_elsewhere(settings: Settings, role: str) -> str | None:
    """A channel this process lacks that another web or worker carries, or that has players in games
    not over: this one would fail them (``WOULD``). A database not migrated yet says nothing."""
    missing = [name for name, channel in CHANNELS.items() if not channel.credentials(settings).on]
    if not missing:
        return None
    db = make_engine(settings.DATABASE_URL)
    try:
        with Session(db) as s:
            others = [p for p in live_processes(s, settings, utcnow()) if p.role in CARRIERS]
            for name in missing:
                uses = [f"{p.name} carries it" for p in others if name in (p.channels or ())]
                players = _players(s, name)
                if players:
                    uses.append(f"{players} player(s) on it in games not over")
                if uses:
                    needs = _listed(CHANNELS[name].credentials(settings).missing)
                    return (
                        f"{name} is in use ({'; '.join(uses)}) but {needs} not set here: this {role} "
                        f"would {WOULD[role]}"
                    )
    except SQLAlchemyError:
        return None
    finally:
        db.dispose()
    return None


def _players(s: Session, channel: str) -> int:
    return int(
        s.exec(
            select(func.count(func.distinct(col(Seat.identity_id))))
            .join(Game, col(Game.id) == col(Seat.game_id))
            .join(Identity, col(Identity.id) == col(Seat.identity_id))
            .where(col(Game.status).in_(NOT_OVER), col(Identity.channel) == channel)
        ).one()
    )
