"""What cannot work is refused at start, as the platform starts the Procfile's `web`, `worker` and
`beat`: one line naming what is wrong (the driver's reason, not an exception's class), exit status 2,
nothing left behind. A database or a broker that does not answer; a channel half set up; a channel
without PUBLIC_URL; a channel in use elsewhere (another process carries it, its players are in games)
that this process lacks."""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
import sqlalchemy.exc
from sqlmodel import Session

from service.ops.health import beat
from service.ops.preflight import in_use_elsewhere
from service.settings import Settings
from service.store.db import make_engine
from service.store.models import Game, Identity, Seat, utcnow
from tests.databases import flushed_redis, no_postgres, redis_url, throwaway_pg

from .procfile import procfile
from .test_processes import env

pytestmark = pytest.mark.processes  # starts the real processes: not in the fast lane

TOKEN = "123456:TEST-token_refusals"
TELEGRAM = {"TELEGRAM_BOT_TOKEN": TOKEN, "TELEGRAM_WEBHOOK_SECRET": "refusals-secret"}
NOWHERE = "redis://127.0.0.1:9/0"  # nothing listens on port 9


def start(name: str, tmp: Path, **given: str) -> subprocess.CompletedProcess[str]:
    """The Procfile's line, from a fresh folder, as a platform starts it; it must end by itself."""
    command = procfile()[name].replace("/tmp/celerybeat-schedule", str(tmp / "beat-schedule"))
    return subprocess.run(
        ["bash", "-c", "exec " + command],
        cwd=tmp,
        env=env(START_WAIT_SECONDS="0", **given),
        capture_output=True,
        text=True,
        timeout=180,
    )


def refused(done: subprocess.CompletedProcess[str], name: str) -> str:
    """The one line a refused process printed, after checking it was refused."""
    assert done.returncode == 2, done.stdout + done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith(f"lupus {name}: ")]
    assert len(lines) == 1, done.stderr
    return lines[0]


@pytest.fixture(scope="module")
def pg() -> Iterator[str]:
    try:
        with throwaway_pg("lupus_refusals") as url:
            yield url
    except sqlalchemy.exc.OperationalError:
        no_postgres()


@pytest.fixture(scope="module")
def broker() -> Iterator[str]:
    url = redis_url(14)
    with flushed_redis(url):
        yield url


PUBLIC = {"PUBLIC_URL": "https://lupus.example.org"}


@pytest.mark.parametrize("name", ["web", "worker", "beat"])
@pytest.mark.parametrize(
    "database, says",
    [
        (
            "postgres://postgres@127.0.0.1:5432/lupus_no_such_database",
            'database "lupus_no_such_database" does not exist',
        ),
        ("postgres://postgres@127.0.0.1:9/lupus", "port 9 failed: Connection refused"),
    ],
)
def test_a_database_that_does_not_answer_is_refused_with_its_reason(
    name: str, database: str, says: str, tmp_path: Path
) -> None:
    done = start(name, tmp_path, DATABASE_URL=database, REDIS_URL=NOWHERE, **TELEGRAM, **PUBLIC)
    line = refused(done, name)
    assert line.startswith(f"lupus {name}: the database does not answer (DATABASE_URL): "), line
    assert says in line and "OperationalError" not in line, line
    assert not (tmp_path / "var").exists()


@pytest.mark.parametrize("name", ["web", "worker", "beat"])
def test_a_broker_that_does_not_answer_is_refused_with_its_reason(name: str, pg: str, tmp_path: Path) -> None:
    done = start(name, tmp_path, DATABASE_URL=pg, REDIS_URL=NOWHERE, **TELEGRAM, **PUBLIC)
    line = refused(done, name)
    assert line == (
        f"lupus {name}: the broker does not answer (REDIS_URL): Error 111 connecting to 127.0.0.1:9. "
        "Connection refused."
    ), line


