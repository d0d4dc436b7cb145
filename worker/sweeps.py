"""The deadline sweep, as plain functions (the beat task calls one; so does bench/deadlines).

The sweep does not close phases itself: one process closing 400 phases one after the other makes
the last one wait for all the others. It enqueues `lupus.close_phase(game, phase)` for each due
game, so every worker process shares the closes. The task is idempotent (a stale phase number is
ignored) and two workers on one game queue on its row lock, so a duplicate costs a read, not a
second close. A mark per (game, phase, deadline) keeps the sweeps that follow from enqueueing it
again while it waits in the queue; when the mark expires and the game is still due, the task was
lost (or the queue is that long) and it is enqueued again: a restart never loses a deadline. Once a
worker holds the task, the mark is its lease (`worker.leases`): renewed while that worker lives,
lapsing within seconds of its death, so the next sweep hands the close to a live worker.

A game whose deadline falls before the next sweep (`ahead`: the sweep interval and a margin, a few
seconds) is enqueued now with that deadline, and its task waits in the worker until then (a
countdown of seconds, never hours: see worker.celery_app), so a phase closes when it is due rather
than at the first sweep after it. The deadline is part of the mark: a host who moves it gets a
task for the new one, and the task for the old one finds the phase not due and does nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from service.game.app import Service
from worker.marks import Marks

SWEEP_LIMIT = 2000  # due games read per sweep, most overdue first (marked ones are skipped)
MARK_SECONDS = 60.0  # how long an enqueued close is trusted to be on its way (after its deadline)


def close_key(game_id: int, phase_no: int, deadline: float) -> str:
    """The mark of one close: the game, its phase and that phase's deadline (POSIX seconds)."""
    return f"close:{game_id}:{phase_no}:{deadline:.3f}"


def enqueue_due(
    svc: Service,
    marks: Marks,
    enqueue: Callable[[int, int, datetime], object],
    limit: int = SWEEP_LIMIT,
    mark_seconds: float = MARK_SECONDS,
    ahead: float = 0.0,
) -> int:
    """Enqueue a close for every game due now or within `ahead` seconds that was not enqueued in
    the last `mark_seconds` (plus `ahead`), or whose lease lapsed: `enqueue(game, phase, deadline)`,
    to close now if the deadline passed, else at it. The query reads only those games (the deadline
    index: games not due cost nothing)."""
    now = svc.clock()
    due = svc.deadlines(now + timedelta(seconds=ahead), limit=limit)
    keys = [close_key(game_id, phase_no, deadline.timestamp()) for game_id, phase_no, deadline in due]
    new = marks.first(keys, mark_seconds + ahead)
    for (game_id, phase_no, deadline), first in zip(due, new, strict=True):
        if first:
            enqueue(game_id, phase_no, deadline)
    return sum(new)
