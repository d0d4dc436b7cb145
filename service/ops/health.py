"""Liveness an operator can see: heartbeats of the web, worker and beat processes, and what /healthz
reports.

The worker and beat run on other machines than the web process (Heroku dynos, Fly machines), so
every process leaves its heartbeat where every process reads it: a row per process in the database
(the same on SQLite and PostgreSQL), saying which channels it carries. A beat that died stops the
deadline sweeps; a worker that died stops the closes and the sends; a worker without a channel's
credentials never sends that channel's texts; each way games stall without an error anywhere, which
is what the heartbeats, the overdue count and the texts waiting make visible. A process that stops
cleanly deletes its row, so that only live processes are counted (a deploy restarts every one).
"""

from __future__ import annotations

import atexit
import os
import socket
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

import structlog
from sqlalchemy import Engine, delete, func
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col, select

from service.channels import CHANNELS
from service.settings import Settings
from service.store.db import transaction
from service.store.models import Game, Heartbeat, Outbox, utcnow
from service.store.status import GameStatus, OutboxStatus

log = structlog.get_logger(__name__)
ROLES = ("worker", "beat")
"""The processes a deployment cannot do without (the web serving /healthz is one already)."""
CARRIERS = ("web", "worker")
"""The processes that carry a channel's texts: the web takes them in, the worker sends them out."""
FORGET_AFTER = timedelta(days=1)
"""Rows of processes gone without a word (killed) this long are deleted."""
UNSENT = (OutboxStatus.PENDING, OutboxStatus.SENDING)
NO_HEARTBEAT = "no heartbeat: stopped, or never started"
"""A role without a row: each of its processes stopped cleanly (deleting it), or none ever ran."""


def process_name(role: str) -> str:
    return f"{role} {host_and_pid()}"


BEAT_LEADER_KEY = "lupus:beat:leader"
"""In Redis, the host and pid of the standby beat that schedules, written at each of its ticks to
live as long as its lock (whose own value is a random token): what `lupus doctor` names."""


def host_and_pid() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def carried(settings: Settings) -> tuple[str, ...]:
    """The channels whose credentials ``settings`` give whole, by name."""
    return tuple(name for name, channel in CHANNELS.items() if channel.credentials(settings).on)


def beat(db: Engine, role: str, name: str, started: datetime, now: datetime, channels: Sequence[str] = ()) -> None:
    """Write one heartbeat (an upsert of the process's row), and forget processes long gone."""
    table = cast("Any", Heartbeat).__table__
    said = ",".join(channels)
    with transaction(db) as s:
        ins = sqlite_insert(table) if s.get_bind().dialect.name == "sqlite" else pg_insert(table)
        s.execute(
            ins.values(name=name, role=role, started_at=started, seen_at=now, channels=said).on_conflict_do_update(
                index_elements=["name"], set_={"seen_at": now, "channels": said}
            )
        )
        s.execute(delete(table).where(table.c.seen_at < now - FORGET_AFTER))


def forget(db: Engine, name: str) -> None:
    """Delete a process's row: it stopped, and is no longer to be counted."""
    table = cast("Any", Heartbeat).__table__
    with transaction(db) as s:
        s.execute(delete(table).where(table.c.name == name))


class Heartbeats:
    """A daemon thread writing this process's heartbeat every ``seconds``; a database that does not
    answer (or is not migrated yet) is logged and tried again next time, never fatal. ``stop``
    deletes the row, in the process that wrote it only (a forked child inherits the object)."""

    def __init__(
        self,
        db: Engine,
        role: str,
        seconds: float,
        clock: Callable[[], datetime] = utcnow,
        channels: Sequence[str] = (),
    ) -> None:
        self.db, self.role, self.seconds, self.clock, self.channels = db, role, seconds, clock, tuple(channels)
        self.name = process_name(role)
        self.pid = os.getpid()
        self.started = clock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"lupus-heartbeat-{role}", daemon=True)
        self._failing = False

    def start(self) -> Heartbeats:
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._stop.is_set() or os.getpid() != self.pid:
            return
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(5)
        try:
            forget(self.db, self.name)
        except Exception as e:  # the row goes stale instead, and is counted out after HEARTBEAT_STALE_SECONDS
            log.warning("heartbeat.not_forgotten", role=self.role, error=repr(e))

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                beat(self.db, self.role, self.name, self.started, self.clock(), self.channels)
                if self._failing:
                    log.info("heartbeat.resumed", role=self.role)
                self._failing = False
            except Exception as e:
                if not self._failing:  # once, not every few seconds while the database is away
                    log.warning("heartbeat.failed", role=self.role, error=repr(e))
                self._failing = True
            self._stop.wait(self.seconds)