@pytest.mark.parametrize(
    "name, given, says",
    [
        (
            "web",
            {"TELEGRAM_BOT_TOKEN": TOKEN},
            "telegram is half set up: TELEGRAM_BOT_TOKEN is set but TELEGRAM_WEBHOOK_SECRET is not",
        ),
        (
            "worker",
            {"TWILIO_ACCOUNT_SID": "AC" + "0" * 32, "TWILIO_AUTH_TOKEN": "x"},
            "sms is half set up: TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN are set but "
            "TWILIO_FROM_NUMBER or TWILIO_MESSAGING_SERVICE_SID is not",
        ),
    ],
)
def test_a_channel_half_set_up_is_refused(
    name: str, given: dict[str, str], says: str, pg: str, broker: str, tmp_path: Path
) -> None:
    line = refused(start(name, tmp_path, DATABASE_URL=pg, REDIS_URL=broker, **given, **PUBLIC), name)
    assert line.startswith(f"lupus {name}: {says}; it needs all of them"), line


@pytest.mark.parametrize("name", ["web", "worker"])
def test_a_channel_without_public_url_is_refused(name: str, pg: str, broker: str, tmp_path: Path) -> None:
    line = refused(start(name, tmp_path, DATABASE_URL=pg, REDIS_URL=broker, **TELEGRAM), name)
    assert line.startswith(
        f"lupus {name}: PUBLIC_URL is not set (nor HEROKU_APP_DEFAULT_DOMAIN_NAME, nor FLY_APP_NAME), but telegram is: "
    ), line


@contextlib.contextmanager
def telegram_in_use(pg: str, *, web: bool = False, players: int = 0) -> Iterator[None]:
    """A live web that carries Telegram (its heartbeat), or Telegram players in a lobby."""
    db = make_engine(pg)
    try:
        if web:
            now = utcnow()
            beat(db, "web", "web lupus-web-1:7", now, now, ("telegram",))
        with Session(db) as s:
            if players:
                game = Game(code="REFU", status="lobby")
                s.add(game)
                s.flush()
                for n in range(players):
                    who = Identity(channel="telegram", address=str(9100 + n), display_name=f"p{n}")
                    s.add(who)
                    s.flush()
                    s.add(Seat(game_id=game.id or 0, identity_id=who.id, name=f"p{n}"))
            s.commit()
        yield
    finally:
        with Session(db) as s:
            for table in ("seats", "games", "identities", "heartbeats"):
                s.execute(sqlalchemy.text(f"DELETE FROM {table}"))
            s.commit()
        db.dispose()


def test_a_worker_without_the_channel_a_live_web_carries_is_refused(pg: str, broker: str, tmp_path: Path) -> None:
    with telegram_in_use(pg, web=True):
        line = refused(start("worker", tmp_path, DATABASE_URL=pg, REDIS_URL=broker), "worker")
    assert line == (
        "lupus worker: telegram is in use (web lupus-web-1:7 carries it) but TELEGRAM_BOT_TOKEN "
        "and TELEGRAM_WEBHOOK_SECRET are not set here: this worker would leave its players' texts unsent"
    )


def test_a_web_without_the_channel_its_players_are_on_is_refused(pg: str, broker: str, tmp_path: Path) -> None:
    with telegram_in_use(pg, players=3):
        line = refused(start("web", tmp_path, DATABASE_URL=pg, REDIS_URL=broker), "web")
    assert line == (
        "lupus web: telegram is in use (3 player(s) on it in games not over) but TELEGRAM_BOT_TOKEN and "
        "TELEGRAM_WEBHOOK_SECRET are not set here: this web would answer its players' messages 404"
    )


def test_a_web_gone_quiet_or_a_game_over_is_not_in_use(pg: str) -> None:
    """A heartbeat older than HEARTBEAT_STALE_SECONDS is a process gone (killed), and players of
    games over play no more: neither is a reason to refuse a process without their channel."""
    settings = Settings(_env_file=None, DATABASE_URL=pg)  # type: ignore[call-arg]
    db = make_engine(pg)
    with telegram_in_use(pg, players=2):
        assert in_use_elsewhere(settings, "worker") is not None  # the check itself
        try:
            then = utcnow() - timedelta(seconds=settings.HEARTBEAT_STALE_SECONDS + 1)
            beat(db, "web", "web lupus-web-0:1", then, then, ("telegram",))
            with Session(db) as s:
                s.execute(sqlalchemy.text("UPDATE games SET status = 'over'"))
                s.commit()
        finally:
            db.dispose()
        assert in_use_elsewhere(settings, "worker") is None
