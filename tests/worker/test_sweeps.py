"""The deadline sweep enqueues closes (the worker processes share them) and does not enqueue a
queued one again until its mark expires; a lost close is enqueued again."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import pytest
import structlog
import structlog.testing
from sqlalchemy import update
from sqlmodel import col

from service.store.models import Game
from worker.marks import MemoryMarks, RedisMarks
from worker.sweeps import enqueue_due

from .conftest import Table


def test_a_due_game_is_enqueued_once_while_marked_and_again_when_lost(lite: Table) -> None:
    lite.open()
    game = lite.game()
    assert game.deadline is not None and game.id is not None
    marks, queued = MemoryMarks(), []

    def sweep() -> int:
        return enqueue_due(lite.svc, marks, lambda g, n, at: queued.append((g, n)), mark_seconds=0.3)

    assert sweep() == 0 and queued == []  # not due yet
    lite.clock.now = game.deadline
    assert sweep() == 1 and queued == [(game.id, game.phase_no)]
    assert sweep() == 0  # still queued: not again
    time.sleep(0.4)  # the mark expired and the phase is still open: the task was lost
    assert sweep() == 1 and queued[-1] == (game.id, game.phase_no)
    assert lite.svc.close_phase(*queued[-1]) and not lite.svc.close_phase(*queued[0])  # the copy is a no-op
    assert sweep() == 0  # the next phase is not due


def test_a_game_due_before_the_next_sweep_is_enqueued_for_its_deadline(lite: Table) -> None:
    lite.open()
    game = lite.game()
    assert game.deadline is not None and game.id is not None
    marks, queued = MemoryMarks(), []

    def sweep() -> int:
        return enqueue_due(lite.svc, marks, lambda g, n, at: queued.append((g, n, at)), ahead=5)

    lite.clock.now = game.deadline - timedelta(seconds=6)
    assert sweep() == 0 and queued == []  # not before the next sweep
    lite.clock.now = game.deadline - timedelta(seconds=4)
    assert sweep() == 1 and queued == [(game.id, game.phase_no, game.deadline)]
    lite.clock.now = game.deadline
    assert sweep() == 0  # on its way: not again when it falls due
    assert not lite.svc.close_phase(game.id, game.phase_no - 1)  # stale


def test_a_moved_deadline_is_enqueued_again(lite: Table) -> None:
    lite.open()
    game = lite.game()
    assert game.deadline is not None and game.id is not None
    marks, queued = MemoryMarks(), []
    lite.clock.now = game.deadline - timedelta(seconds=2)
    assert enqueue_due(lite.svc, marks, lambda g, n, at: queued.append(at), ahead=5) == 1
    later = game.deadline + timedelta(seconds=1)
    with lite.svc.db.begin() as c:  # as a host's ``extend`` would, by a second
        c.execute(update(Game).where(col(Game.id) == game.id).values(deadline=later))
    assert enqueue_due(lite.svc, marks, lambda g, n, at: queued.append(at), ahead=5) == 1
    assert queued[-1] == later


def test_a_close_enqueued_ahead_waits_for_its_deadline(lite: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    from worker import runtime, tasks
    from worker.celery_app import RetryLater

    lite.open()
    game = lite.game()
    assert game.deadline is not None and game.id is not None
    monkeypatch.setattr(runtime, "_service", lite.svc)
    monkeypatch.setattr(runtime, "clock", lambda: game.deadline - timedelta(seconds=2))
    with pytest.raises(RetryLater) as early:  # run too soon: again when due, nothing changed
        tasks.close_phase(game.id, game.phase_no, game.deadline.timestamp())
    assert 1.9 < early.value.seconds <= 2.0 and lite.game().phase_no == game.phase_no
    lite.clock.now = game.deadline
    monkeypatch.setattr(runtime, "clock", lambda: game.deadline)
    with structlog.testing.capture_logs() as logs:
        assert tasks.close_phase(game.id, game.phase_no, game.deadline.timestamp())
        assert not tasks.close_phase(game.id, game.phase_no, game.deadline.timestamp())  # a copy: a no-op
    said = [(x["event"], x["game"], x["phase_no"]) for x in logs if x["event"].startswith("phase.")]
    assert said == [("phase.closed", game.id, game.phase_no), ("phase.stale", game.id, game.phase_no)]


@pytest.mark.redis
def test_redis_marks_are_shared_and_expire(redis_db: Any) -> None:
    a, b = RedisMarks(redis_db), RedisMarks(redis_db)  # two worker processes
    assert a.first(["close:1:3"], 0.2) == [True]
    assert b.first(["close:1:3", "close:2:3"], 0.2) == [False, True]
    assert a.first(["close:1:3", "close:2:3"], 0.2) == [False, False]
    time.sleep(0.3)
    assert b.first(["close:1:3"], 0.2) == [True]


@pytest.mark.redis
def test_a_worker_that_starts_drops_every_mark_so_the_next_sweep_hands_out_again(redis_db: Any) -> None:
    # What a killed worker held (a close running, closes waiting for their deadlines) would otherwise
    # wait out CLOSE_RETRY_SECONDS; tests/reliability/test_worker_killed.py plays it with processes.
    for a, b in ((RedisMarks(redis_db), RedisMarks(redis_db)), (MemoryMarks(), None)):
        assert a.first(["close:1:3", "close:2:3"], 60) == [True, True]
        assert a.forget() == 2
        assert (b or a).first(["close:1:3", "close:2:3"], 60) == [True, True]
        assert a.first(["close:1:3"], 60) == [False]
