"""Fixtures: a database on SQLite and on PostgreSQL (a throwaway database created for the
session and dropped after), migrated with Alembic; a harness that plays through the
application service with a recording channel and a clock the test moves."""

from __future__ import annotations

import itertools
import random
import shutil
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, text
from sqlmodel import Session, select

import engine
from service.channels.recording import RecordingSender
from service.delivery.dispatch import deliver
from service.delivery.limiter import MemoryLimiter, Rate, Rule
from service.delivery.senders import Sender
from service.game.app import Service
from service.settings import Settings
from service.store.db import make_engine, upgrade
from service.store.models import Game, Outbox
from tests.databases import no_postgres, throwaway_pg

PG_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
TABLES = "outbox, inbound, game_events, seats, games, identities"
_FREE = Rate(1_000_000, 1.0, burst=1_000_000)
UNLIMITED = {
    (channel, kind): [Rule("channel", _FREE), Rule("address", _FREE)]
    for channel in ("test", "sms", "telegram")
    for kind in ("private", "group")
}
"""No rate limit: these tests read what each player was sent, not when (tests/delivery has the limits)."""


class Inboxes(RecordingSender):
    """The delivery's recording sender, read as what each address received, in order."""

    @property
    def sent(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = defaultdict(list)
        for call in self.delivered:
            out[call.address].append(call.text)
        return out


def deliver_all(db: Engine, senders: Mapping[str, Sender], clock: Callable[[], datetime]) -> None:
    """Send everything due through the real delivery (``service.delivery.dispatch``), unlimited."""
    limiter = MemoryLimiter(UNLIMITED)
    while deliver(db, senders, limiter, clock=clock, limit=500).sent:
        pass


def _pg_available() -> bool:
    try:
        eng = make_engine(PG_ADMIN)
        with eng.connect() as c:
            c.execute(text("select 1"))
        eng.dispose()
        return True
    except Exception:
        return False


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("db") / "template.db"
    upgrade(f"sqlite:///{path}")
    return path


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    if not _pg_available():
        no_postgres()
    with throwaway_pg("lupus_svc") as url:
        yield url


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db(request: pytest.FixtureRequest, tmp_path: Path, sqlite_template: Path) -> Iterator[Engine]:
    if request.param == "sqlite":
        path = tmp_path / "lupus.db"
        shutil.copy(sqlite_template, path)
        eng = make_engine(f"sqlite:///{path}")
    else:
        url = request.getfixturevalue("pg_url")
        eng = make_engine(url)
        with eng.begin() as c:
            c.execute(text(f"TRUNCATE {TABLES} RESTART IDENTITY CASCADE"))
    yield eng
    eng.dispose()


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


class Harness:
    """Plays through the service as players would, on the recording channel ``test``."""

    def __init__(self, db: Engine) -> None:
        self.db = db
        self.clock = Clock()
        self.committed: list[int] = []
        # Seeds from a seeded generator: every run deals the same cards, so a failure replays.
        seeds = random.Random(20260302)
        self.svc = Service(
            Settings(DATABASE_URL=str(db.url)),
            db,
            clock=self.clock,
            after_commit=self.committed.extend,
            random_bits=seeds.getrandbits,
        )
        self.channel = Inboxes("test")
        self._ids = itertools.count(1)

    def say(self, who: str, text: str, external_id: str | None = None) -> list[str]:
        return self.svc.handle_inbound("test", who, external_id or f"m{next(self._ids)}", text)

    def deliver(self) -> None:
        deliver_all(self.db, {"test": self.channel}, self.clock)

    def inbox(self, who: str) -> list[str]:
        self.deliver()
        return self.channel.sent[who]

    def clear(self) -> None:
        self.deliver()
        self.channel.calls.clear()

    def advance(self, minutes: int) -> None:
        self.clock.now += timedelta(minutes=minutes)

    def tick(self) -> int:
        """What the worker's beat does: close every phase whose deadline passed."""
        return sum(self.svc.close_phase(g, n) for g, n in self.svc.due_games())

    def finish_phase(self) -> None:
        game = self.game()
        assert game.deadline is not None, "no deadline"
        self.clock.now = max(self.clock.now, game.deadline)
        assert self.tick() == 1

    def game(self, code: str | None = None) -> Game:
        with Session(self.db) as s:
            q = select(Game).order_by(Game.id.desc())  # type: ignore[union-attr]
            if code:
                q = q.where(Game.code == code)
            game = s.exec(q).first()
            assert game is not None
            return game

    def state(self, code: str | None = None) -> engine.GameState:
        g = self.game(code)
        assert g.state is not None
        return engine.from_json(g.state)

    def outbox(self) -> list[Outbox]:
        with Session(self.db) as s:
            return list(s.exec(select(Outbox).order_by(Outbox.id)))  # type: ignore[arg-type]


@pytest.fixture
def h(db: Engine) -> Harness:
    return Harness(db)
