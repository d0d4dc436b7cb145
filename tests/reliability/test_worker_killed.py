"""A worker killed with SIGKILL in the middle of closing a phase, or of sending what the close
wrote: each phase closes exactly once and every text is delivered, once and in order.

The real worker (`celery worker -P solo`, a subprocess) and beat run on the real PostgreSQL and Redis
against the stand-in Telegram, on the clock ``tests/worker`` moves. ``killable_target`` leaves marks
the test waits for: every close, once it holds the game's lock, notes itself and waits ``DELAY``
seconds; every round of sends, once its rows are marked in flight (the ``in_flight`` seam of
``service/delivery/dispatch.py``), notes its rows, and while the test has armed it waits for the
kill. The kills, by the marks and not by luck:

- the first lands inside a close's transaction (``DELAY / 3`` after the close began);
- the second, and every other one after it, after the close committed, while its texts are being
  sent: rows the close wrote are in flight, their HTTP calls not made;
- the rest anywhere in a close or just after its commit (a random fraction of ``2 * DELAY``).

Beat stays up, a new worker starts, and the next sweep finds the phase at once (the new worker
dropped the sweep's marks: ``worker.app``). Then: the event log holds one
close (the ``end`` move) per phase number; every row the kills cut short in flight was sent once
more (``dispatch.py``: its lease ran out); the outbox drains with every row sent; and each reader
got each of his texts once, in the outbox's order, with at most one extra copy, right after it, of
a row whose send was cut short (Telegram keeps no client key). Two kills by default; 50 in the
``slow`` suite.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from service.delivery.rows import ABANDONED
from service.sandbox.fake_telegram import FakeTelegram
from service.store.models import GameEvent, Outbox
from tests.reliability.play import assert_delivered, assert_in_order
from tests.worker.conftest import act
from tests.worker.test_worker import ROOT, FileClock, _env, _settled, _table, drain_timeout, wait

pytestmark = pytest.mark.processes  # starts the real processes: not in the fast lane

DELAY = 0.3  # seconds a close waits while it holds the game's lock


class Processes:
    """One beat for the whole test and a worker that is killed and started again."""

    def __init__(self, tmp: Path, env: dict[str, str]) -> None:
        self.tmp, self.env = tmp, env
        self.log = open(tmp / "worker.log", "ab")  # noqa: SIM115 - closed in stop()
        self.worker: subprocess.Popen[bytes] | None = None
        self.beat: subprocess.Popen[bytes] | None = None
        self.celery = [sys.executable, "-m", "celery", "-A", "tests.reliability.killable_target"]

    def start_worker(self) -> None:
        self.worker = subprocess.Popen(
            [
                *self.celery,
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
        )

    def start_beat(self) -> None:
        self.beat = subprocess.Popen(
            [*self.celery, "beat", "-s", str(self.tmp / "beat-schedule"), "-l", "warning"],
            cwd=ROOT,
            env=self.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def dump_stacks(self) -> None:
        """Every thread's stack into the log (``celery_target`` registers SIGUSR1): why it hangs."""
        if self.worker is not None and self.worker.poll() is None:
            os.kill(self.worker.pid, signal.SIGUSR1)
            time.sleep(0.5)

    def kill_worker(self) -> None:
        assert self.worker is not None and self.worker.poll() is None, self.tail()
        os.kill(self.worker.pid, signal.SIGKILL)
        self.worker.wait()

    def stop(self) -> None:
        for proc in (self.worker, self.beat):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
        self.log.close()

    def tail(self) -> str:
        return (self.tmp / "worker.log").read_text(errors="replace")[-3000:]


def _marks(path: Path) -> Counter[tuple[int, int]]:
    """How many times each (game, phase) began to close."""
    return Counter(
        (int(g), int(p))
        for kind, g, p, _pid in (line.split() for line in path.read_text().splitlines() if line.startswith("close "))
    )


def _sent_after_close(path: Path, key: tuple[int, int], row: int) -> set[int] | None:
    """The rows of the first round of sends, after the close of phase ``key`` began, that holds a
    row newer than ``row``."""
    begun = False
    for kind, *fields in (line.split() for line in path.read_text().splitlines()):
        if kind == "close" and (int(fields[0]), int(fields[1])) == key:
            begun = True
        elif kind == "send" and begun and max(ids := {int(i) for i in fields[0].split(",")}) > row:
            return ids
    return None


def _last_row(pg: Engine) -> int:
    with Session(pg) as s:
        return max((r for r in s.exec(select(Outbox.id)) if r is not None), default=0)


