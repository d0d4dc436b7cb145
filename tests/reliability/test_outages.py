"""Redis restarted and PostgreSQL restarted during play: nothing lost, play resumes by itself.

A game of eight (three phases by default, the whole game in the ``slow`` suite) is played through
the real webhook (the app of ``service.web``; the players retry an update as Telegram does when it
got no 2xx), with the real worker and beat (``tests/worker``'s clock-moving target) sending to the
stand-in Telegram and closing the phases.

- Redis: a redis-server of the test's own (the machine's is shared) is killed and started again,
  empty, once (twice in a whole game) during play: every queued task and the limiter's counters
  are gone.
- PostgreSQL: the shared server is not restarted; what the app sees of a restart is every connection
  to its database dropped at once, so a thread terminates every backend of the test's database
  (``pg_terminate_backend``) again and again while the game is played. The test's own reads use a
  connection the thread spares.

Then: play went on (the whole game ended), every update the players sent was taken once (the inbound log), the outbox
drained with every row sent, and each text reached its reader (a second copy only of a row whose
send was cut short, as ``dispatch.py`` allows).
"""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text
from sqlmodel import Session, func, select

from service import web
from service.game.app import Service
from service.game.reminders import install
from service.sandbox.fake_telegram import FakeTelegram
from service.settings import Settings
from service.store.db import make_engine
from service.store.models import Inbound
from tests.databases import PG_ADMIN
from tests.reliability.play import SECRET, assert_delivered, webhook_say
from tests.worker.conftest import Table, act
from tests.worker.test_worker import TOKEN, FileClock, RedisServer, Worker, _env, _settled, _table, drain_timeout, wait

pytestmark = pytest.mark.processes  # starts the real processes: not in the fast lane

OBSERVER = "lupus-test-observer"  # the application_name of the test's own connections


def _web_client(table: Table, db: Engine, fake: FakeTelegram) -> TestClient:
    """The web app on its own engine (``db``), enqueuing as the table's service does."""
    cfg = Settings(
        _env_file=None,
        DATABASE_URL=db.url.render_as_string(hide_password=False),  # type: ignore[call-arg]
        TELEGRAM_BOT_TOKEN=TOKEN,
        TELEGRAM_WEBHOOK_SECRET=SECRET,
        TELEGRAM_API_URL=fake.url,  # type: ignore[attr-defined]
    )
    svc = install(Service(cfg, db, clock=table.clock, after_commit=table.svc.after_commit))
    return TestClient(web.create_app(cfg, svc))


def _play(table: Table, worker: Worker, between: Any, phases: int) -> None:
    """The game for ``phases`` phases or to its end, ``between(phase)`` called after each phase's
    moves, before its close (which may wait for a worker slowed down by the outage)."""
    table.open()
    played = 0
    while table.game().status == "running" and played < phases:
        act(table)
        between(played)
        game = table.game()
        assert game.deadline is not None and isinstance(table.clock, FileClock)
        table.clock.set(max(table.clock.now, game.deadline))
        wait(
            lambda: table.game().phase_no != game.phase_no,  # noqa: B023
            worker,
            timeout=90,
            why=f"phase {game.phase_no} to close",
        )
        played += 1
    assert played == phases or table.game().status == "over"


def _drain(table: Table, db: Engine, worker: Worker) -> None:
    # Game time goes on while the last texts drain (a backoff after an error is game time too), but
    # not up to a running game's next deadline: a phase closed meanwhile would write new texts after
    # the outbox was seen drained.
    game = table.game()
    stop = game.deadline - timedelta(minutes=11) if game.status == "running" and game.deadline else None

    def drained() -> bool:
        if stop is None or table.clock.now < stop:
            table.advance(minutes=10)
        return _settled(db)

    wait(drained, worker, timeout=drain_timeout(db, floor=90), why="the outbox to drain")


def _taken_once(db: Engine, sent: list[int]) -> None:
    with Session(db) as s:
        ids = s.exec(select(Inbound.external_id).where(Inbound.channel == "telegram")).all()
        assert s.exec(select(func.count()).select_from(Inbound)).one() == len(ids)
    assert len(ids) == len(set(ids)) == len(set(sent)), (len(ids), len(set(ids)), len(set(sent)))


