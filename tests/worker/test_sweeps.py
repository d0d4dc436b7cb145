"""The deadline sweep enqueues closes (the worker processes share them) and does not enqueue a
queued one again until its mark expires; a lost close is enqueued again."""

from __future__ import annotations

import time
from typing import Any

import pytest

from worker.marks import MemoryMarks, RedisMarks
from worker.sweeps import enqueue_due

from .conftest import Table


def test_a_due_game_is_enqueued_once_while_marked_and_again_when_lost(lite: Table) -> None:
    lite.open()
    game = lite.game()
    assert game.deadline is not None and game.id is not None
    marks, queued = MemoryMarks(), []

    def sweep() -> int:
        return enqueue_due(lite.svc, marks, lambda g, n: queued.append((g, n)), mark_seconds=0.3)

    assert sweep() == 0 and queued == []  # not due yet
    lite.clock.now = game.deadline
    assert sweep() == 1 and queued == [(game.id, game.phase_no)]
    assert sweep() == 0  # still queued: not again
    time.sleep(0.4)  # the mark expired and the phase is still open: the task was lost
    assert sweep() == 1 and queued[-1] == (game.id, game.phase_no)
    assert lite.svc.close_phase(*queued[-1]) and not lite.svc.close_phase(*queued[0])  # the copy is a no-op
    assert sweep() == 0  # the next phase is not due


@pytest.mark.redis
def test_redis_marks_are_shared_and_expire(redis_db: Any) -> None:
    a, b = RedisMarks(redis_db), RedisMarks(redis_db)  # two worker processes
    assert a.first(["close:1:3"], 0.2) == [True]
    assert b.first(["close:1:3", "close:2:3"], 0.2) == [False, True]
    assert a.first(["close:1:3", "close:2:3"], 0.2) == [False, False]
    time.sleep(0.3)
    assert b.first(["close:1:3"], 0.2) == [True]