def kill_while_closing(tmp: Path, pg: Engine, fake: FakeTelegram, redis_url: str, kills: int, seed: int) -> None:
    rnd = random.Random(seed)
    marks, arm = tmp / "marks", tmp / "armed"
    marks.touch()
    # A short lease: a row whose send the kill cut short goes out again 2 s later (one worker
    # process, so nothing else is sending it meanwhile).
    env = {
        **_env(tmp, pg, redis_url, fake),
        "LUPUS_TEST_CLOSE_MARKS": str(marks),
        "LUPUS_TEST_SEND_ARM": str(arm),
        "LUPUS_TEST_CLOSE_DELAY": str(DELAY),
        "DISPATCH_LEASE_SECONDS": "2",
        # Longer than the test waits for a close: the close a kill cut short goes again because
        # the new worker drops the sweep's marks when it starts, not because a mark expired.
        "CLOSE_RETRY_SECONDS": "600",
    }
    table = _table(tmp, pg, redis_url)
    clock = table.clock
    assert isinstance(clock, FileClock)
    procs = Processes(tmp, env)
    made_due: list[tuple[int, int]] = []
    cut_short: set[int] = set()  # rows in flight when a kill landed
    try:
        procs.start_beat()
        procs.start_worker()
        table.open()
        for i in range(kills):
            if table.game().status == "over":
                table.open()
            act(table)
            game = table.game()
            assert game.id is not None and game.deadline is not None
            key = (game.id, game.phase_no)
            while_sending = i % 2 == 1
            if while_sending:
                before = _last_row(pg)  # the close's rows come after this one
                arm.write_text(f"{before} {key[0]} {key[1]}")
            clock.set(max(clock.now, game.deadline))
            wait(lambda: _marks(marks)[key] >= 1, procs, timeout=90, why=f"phase {key} to begin closing")  # noqa: B023
            if while_sending:
                # Its rows exist only once it committed; the round that marked them in flight waits
                # (armed) for the kill, its HTTP calls not made.
                rows = wait(
                    lambda: _sent_after_close(marks, key, before),  # noqa: B023
                    procs,
                    timeout=90,
                    why=f"a text of phase {key}'s close to be in flight",
                )
                assert table.game().phase_no != key[1], "the close had not committed"
                cut_short |= rows
            else:
                # The first kill surely inside the close's transaction; the others in it or after.
                time.sleep(DELAY / 3 if i == 0 else rnd.uniform(0, 2 * DELAY))
            procs.kill_worker()
            arm.unlink(missing_ok=True)
            procs.start_worker()
            wait(lambda: table.game().phase_no != key[1], procs, timeout=90, why=f"phase {key} to close")  # noqa: B023
            made_due.append(key)
            # What the close wrote drains before the next kill, so no row is cut short twice.
            wait(lambda: _settled(pg), procs, timeout=drain_timeout(pg), why="the outbox to drain")
    finally:
        procs.stop()

    begun = _marks(marks)
    assert sum(begun[k] >= 2 for k in made_due) >= 1, "no kill landed inside a close"
    with Session(pg) as s:
        moves = s.exec(select(GameEvent).where(GameEvent.kind == "move")).all()
        if kills >= 2:
            assert cut_short, "no kill landed while texts were being sent"
        resent = s.exec(select(Outbox).where(col(Outbox.id).in_(sorted(cut_short)))).all()
    assert all((r.last_error or "").startswith(ABANDONED) for r in resent), [
        (r.id, r.status, r.last_error) for r in resent
    ]  # each cut short, then sent once more
    ends = Counter(
        (e.game_id, e.phase_no) for e in moves if e.data.get("actor") is None and e.data.get("text") == "end"
    )
    assert all(n == 1 for n in ends.values()), [k for k, n in ends.items() if n != 1]
    assert all(ends[k] == 1 for k in made_due), [k for k in made_due if ends[k] != 1]

    assert_delivered(table, fake)
    assert_in_order(table, fake)


@pytest.mark.redis
@pytest.mark.postgres
def test_a_worker_killed_while_closing_a_phase(
    tmp_path: Path, pg: Engine, redis_worker_db: str, fake: FakeTelegram
) -> None:
    kill_while_closing(tmp_path, pg, fake, redis_worker_db, kills=2, seed=1)


@pytest.mark.slow
@pytest.mark.redis
@pytest.mark.postgres
@pytest.mark.timeout(3600)
def test_a_worker_killed_50_times_while_closing_phases(
    tmp_path: Path, pg: Engine, redis_worker_db: str, fake: FakeTelegram
) -> None:
    kill_while_closing(tmp_path, pg, fake, redis_worker_db, kills=50, seed=50)
