"""The real worker (`celery worker -B`, solo pool, a subprocess) on the real Redis and PostgreSQL,
against the stand-in Telegram API: slow games played to the end by moving a clock, deadlines that
outlive the worker and Redis, a deadline task delivered twice, platform limits and blocked users."""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import pytest
from sqlalchemy import Engine, text
from sqlmodel import Session, col, func, select

from service.delivery.dispatch import CONCURRENCY
from service.delivery.rows import ABANDONED
from service.sandbox.fake_telegram import FakeTelegram
from service.sandbox.server import ServerThread
from service.store.db import make_engine
from service.store.models import GameEvent, Outbox
from tests.databases import missing
from worker.celery_app import QUEUES, make_celery

from .conftest import HOST, REDIS_URL, Clock, Table, act

pytestmark = pytest.mark.processes  # starts the real processes: not in the fast lane

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "123456:TEST-token_worker"


class FileClock(Clock):
    """The test's clock, shared with the worker through a file holding its lead over real time:
    time flows as usual (rate limits and retries wait real seconds) and the test jumps it ahead."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.set(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))

    @property
    def now(self) -> datetime:
        return datetime.now(UTC) + self.lead

    @now.setter
    def now(self, when: datetime) -> None:
        self.set(when)

    def __call__(self) -> datetime:
        return self.now

    def set(self, when: datetime) -> None:
        self.lead = when - datetime.now(UTC)
        # Replaced in one step: the worker reads the file at any moment, and must never see it empty.
        part = self.path.with_suffix(".part")
        part.write_text(str(self.lead.total_seconds()))
        os.replace(part, self.path)


class Worker:
    def __init__(self, tmp: Path, env: dict[str, str], beat: bool = True) -> None:
        self.tmp, self.env, self.beat = tmp, env, beat
        self.proc: subprocess.Popen[bytes] | None = None
        self.beat_proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """The worker, and beat beside it as the Procfile runs them (two processes, one beat)."""
        celery = [sys.executable, "-m", "celery", "-A", "tests.worker.celery_target"]
        before = self._starts()
        self.log = open(self.tmp / "worker.log", "ab")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [
                *celery,
                "worker",
                "-P",
                "solo",
                "--without-mingle",
                "--without-gossip",
                "--without-heartbeat",
                "-l",
                "info",
            ],
            cwd=ROOT,
            env=self.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.beat_proc = (
            subprocess.Popen(
                [*celery, "beat", "-s", str(self.tmp / "beat-schedule"), "-l", "warning"],
                cwd=ROOT,
                env=self.env,
                stdout=self.log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            if self.beat
            else None
        )
        # Up before the test goes on: the timeouts below are for the worker's work, not for Python
        # importing Celery on a loaded machine (a restart took 25 s with a load average of 10).
        self._ready(before)

    def _ready(self, before: int, timeout: float = 120) -> None:
        end = time.monotonic() + timeout
        while self._starts() <= before:
            if time.monotonic() > end or (self.proc and self.proc.poll() is not None):
                raise AssertionError(f"the worker did not start\n--- worker log ---\n{self.tail()}")
            time.sleep(0.1)

    def _starts(self) -> int:
        path = self.tmp / "worker.log"
        return path.read_text(errors="replace").count(" ready.") if path.exists() else 0

    def stop(self) -> None:
        for proc in (self.proc, self.beat_proc):
            if proc and proc.poll() is None:
                # As a crash or a deploy would: nothing is finished politely, and the whole process
                # group goes (a pool's children too), so no old process lives on beside the new one.
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        self.log.close()
        shutil.copy(self.tmp / "worker.log", Path(tempfile.gettempdir()) / "lupus-worker-test.log")

    def dump_stacks(self) -> None:
        """Every thread's stack into the log (celery_target registers SIGUSR1): why it hangs."""
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGUSR1)
            time.sleep(0.5)

    def tail(self) -> str:
        """The end of the worker's own log (beat's "Sending due task" lines, which drown it, left
        out), and whether the worker still runs: a worker that died leaves no stacks to dump."""
        lines = (self.tmp / "worker.log").read_text(errors="replace").splitlines()
        own = "\n".join(line for line in lines if "Sending due task" not in line)[-6000:]
        code = self.proc.poll() if self.proc else None
        return f"{own}\n--- the worker {'runs' if code is None else f'exited with {code}'} ---"


