"""Liveness an operator can see: heartbeats of the worker and beat, and what /healthz reports.

The worker and beat run on other machines than the web process (Heroku dynos, Fly machines), so
they leave their heartbeat where every process reads it: a row per process in the database (the
same on SQLite and PostgreSQL). A beat that died stops the deadline sweeps; a worker that died stops
the closes and the sends; either way phases stop closing without an error anywhere, which is what
the heartbeats and the overdue count make visible.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

import structlog
from sqlalchemy import Engine, delete, func
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col, select

from service.settings import Settings
from service.store.db import transaction
from service.store.models import Game, Heartbeat, Outbox, utcnow

log = structlog.get_logger(__name__)
ROLES = ("worker", "beat")
FORGET_AFTER = timedelta(days=1)
"""Rows of processes gone this long are deleted (every restart is a new process, a new row)."""


def process_name(role: str) -> str:
    return f"{role} {socket.gethostname()}:{os.getpid()}"


def beat(db: Engine, role: str, name: str, started: datetime, now: datetime) -> None:
    """Write one heartbeat (an upsert of the process's row), and forget processes long gone."""
    table = cast("Any", Heartbeat).__table__
    with transaction(db) as s:
        ins = sqlite_insert(table) if s.get_bind().dialect.name == "sqlite" else pg_insert(table)
        s.execute(ins.values(name=name, role=role, started_at=started, seen_at=now)
                  .on_conflict_do_update(index_elements=["name"], set_={"seen_at": now}))
        s.execute(delete(table).where(table.c.seen_at < now - FORGET_AFTER))


class Heartbeats:
    """A daemon thread writing this process's heartbeat every ``seconds``; a database that does not
    answer (or is not migrated yet) is logged and tried again next time, never fatal."""

    def __init__(self, db: Engine, role: str, seconds: float, clock: Callable[[], datetime] = utcnow) -> None:
        self.db, self.role, self.seconds, self.clock = db, role, seconds, clock
        self.name = process_name(role)
        self.started = clock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"lupus-heartbeat-{role}", daemon=True)
        self._failing = False

    def start(self) -> Heartbeats:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(5)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                beat(self.db, self.role, self.name, self.started, self.clock())
                if self._failing:
                    log.info("heartbeat.resumed", role=self.role)
                self._failing = False
            except Exception as e:
                if not self._failing:  # once, not every few seconds while the database is away
                    log.warning("heartbeat.failed", role=self.role, error=repr(e))
                self._failing = True
            self._stop.wait(self.seconds)


@dataclass(frozen=True)
class Liveness:
    """What /healthz, ``lupus doctor`` and /metrics say about the deployment's moving parts."""

    now: datetime
    last_seen: dict[str, datetime | None]
    alive: dict[str, int]  # processes of each role seen within the staleness threshold
    stale_after: float
    overdue: int
    overdue_after: float
    oldest_unsent: float | None  # seconds since the oldest pending or sending row was written
    failed_last_hour: int

    def silent(self, role: str) -> bool:
        return self.alive.get(role, 0) == 0

    @property
    def ok(self) -> bool:
        return not any(self.silent(r) for r in ROLES) and self.overdue == 0

    def problems(self) -> list[str]:
        """What is wrong, in words an operator acts on."""
        out = []
        for role in ROLES:
            if self.silent(role):
                seen = self.last_seen.get(role)
                when = "never seen" if seen is None else f"last seen {self.age(role):.0f} s ago"
                out.append(f"{role} silent ({when}): is a `{role}` process running? (heroku ps, fly status)")
        if self.overdue:
            out.append(f"{self.overdue} phase(s) overdue by more than {self.overdue_after:.0f} s")
        return out

    def age(self, role: str) -> float | None:
        seen = self.last_seen.get(role)
        return None if seen is None else max(0.0, (self.now - _aware(seen)).total_seconds())

    def report(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for role in ROLES:
            seen, age = self.last_seen.get(role), self.age(role)
            out[role] = {"status": "silent" if self.silent(role) else "ok",
                         "last_seen": None if seen is None else _aware(seen).isoformat(),
                         "seconds_ago": None if age is None else round(age, 1), "processes": self.alive.get(role, 0)}
        out["phases_overdue"] = self.overdue
        out["oldest_unsent_seconds"] = None if self.oldest_unsent is None else round(self.oldest_unsent, 1)
        out["failed_sends_last_hour"] = self.failed_last_hour
        return out


def _aware(when: datetime) -> datetime:
    return when if when.tzinfo is not None else when.replace(tzinfo=utcnow().tzinfo)


def overdue_after(settings: Settings) -> float:
    """A close the sweep enqueued and lost is enqueued again after CLOSE_RETRY_SECONDS; a phase still
    open OVERDUE_SWEEPS sweeps after that is not merely late."""
    return settings.CLOSE_RETRY_SECONDS + settings.OVERDUE_SWEEPS * settings.SWEEP_SECONDS


def liveness(db: Engine, settings: Settings, now: datetime | None = None) -> Liveness:
    """Read it all in one short session (a few indexed queries)."""
    now = now or utcnow()
    stale = settings.HEARTBEAT_STALE_SECONDS
    late = overdue_after(settings)
    with Session(db) as s:
        rows = s.exec(select(Heartbeat.role, func.max(Heartbeat.seen_at)).group_by(col(Heartbeat.role))).all()
        alive = dict(s.exec(select(Heartbeat.role, func.count()).where(
            col(Heartbeat.seen_at) >= now - timedelta(seconds=stale)).group_by(col(Heartbeat.role))).all())
        overdue = s.exec(select(func.count()).select_from(Game).where(
            col(Game.status) == "running", col(Game.paused).is_(False), col(Game.deadline).is_not(None),
            col(Game.deadline) < now - timedelta(seconds=late))).one()
        oldest = s.exec(select(func.min(Outbox.created_at)).where(
            col(Outbox.status).in_(("pending", "sending")))).one()
        # A failed row has no time of failure; its not_before is when it was last due or claimed.
        failed = s.exec(select(func.count()).select_from(Outbox).where(
            col(Outbox.status) == "failed", col(Outbox.not_before) >= now - timedelta(hours=1))).one()
    seen: dict[str, datetime | None] = {role: None for role in ROLES}
    seen.update({role: when for role, when in rows})
    return Liveness(now=now, last_seen=seen, alive={r: int(n) for r, n in alive.items()}, stale_after=stale,
                    overdue=int(overdue), overdue_after=late,
                    oldest_unsent=None if oldest is None else max(0.0, (now - _aware(oldest)).total_seconds()),
                    failed_last_hour=int(failed))
