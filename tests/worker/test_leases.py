"""A worker holding a close renews its mark as a short lease while it holds it, and only then: once
the task is acknowledged, or for another task, nothing is renewed (worker.leases)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import pytest

from worker.leases import Leases, lease_key
from worker.marks import MemoryMarks, RedisMarks
from worker.sweeps import close_key


@dataclass
class Request:  # what Celery's worker hands the task_received signal, as far as leases read it
    id: str
    name: str
    args: list[Any] = field(default_factory=list)
    acknowledged: bool = False


def test_only_a_close_enqueued_by_the_sweep_holds_a_lease() -> None:
    assert lease_key(Request("a", "lupus.close_phase", [3, 7, 1700000000.25])) == close_key(3, 7, 1700000000.25)
    assert lease_key(Request("b", "lupus.close_phase", [3, 7])) is None  # not the sweep's: no mark
    assert lease_key(Request("c", "lupus.dispatch", [[1, 2]])) is None


def test_a_held_close_is_renewed_until_it_is_acknowledged() -> None:
    marks = MemoryMarks()
    key = close_key(3, 7, 1700000000.0)
    assert marks.first([key], 600) == [True]  # the sweep's mark: trusted ten minutes in the queue
    leases = Leases(lambda: marks, 0.3)
    held = Request("a", "lupus.close_phase", [3, 7, 1700000000.0])
    leases.received(held)  # the mark is a 0.3 s lease at once
    leases.received(Request("b", "lupus.reminders"))
    for _ in range(3):
        time.sleep(0.2)
        assert leases.renew() == 1 and marks.first([key], 600) == [False]
    held.acknowledged = True  # run: no longer renewed, and it lapses
    assert leases.renew() == 0 and leases.held() == []
    time.sleep(0.35)
    assert marks.first([key], 600) == [True]


@pytest.mark.redis
def test_a_lease_lapses_when_its_holder_stops_renewing(redis_db: Any) -> None:
    sweep, worker = RedisMarks(redis_db), RedisMarks(redis_db)  # two processes
    key = close_key(3, 7, 1700000000.0)
    assert sweep.first([key], 600) == [True]
    leases = Leases(lambda: worker, 0.3)
    leases.received(Request("a", "lupus.close_phase", [3, 7, 1700000000.0]))
    assert sweep.first([key], 600) == [False]
    time.sleep(0.4)  # the holder died: no renewal
    assert sweep.first([key], 600) == [True]  # the next sweep hands it out again