class Watched(Protocol):
    """What ``wait`` reports on when it times out (a ``Worker``, or the kill test's processes)."""

    def dump_stacks(self) -> None: ...

    def tail(self) -> str: ...


def wait(
    what: Callable[[], Any], worker: Watched, timeout: float = 30, why: str = "", state: Callable[[], str] | None = None
) -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = what()
        if got:
            return got
        time.sleep(0.1)
    worker.dump_stacks()
    raise AssertionError(
        f"timed out waiting for {why}\n{state() if state else ''}\n--- worker log ---\n{worker.tail()}"
    )


@pytest.fixture
def pg(pg_url: str) -> Iterator[Engine]:
    eng = make_engine(pg_url)
    with eng.begin() as c:
        c.execute(text("TRUNCATE outbox, inbound, game_events, seats, games, identities RESTART IDENTITY CASCADE"))
    yield eng
    eng.dispose()


@pytest.fixture
def fake() -> Iterator[FakeTelegram]:
    tg = FakeTelegram(TOKEN)
    with ServerThread(tg.app) as url:
        tg.url = url  # type: ignore[attr-defined]
        yield tg


def _env(tmp: Path, db: Engine, redis_url: str, fake: FakeTelegram) -> dict[str, str]:
    return {
        **os.environ,
        "LUPUS_TEST_CLOCK": str(tmp / "clock"),
        "DATABASE_URL": db.url.render_as_string(hide_password=False),
        "REDIS_URL": redis_url,
        "TELEGRAM_BOT_TOKEN": TOKEN,
        "TELEGRAM_API_URL": fake.url,  # type: ignore[attr-defined]
        # A whole channel and where the app would be: a worker refuses to start without them.
        "TELEGRAM_WEBHOOK_SECRET": "worker-test-secret",
        "PUBLIC_URL": "http://127.0.0.1:9",
        "SWEEP_SECONDS": "0.5",
        "OUTBOX_SWEEP_SECONDS": "1",
        "REMINDER_SWEEP_SECONDS": "1",
        # A close lost with a killed worker is enqueued again after 10 s instead of a minute.
        "CLOSE_RETRY_SECONDS": "10",
        # Compressed like the sweeps: the stand-in answers in milliseconds, so a send in flight
        # when the worker is killed is taken for abandoned after 15 s instead of a minute (the
        # chat waits behind it meanwhile, to keep its texts in order).
        "DISPATCH_LEASE_SECONDS": "15",
    }


def _table(tmp: Path, db: Engine, redis_url: str) -> Table:
    producer = make_celery(redis_url, include=[])
    table = Table(db, FileClock(tmp / "clock"))

    def enqueue(ids: Any) -> None:  # as worker.enqueue does: a broker outage delays, never fails a command
        with contextlib.suppress(Exception):
            producer.send_task("lupus.dispatch", args=[list(ids)], retry=False)

    table.svc.after_commit = enqueue
    return table


def _closes(table: Table, worker: Worker) -> None:
    """Let the phase's deadline pass on the clock and wait for the worker to close it."""
    game = table.game()
    assert game.deadline is not None
    assert isinstance(table.clock, FileClock)
    table.clock.set(max(table.clock.now, game.deadline))
    wait(lambda: table.game().phase_no != game.phase_no, worker, why=f"phase {game.phase_no} to close")


def _settled(db: Engine) -> bool:
    with Session(db) as s:
        return not s.exec(
            select(func.count()).select_from(Outbox).where(col(Outbox.status).in_(("pending", "sending")))
        ).one()


def drain_timeout(db: Engine, floor: float = 60) -> float:
    """Seconds to allow the outbox to drain. A private chat takes about a text a second (Telegram's
    limit, which the limiter keeps in real time however fast the test's clock runs), so a game
    played in seconds leaves its busiest reader (the host who sees everything) a queue that takes
    that many seconds; the faster the machine plays the game, the longer the queue at its end."""
    with Session(db) as s:
        most = s.exec(
            select(func.count())
            .select_from(Outbox)
            .where(col(Outbox.status).in_(("pending", "sending")))
            .group_by(col(Outbox.identity_id))
            .order_by(func.count().desc())
            .limit(1)
        ).first()
    return floor + 1.5 * (most or 0)