def redis_restarts(tmp_path: Path, pg: Engine, fake: FakeTelegram, phases: int) -> None:
    redis = RedisServer(tmp_path)
    redis.start()
    env = {**_env(tmp_path, pg, redis.url, fake), "DISPATCH_LEASE_SECONDS": "5"}
    worker = Worker(tmp_path, env)
    table = _table(tmp_path, pg, redis.url)
    sent: list[int] = []
    restarts = [0]

    def restart(phase: int) -> None:
        if phase in (1, 3):
            redis.stop()
            time.sleep(1)  # the worker, beat and the web app meet a Redis that is not there
            redis.start()
            restarts[0] += 1

    try:
        worker.start()
        with _web_client(table, pg, fake) as client:
            table.say = webhook_say(table, client, sent)  # type: ignore[method-assign]
            _play(table, worker, restart, phases)
        _drain(table, pg, worker)
    finally:
        worker.stop()
        redis.stop()
    assert restarts[0] >= 1
    _taken_once(pg, sent)
    assert_delivered(table, fake)


class Terminator(threading.Thread):
    """Drops every connection to one database but the test's own, every ``every`` seconds."""

    def __init__(self, database: str, every: float) -> None:
        super().__init__(daemon=True)
        self.database, self.every = database, every
        self.halt = threading.Event()
        self.rounds = self.dropped = 0
        self._lock = threading.Lock()
        self.admin = make_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")

    def run(self) -> None:
        while not self.halt.wait(self.every):
            self.drop()

    def drop(self) -> None:
        """One round: every connection but the test's own, dropped now."""
        with self._lock, self.admin.connect() as c:
            n = c.execute(
                text(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                    "WHERE datname = :db AND pid <> pg_backend_pid() AND application_name <> :me"
                ),
                {"db": self.database, "me": OBSERVER},
            ).scalar_one()
            self.rounds += 1
            self.dropped += int(n or 0)

    def stop(self) -> None:
        self.halt.set()
        self.join()
        self.admin.dispose()


def connections_dropped(tmp_path: Path, pg: Engine, fake: FakeTelegram, redis_url: str, phases: int) -> None:
    url = pg.url.render_as_string(hide_password=False)
    observer = make_engine(url, connect_args={"application_name": OBSERVER})
    env = {**_env(tmp_path, pg, redis_url, fake), "DISPATCH_LEASE_SECONDS": "5"}
    worker = Worker(tmp_path, env)
    table = _table(tmp_path, observer, redis_url)  # the test's reads, spared
    assert isinstance(table.clock, FileClock)
    sent: list[int] = []
    killer = Terminator(str(pg.url.database), every=1.5)
    try:
        worker.start()
        with _web_client(table, pg, fake) as client:
            table.say = webhook_say(table, client, sent)  # type: ignore[method-assign]
            killer.start()
            # And before each close, whatever the clock: a game played quickly still closes every
            # phase on connections that were just dropped.
            _play(table, worker, lambda _phase: killer.drop(), phases)
            killer.stop()
        _drain(table, observer, worker)
    finally:
        if killer.is_alive():
            killer.stop()
        worker.stop()
    assert killer.rounds >= 3 and killer.dropped >= 3, (killer.rounds, killer.dropped)
    _taken_once(observer, sent)
    # A send whose "sent" could not be written (its connection dropped) is left to its lease: one
    # more copy at most, like a send cut short by a crash.
    assert_delivered(table, fake)
    observer.dispose()


@pytest.mark.redis
@pytest.mark.postgres
def test_play_resumes_after_redis_restarts(tmp_path: Path, pg: Engine, fake: FakeTelegram) -> None:
    redis_restarts(tmp_path, pg, fake, phases=3)


@pytest.mark.redis
@pytest.mark.postgres
def test_play_resumes_while_postgresql_drops_every_connection(
    tmp_path: Path, pg: Engine, fake: FakeTelegram, redis_worker_db: str
) -> None:
    connections_dropped(tmp_path, pg, fake, redis_worker_db, phases=3)


@pytest.mark.slow
@pytest.mark.redis
@pytest.mark.postgres
@pytest.mark.timeout(1800)
def test_a_whole_game_with_redis_restarted_twice(tmp_path: Path, pg: Engine, fake: FakeTelegram) -> None:
    redis_restarts(tmp_path, pg, fake, phases=30)


@pytest.mark.slow
@pytest.mark.redis
@pytest.mark.postgres
@pytest.mark.timeout(1800)
def test_a_whole_game_while_postgresql_drops_every_connection(
    tmp_path: Path, pg: Engine, fake: FakeTelegram, redis_worker_db: str
) -> None:
    connections_dropped(tmp_path, pg, fake, redis_worker_db, phases=30)
