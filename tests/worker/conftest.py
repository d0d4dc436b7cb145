"""Fixtures for the worker's tests: the service's databases (SQLite and PostgreSQL, migrated),
a table of players on Telegram addresses, and this package's own Redis database (11)."""

from __future__ import annotations

import itertools
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, col, select

import engine
from service.game.app import Service
from service.game.reminders import install
from service.settings import Settings
from service.store.db import make_engine
from service.store.models import Game, Identity, Outbox
from tests.databases import flushed_redis, redis_url
from tests.service import conftest as service_fixtures

# The service's database fixtures (SQLite from a migrated template, a throwaway PostgreSQL database).
sqlite_template, pg_url, db = service_fixtures.sqlite_template, service_fixtures.pg_url, service_fixtures.db

REDIS_URL = redis_url(11)  # this package's own database, flushed around each test
NAMES = ["ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal"]
HOST = "100"


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


class Table:
    """Eight players and a host on Telegram (chat ids 101..108 and 100), through the service."""

    def __init__(self, db: Engine, clock: Clock | None = None, **settings: object) -> None:
        self.db = db
        self.clock = clock or Clock()
        self.committed: list[int] = []
        cfg = Settings(DATABASE_URL=str(db.url), **settings)  # type: ignore[arg-type]
        self.svc = install(Service(cfg, db, clock=self.clock, after_commit=self.committed.extend))
        self._ids = itertools.count(1)
        self.addr = {n: str(101 + i) for i, n in enumerate(NAMES)}

    def say(self, address: str, text: str) -> list[str]:
        return self.svc.handle_inbound("telegram", address, f"u{next(self._ids)}", text)

    def open(self, extra: str = "", names: list[str] = NAMES) -> str:
        self.say(HOST, f"new {extra}".strip())
        code = self.game().code
        for n in names:
            self.say(self.addr[n], f"join {code} {n}")
        self.say(HOST, "start")
        assert self.game().status == "running"
        return code

    def game(self) -> Game:
        with Session(self.db) as s:
            game = s.exec(select(Game).order_by(col(Game.id).desc())).first()
            assert game is not None
            return game

    def state(self) -> engine.GameState:
        g = self.game()
        assert g.state is not None
        return engine.from_json(g.state)

    def rows(self, status: str | None = None) -> list[Outbox]:
        with Session(self.db) as s:
            q = select(Outbox).order_by(col(Outbox.id))
            return list(s.exec(q.where(Outbox.status == status) if status else q))

    def person(self, address: str) -> Identity:
        with Session(self.db) as s:
            p = s.exec(select(Identity).where(Identity.address == address)).first()
            assert p is not None
            return p

    def person_address(self, identity_id: int) -> str:
        with Session(self.db) as s:
            p = s.get(Identity, identity_id)
            assert p is not None
            return p.address

    def advance(self, **delta: float) -> None:
        self.clock.now += timedelta(**delta)


def act(t: Table) -> None:
    """Everyone does something sensible for the phase (wolves kill, all vote for a wolf)."""
    state = t.state()
    roles = state.roles  # type: ignore[attr-defined]
    alive = [p for p in state.players if p in state.alive]  # type: ignore[attr-defined]
    wolves = [p for p in alive if roles[p].value == "werewolf"]
    humans = [p for p in alive if p not in wolves]
    if state.phase is engine.Phase.NIGHT:
        for wolf in wolves:
            t.say(t.addr[wolf], f"kill {humans[-1]}")
    elif state.phase is engine.Phase.NOMINATIONS:
        for p in alive:
            t.say(t.addr[p], f"vote {wolves[0]}")
    elif state.phase is engine.Phase.BALLOT:
        suspects = list(state.suspects)  # type: ignore[attr-defined]
        target = wolves[0] if wolves[0] in suspects else suspects[0]
        for p in alive:
            if p not in suspects:
                t.say(t.addr[p], f"vote {target}")


def everyone_but(t: Table, idle: str) -> None:
    """Everyone but ``idle`` acts; nobody chooses him, so he stays in the game, idle."""
    state = t.state()
    roles = state.roles  # type: ignore[attr-defined]
    alive = [p for p in state.players if p in state.alive and p != idle]  # type: ignore[attr-defined]
    wolves = [p for p in alive if roles[p].value == "werewolf"]
    humans = [p for p in alive if p not in wolves] or [idle]
    if state.phase is engine.Phase.NIGHT:
        for wolf in wolves:
            t.say(t.addr[wolf], f"kill {humans[0]}")
    elif state.phase is engine.Phase.NOMINATIONS:
        for p in alive:
            t.say(t.addr[p], f"vote {humans[-1] if p != humans[-1] else humans[0]}")
    elif state.phase is engine.Phase.BALLOT:
        suspects = list(state.suspects)  # type: ignore[attr-defined]
        for p in alive:
            if p not in suspects:
                t.say(t.addr[p], f"vote {suspects[0]}")


@pytest.fixture
def table(db: Engine) -> Table:
    return Table(db)


@pytest.fixture
def lite(tmp_path: Path, sqlite_template: Path) -> Iterator[Table]:
    """A table on SQLite only, for what does not depend on the database."""
    path = tmp_path / "lupus.db"
    shutil.copy(sqlite_template, path)
    eng = make_engine(f"sqlite:///{path}")
    yield Table(eng)
    eng.dispose()


@pytest.fixture
def redis_db():
    with flushed_redis(REDIS_URL) as client:
        yield client