def _unsettled(db: Engine) -> str:
    """What is still to send, for a failure message: why did it not go?"""
    with Session(db) as s:
        rows = s.exec(
            select(Outbox).where(col(Outbox.status).in_(("pending", "sending"))).order_by(col(Outbox.id))
        ).all()
        return "\n".join(
            f"{r.id} {r.identity_id} {r.status} attempts={r.attempts} not_before={r.not_before} "
            f"sent_at={r.sent_at} {r.last_error!r} {r.key}"
            for r in rows
        )


@pytest.mark.redis
@pytest.mark.postgres
def test_a_slow_game_is_played_to_the_end_by_the_worker(
    tmp_path: Path, pg: Engine, redis_db: Any, fake: FakeTelegram
) -> None:
    table = _table(tmp_path, pg, REDIS_URL)
    blocked = table.addr["hal"]
    fake.block(int(blocked))
    fake.force_retry_after(1, times=3)  # Telegram says "slow down" to the first three sends
    worker = Worker(tmp_path, _env(tmp_path, pg, REDIS_URL, fake))
    worker.start()
    try:
        table.open()
        assert table.game().deadline is not None
        phases = 0
        while table.game().status == "running" and phases < 30:
            act(table)
            if phases == 2:  # the worker dies with a deadline pending; the next one finds it
                worker.stop()
                worker.start()
            _closes(table, worker)
            phases += 1
        assert table.game().status == "over"

        # Game time goes on while the last texts drain (a backoff after a timeout is game time too).
        def later_and_settled() -> bool:
            table.advance(minutes=10)
            return _settled(pg)

        wait(
            later_and_settled,
            worker,
            timeout=drain_timeout(pg),
            why="the outbox to drain",
            state=lambda: _unsettled(pg),
        )
    finally:
        worker.stop()
    rows = table.rows()
    sent = [r for r in rows if r.status == "sent"]
    hal = table.person(blocked)
    assert hal.unreachable
    assert {r.status for r in rows if r.identity_id != hal.id} == {"sent"}, [
        (r.id, r.key, r.attempts, r.last_error) for r in rows if r.status != "sent" and r.identity_id != hal.id
    ]
    # Exactly once, but for the worker killed above: the rows it had in flight (one round of
    # sends, at most CONCURRENCY texts) went out again after their lease, each at most once more
    # (no platform deduplicates; those it had not yet sent reach the player only then).
    ok = fake.sent()
    abandoned = [r for r in sent if (r.last_error or "").startswith(ABANDONED)]
    assert len(abandoned) <= CONCURRENCY and len(sent) <= len(ok) <= len(sent) + len(abandoned)
    per_chat: dict[str, list[str]] = {}
    for m in ok:
        per_chat.setdefault(str(m["chat"]["id"]), []).append(m["text"])
    for r in sent:
        assert table.person_address(r.identity_id) in per_chat
    for pid in {r.identity_id for r in sent}:
        mine = [r.text for r in sent if r.identity_id == pid]
        got = per_chat[table.person_address(pid)]
        assert sorted(set(got)) == sorted(set(mine))  # nothing lost, nothing foreign
    # Never over the limits: the only 429s are the three forced ones.
    assert fake.rejected(429) == 3
    # The host was told that messages no longer reach hal.
    assert any("hal" in m["text"] and "blocked" in m["text"] for m in fake.sent(int(HOST)))


