"""The deadline sweep, as plain functions (the beat task calls one; so does bench/deadlines).

The sweep does not close phases itself: one process closing 400 phases one after the other makes
the last one wait for all the others. It enqueues `lupus.close_phase(game, phase)` for each due
game, so every worker process shares the closes. The task is idempotent (a stale phase number is
ignored) and two workers on one game queue on its row lock, so a duplicate costs a read, not a
second close. A mark per (game, phase) keeps the sweeps that follow from enqueueing it again while
it waits in the queue; when the mark expires and the game is still due, the task was lost (or the
queue is that long) and it is enqueued again: a restart never loses a deadline.
"""

from __future__ import annotations

from collections.abc import Callable

from service.app import Service
from worker.marks import Marks

SWEEP_LIMIT = 2000  # due games read per sweep, most overdue first (marked ones are skipped)
MARK_SECONDS = 60.0  # how long an enqueued close is trusted to be on its way


def enqueue_due(svc: Service, marks: Marks, enqueue: Callable[[int, int], object],
                limit: int = SWEEP_LIMIT, mark_seconds: float = MARK_SECONDS) -> int:
    """Enqueue a close for every due game not enqueued in the last `mark_seconds`. The query reads
    only due games (the deadline index: games not due cost nothing)."""
    due = svc.due_games(limit=limit)
    new = marks.first([f"close:{game_id}:{phase_no}" for game_id, phase_no in due], mark_seconds)
    for (game_id, phase_no), first in zip(due, new, strict=True):
        if first:
            enqueue(game_id, phase_no)
    return sum(new)
