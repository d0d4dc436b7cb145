"""Two workers, and the one closing a phase is SIGKILLed and left dead: the other closes it within
10 s (issue 31, "no minute lost to a dead process").

The real workers (`celery worker -P solo`, two subprocesses) and beat run on the real PostgreSQL and
Redis against the stand-in Telegram, on the clock ``tests/worker`` moves; ``killable_target`` makes
every close note itself (with its process id) once it holds the game's lock and then wait ``DELAY``
seconds, so the kill lands inside the close's transaction. CLOSE_RETRY_SECONDS is longer than the
test: what hands the close to the survivor is the dead worker's lease lapsing (``worker.leases``),
not a retry, and no worker starts to drop the sweep's marks.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from service.sandbox.fake_telegram import FakeTelegram
from service.store.models import GameEvent
from tests.worker.test_worker import ROOT, FileClock, _env, _table, wait

pytestmark = pytest.mark.processes  # starts the real processes: not in the fast lane

DELAY = 1.0  # seconds a close waits while it holds the game's lock
WITHIN = 10.0  # seconds from the kill to the phase closed by the survivor


class Two:
    """Beat and two workers, each worker named, logging to one file."""

    def __init__(self, tmp: Path, env: dict[str, str]) -> None:
        self.tmp, self.env = tmp, env
        self.log = open(tmp / "worker.log", "ab")  # noqa: SIM115 - closed in stop()
        self.celery = [sys.executable, "-m", "celery", "-A", "tests.reliability.killable_target"]
        self.beat = self._start("beat", "-s", str(tmp / "beat-schedule"), "-l", "warning")
        self.workers = {
            name: self._start(
                "worker",
                "-n",
                f"{name}@%h",
                "-P",
                "solo",
                "--without-mingle",
                "--without-gossip",
                "--without-heartbeat",
                "-l",
                "info",
            )
            for name in ("one", "two")
        }

    def _start(self, *args: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [*self.celery, *args], cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT
        )

    def ready(self) -> bool:
        return (self.tmp / "worker.log").read_text(errors="replace").count(" ready.") >= len(self.workers)

    def dump_stacks(self) -> None:
        for proc in self.workers.values():
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGUSR1)
        time.sleep(0.5)

    def stop(self) -> None:
        for proc in (self.beat, *self.workers.values()):
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        self.log.close()

    def tail(self) -> str:
        return (self.tmp / "worker.log").read_text(errors="replace")[-4000:]


def _begun(path: Path, key: tuple[int, int]) -> list[int]:
    """The processes that began to close phase ``key``, in order."""
    closes = (line.split()[1:] for line in path.read_text().splitlines() if line.startswith("close "))
    return [int(pid) for g, p, pid in closes if (int(g), int(p)) == key]


@pytest.mark.redis
@pytest.mark.postgres
def test_a_close_held_by_a_killed_worker_is_taken_over_by_the_other(
    tmp_path: Path, pg: Engine, redis_worker_db: str, fake: FakeTelegram
) -> None:
    marks = tmp_path / "marks"
    marks.touch()
    env = {
        **_env(tmp_path, pg, redis_worker_db, fake),
        "LUPUS_TEST_CLOSE_MARKS": str(marks),
        "LUPUS_TEST_SEND_ARM": str(tmp_path / "never-armed"),
        "LUPUS_TEST_CLOSE_DELAY": str(DELAY),
        "CLOSE_RETRY_SECONDS": "600",
    }
    table = _table(tmp_path, pg, redis_worker_db)
    clock = table.clock
    assert isinstance(clock, FileClock)
    procs = Two(tmp_path, env)
    try:
        wait(procs.ready, procs, timeout=120, why="both workers to be ready")
        table.open()
        game = table.game()
        assert game.id is not None and game.deadline is not None
        key = (game.id, game.phase_no)
        clock.set(max(clock.now, game.deadline))
        holder = wait(lambda: _begun(marks, key), procs, timeout=60, why=f"phase {key} to begin closing")[0]
        killed = next(name for name, proc in procs.workers.items() if proc.pid == holder)
        os.kill(holder, signal.SIGKILL)
        procs.workers[killed].wait()
        dead_at = time.monotonic()
        wait(lambda: table.game().phase_no != key[1], procs, timeout=90, why=f"phase {key} to close")
        took = time.monotonic() - dead_at
        print(f"taken over {took:.2f} s after the kill")
        assert procs.workers[killed].poll() is not None  # left dead: no worker started meanwhile
    finally:
        procs.stop()

    survivor = next(proc.pid for name, proc in procs.workers.items() if name != killed)
    assert _begun(marks, key)[-1] == survivor, _begun(marks, key)
    assert took <= WITHIN, f"the survivor closed the phase {took:.1f} s after the kill"
    with Session(pg) as s:
        moves = s.exec(select(GameEvent).where(GameEvent.kind == "move")).all()
    ends = Counter(
        (e.game_id, e.phase_no) for e in moves if e.data.get("actor") is None and e.data.get("text") == "end"
    )
    assert ends[key] == 1, ends
