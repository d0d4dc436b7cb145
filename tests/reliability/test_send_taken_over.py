"""Two workers, and the one sending a phase's texts is SIGKILLed mid-send and left dead: the other
sends the texts it held, in order, within 10 s (issue 31: "a text whose send was cut short is resent
in seconds, not a minute").

The real workers (`celery worker -P solo`, two subprocesses) and beat run on the real PostgreSQL and
Redis against the stand-in Telegram, with the product's own ``DISPATCH_LEASE_SECONDS`` and
``OUTBOX_SWEEP_SECONDS``. ``killable_target`` marks each round of sends once its rows are in flight
(``send ids pid``) and, armed, holds the first round of the close's texts there until the kill: the
rows are in flight, their HTTP calls not made. What hands them to the survivor is their lease
lapsing (the dead worker no longer renews it) and the next outbox sweep; no worker starts.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from service.delivery.rows import ABANDONED
from service.sandbox.fake_telegram import FakeTelegram
from service.settings import Settings
from service.store.models import Outbox
from tests.reliability.play import assert_delivered, assert_in_order
from tests.reliability.test_close_taken_over import Two
from tests.reliability.test_worker_killed import _last_row
from tests.worker.test_worker import FileClock, _env, _settled, _table, drain_timeout, wait

pytestmark = pytest.mark.processes  # starts the real processes: not in the fast lane

WITHIN = 10.0  # seconds from the kill to the cut-short texts sent by the survivor


def _round_after(path: Path, row: int) -> tuple[set[int], int] | None:
    """The rows and the process of the first round of sends holding a row newer than ``row``."""
    for kind, *fields in (line.split() for line in path.read_text().splitlines()):
        if kind == "send" and max(ids := {int(i) for i in fields[0].split(",")}) > row:
            return ids, int(fields[1])
    return None


def _sent(pg: Engine, ids: set[int]) -> bool:
    with Session(pg) as s:
        return all(r.status == "sent" for r in s.exec(select(Outbox).where(col(Outbox.id).in_(sorted(ids)))))


@pytest.mark.redis
@pytest.mark.postgres
def test_texts_a_killed_worker_was_sending_go_from_the_other_within_seconds(
    tmp_path: Path, pg: Engine, redis_worker_db: str, fake: FakeTelegram
) -> None:
    marks, arm = tmp_path / "marks", tmp_path / "armed"
    marks.touch()
    product = Settings()
    env = {
        **_env(tmp_path, pg, redis_worker_db, fake),
        "LUPUS_TEST_CLOSE_MARKS": str(marks),
        "LUPUS_TEST_SEND_ARM": str(arm),
        "LUPUS_TEST_CLOSE_DELAY": "0.1",
        "CLOSE_RETRY_SECONDS": "600",
        "DISPATCH_LEASE_SECONDS": str(product.DISPATCH_LEASE_SECONDS),
        "OUTBOX_SWEEP_SECONDS": str(product.OUTBOX_SWEEP_SECONDS),
    }
    table = _table(tmp_path, pg, redis_worker_db)
    clock = table.clock
    assert isinstance(clock, FileClock)
    procs = Two(tmp_path, env)
    try:
        wait(procs.ready, procs, timeout=120, why="both workers to be ready")
        table.open()
        wait(lambda: _settled(pg), procs, timeout=drain_timeout(pg), why="the opening texts to be sent")
        game = table.game()
        assert game.id is not None and game.deadline is not None
        before = _last_row(pg)  # the close's rows come after this one
        arm.write_text(f"{before} {game.id} {game.phase_no}")
        clock.set(max(clock.now, game.deadline))
        cut_short, holder = wait(
            lambda: _round_after(marks, before), procs, timeout=60, why="a text of the close to be in flight"
        )
        killed = next(name for name, proc in procs.workers.items() if proc.pid == holder)
        procs.workers[killed].kill()
        procs.workers[killed].wait()
        dead_at = time.monotonic()
        arm.unlink()
        wait(lambda: _sent(pg, cut_short), procs, timeout=60, why="the cut-short texts to be sent")
        took = time.monotonic() - dead_at
        print(f"{len(cut_short)} texts cut short, sent by the other worker {took:.2f} s after the kill")
        wait(lambda: _settled(pg), procs, timeout=drain_timeout(pg), why="the outbox to drain")
        assert procs.workers[killed].poll() is not None  # left dead: no worker started meanwhile
    finally:
        procs.stop()

    assert took <= WITHIN, f"the cut-short texts went {took:.1f} s after the kill"
    with Session(pg) as s:
        again = s.exec(select(Outbox).where(col(Outbox.id).in_(sorted(cut_short)))).all()
    assert all((r.last_error or "").startswith(ABANDONED) for r in again), [(r.id, r.last_error) for r in again]
    assert_delivered(table, fake)  # once each (the kill came before their HTTP calls)
    assert_in_order(table, fake)