@pytest.mark.redis
@pytest.mark.postgres
def test_a_deadline_task_delivered_twice_closes_the_phase_once(
    tmp_path: Path, pg: Engine, redis_db: Any, fake: FakeTelegram
) -> None:
    table = _table(tmp_path, pg, REDIS_URL)
    table.open()
    game = table.game()
    assert game.deadline is not None and isinstance(table.clock, FileClock)
    table.clock.set(game.deadline)
    worker = Worker(tmp_path, _env(tmp_path, pg, REDIS_URL, fake), beat=False)  # only our two tasks
    producer = make_celery(REDIS_URL, include=[])
    for _ in range(2):
        producer.send_task("lupus.close_phase", args=[game.id, game.phase_no])
    worker.start()
    try:
        wait(
            lambda: not any(redis_db.llen(q) for q in QUEUES) and not redis_db.hlen("unacked"), worker, why="both tasks"
        )
        wait(lambda: _settled(pg), worker, why="the outbox to drain")
    finally:
        worker.stop()
    assert table.game().phase_no == game.phase_no + 1
    with Session(pg) as s:
        logged = s.exec(
            select(func.count())
            .select_from(GameEvent)
            .where(GameEvent.game_id == game.id, GameEvent.phase_no == game.phase_no + 1, GameEvent.kind == "event")
        ).one()
    assert logged  # the phase closed once: a second close would have logged in phase + 2
    with Session(pg) as s:
        assert not s.exec(select(GameEvent).where(GameEvent.phase_no > game.phase_no + 1)).first()


def _port_for_a_server() -> int:
    """A free port below the kernel's ephemeral range. A port taken from that range (port 0) can be
    handed, while the server is down for a restart, to an outgoing connection made meanwhile (the
    worker, beat and the web app keep reconnecting), even to a reconnection to the port itself, which
    then talks to itself; the server then cannot listen on it again."""
    low = (
        int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
        if Path("/proc/sys/net/ipv4/ip_local_port_range").exists()
        else 32768
    )
    for port in random.Random().sample(range(min(20000, low // 2), low), 200):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise AssertionError("no free port below the ephemeral range")


class RedisServer:
    """A redis-server of the test's own (the machine's is shared with other tests), without
    persistence: a restart loses every queued task and every counter."""

    def __init__(self, tmp: Path) -> None:
        if shutil.which("redis-server") is None:
            missing("Redis", "no redis-server binary on PATH to start one of the test's own")
        self.port = _port_for_a_server()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.log_path = tmp / "redis.log"
        self.cmd = [
            "redis-server",
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(tmp),
            "--logfile",
            str(self.log_path),
        ]
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 10) -> None:
        """Started, and answering, before the test goes on: a server that could not listen says why."""
        import redis

        self.proc = subprocess.Popen(self.cmd, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        client = redis.Redis(port=self.port, socket_timeout=1, socket_connect_timeout=1)
        end = time.monotonic() + timeout
        try:
            while True:
                try:
                    if client.ping():
                        return
                except redis.RedisError:
                    pass
                if self.proc.poll() is not None or time.monotonic() > end:
                    log = self.log_path.read_text(errors="replace")[-2000:] if self.log_path.exists() else ""
                    raise AssertionError(f"redis-server on port {self.port} did not come up\n{log}")
                time.sleep(0.05)
        finally:
            client.close()

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()


@pytest.mark.redis
@pytest.mark.postgres
def test_deadlines_survive_a_restart_of_redis(tmp_path: Path, pg: Engine, fake: FakeTelegram) -> None:
    # Our own Redis server (the machine's is shared with other tests running now, so it is not
    # the one restarted): without persistence, a restart loses every queued task.
    server = RedisServer(tmp_path)
    server.start()
    worker = Worker(tmp_path, _env(tmp_path, pg, server.url, fake))
    try:
        table = _table(tmp_path, pg, server.url)
        worker.start()
        table.open()
        _closes(table, worker)  # the worker works
        server.stop()
        act(table)  # commands still commit while Redis is down: the enqueue fails, the rows wait
        game = table.game()
        assert game.deadline is not None and isinstance(table.clock, FileClock)
        table.clock.set(game.deadline)
        server.start()  # empty: every queued task is gone
        # Within seconds of Redis coming back (worker.consumer), though it was away long enough for
        # Celery's own reconnection to wait 14 s between tries.
        wait(lambda: table.game().phase_no != game.phase_no, worker, timeout=20, why="the phase to close")
        wait(lambda: _settled(pg), worker, timeout=drain_timeout(pg), why="the outbox to drain")
    finally:
        worker.stop()
        server.stop()