def start_heartbeat(settings: Settings, role: str) -> Heartbeats:
    """This process's heartbeat, from now until it exits cleanly (its row then deleted), on an engine
    of its own without a pool: a connection for a moment every few seconds, none held."""
    from sqlalchemy.pool import NullPool

    from service.store.db import is_sqlite, make_engine

    # A database that does not answer holds up a beat (or a clean stop's delete) 5 s, not for ever.
    wait: dict[str, Any] = {} if is_sqlite(settings.DATABASE_URL) else {"connect_args": {"connect_timeout": 5}}
    db = make_engine(settings.DATABASE_URL, poolclass=NullPool, **wait)
    heartbeats = Heartbeats(db, role, settings.HEARTBEAT_SECONDS, channels=carried(settings)).start()
    atexit.register(heartbeats.stop)
    return heartbeats


@dataclass(frozen=True)
class Process:
    """A live process, as its heartbeat says: ``channels`` None for a row that does not say."""

    name: str
    role: str
    channels: tuple[str, ...] | None


@dataclass(frozen=True)
class Liveness:
    """What /healthz, ``lupus doctor`` and /metrics say about the deployment's moving parts."""

    now: datetime
    last_seen: dict[str, datetime | None]
    processes: tuple[Process, ...]  # those seen within the staleness threshold
    stale_after: float
    overdue: int
    overdue_after: float
    oldest_unsent: float | None  # seconds since the oldest pending or sending row was written
    failed_last_hour: int
    waiting: dict[str, float]  # each channel's oldest unsent text, in seconds
    late_after: float

    @property
    def alive(self) -> dict[str, int]:
        """Live processes of each role."""
        out: dict[str, int] = {}
        for p in self.processes:
            out[p.role] = out.get(p.role, 0) + 1
        return out

    def silent(self, role: str) -> bool:
        return self.alive.get(role, 0) == 0

    @property
    def ok(self) -> bool:
        return not any(self.silent(r) for r in ROLES) and self.overdue == 0 and not self.channel_problems()

    def problems(self) -> list[str]:
        """What is wrong, in words an operator acts on."""
        out = []
        for role in ROLES:
            if self.silent(role):
                seen = self.last_seen.get(role)
                when = NO_HEARTBEAT if seen is None else f"last seen {self.age(role):.0f} s ago"
                out.append(f"{role} silent ({when}): is a `{role}` process running? (heroku ps, fly status)")
        if self.overdue:
            out.append(f"{self.overdue} phase(s) overdue by more than {self.overdue_after:.0f} s")
        return out + self.channel_problems()

    def channel_problems(self) -> list[str]:
        """A channel one kind of process carries and another does not, and a channel whose texts wait."""
        return self._uneven() + self._late()

    def _uneven(self) -> list[str]:
        known = [p for p in self.processes if p.role in CARRIERS and p.channels is not None]
        out = []
        for channel in sorted({c for p in known for c in p.channels or ()}):
            lacking = [p for p in known if channel not in (p.channels or ())]
            if not lacking:
                continue
            having = " and ".join(sorted({p.role for p in known if channel in (p.channels or ())}))
            roles = sorted({p.role for p in lacking})
            why = "; ".join(CONSEQUENCE[r] for r in roles)
            out.append(
                f"{channel} is set up on the {having} but not on {_named(lacking)}: {why}. Set its "
                "credentials on every web and worker (deploy/README.md, Configuration)"
            )
        return out

    def _late(self) -> list[str]:
        out = []
        for channel, age in sorted(self.waiting.items()):
            if age <= self.late_after:
                continue
            workers = [p for p in self.processes if p.role == "worker" and p.channels is not None]
            hint = (
                "no live worker carries it: set its credentials on the worker"
                if workers and not any(channel in (p.channels or ()) for p in workers)
                else "is its platform refusing them? (lupus outbox, the worker's log)"
            )
            out.append(
                f"{channel} texts wait: the oldest unsent is {age:.0f} s old (more than "
                f"TEXTS_LATE_SECONDS, {self.late_after:.0f}): {hint}"
            )
        return out

    def age(self, role: str) -> float | None:
        seen = self.last_seen.get(role)
        return None if seen is None else max(0.0, (self.now - _aware(seen)).total_seconds())

    def report(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for role in (*ROLES, "web"):
            seen, age = self.last_seen.get(role), self.age(role)
            out[role] = {
                "status": "silent" if self.silent(role) else "ok",
                "last_seen": None if seen is None else _aware(seen).isoformat(),
                "seconds_ago": None if age is None else round(age, 1),
                "processes": self.alive.get(role, 0),
                "carry": sorted({c for p in self.processes if p.role == role for c in p.channels or ()}),
            }
        out["phases_overdue"] = self.overdue
        out["oldest_unsent_seconds"] = None if self.oldest_unsent is None else round(self.oldest_unsent, 1)
        out["texts_waiting_seconds"] = {c: round(age, 1) for c, age in sorted(self.waiting.items())}
        out["failed_sends_last_hour"] = self.failed_last_hour
        return out


CONSEQUENCE = {
    "worker": "a worker without it leaves its texts unsent",
    "web": "a web without it answers its players' messages 404",
}


def _named(processes: Sequence[Process]) -> str:
    names = ", ".join(p.name for p in processes)
    return f"{len(processes)} process{'es' if len(processes) > 1 else ''} ({names})"


def _aware(when: datetime) -> datetime:
    return when if when.tzinfo is not None else when.replace(tzinfo=utcnow().tzinfo)


def overdue_after(settings: Settings) -> float:
    return settings.OVERDUE_SECONDS


def live_processes(s: Session, settings: Settings, now: datetime) -> tuple[Process, ...]:
    """The processes whose heartbeat is recent, oldest first."""
    rows = s.exec(
        select(Heartbeat.name, Heartbeat.role, Heartbeat.channels)
        .where(col(Heartbeat.seen_at) >= now - timedelta(seconds=settings.HEARTBEAT_STALE_SECONDS))
        .order_by(col(Heartbeat.started_at))
    ).all()
    return tuple(
        Process(name, role, None if said is None else tuple(c for c in said.split(",") if c))
        for name, role, said in rows
    )


def liveness(db: Engine, settings: Settings, now: datetime | None = None) -> Liveness:
    """Read it all in one short session (a few indexed queries)."""
    now = now or utcnow()
    late = overdue_after(settings)
    with Session(db) as s:
        rows = s.exec(select(Heartbeat.role, func.max(Heartbeat.seen_at)).group_by(col(Heartbeat.role))).all()
        processes = live_processes(s, settings, now)
        overdue = s.exec(
            select(func.count())
            .select_from(Game)
            .where(
                col(Game.status) == GameStatus.RUNNING,
                col(Game.paused).is_(False),
                col(Game.deadline).is_not(None),
                col(Game.deadline) < now - timedelta(seconds=late),
            )
        ).one()
        waiting = dict(
            s.exec(
                select(Outbox.channel, func.min(Outbox.created_at))
                .where(col(Outbox.status).in_(UNSENT))
                .group_by(col(Outbox.channel))
            ).all()
        )
        # A failed row has no time of failure; its not_before is when it was last due or claimed.
        failed = s.exec(
            select(func.count())
            .select_from(Outbox)
            .where(col(Outbox.status) == OutboxStatus.FAILED, col(Outbox.not_before) >= now - timedelta(hours=1))
        ).one()
    seen: dict[str, datetime | None] = {role: None for role in (*ROLES, "web")}
    seen.update({role: when for role, when in rows})
    ages = {channel: max(0.0, (now - _aware(oldest)).total_seconds()) for channel, oldest in waiting.items()}
    return Liveness(
        now=now,
        last_seen=seen,
        processes=processes,
        stale_after=settings.HEARTBEAT_STALE_SECONDS,
        overdue=int(overdue),
        overdue_after=late,
        oldest_unsent=max(ages.values(), default=None),
        failed_last_hour=int(failed),
        waiting=ages,
        late_after=settings.TEXTS_LATE_SECONDS,
    )
