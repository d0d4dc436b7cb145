"""The deadline sweep, as a plain function (the task calls it; so does bench/deadlines)."""

from __future__ import annotations

import time

from service.app import Service

SWEEP_LIMIT = 500


def close_due(svc: Service, budget: float, limit: int = SWEEP_LIMIT) -> int:
    """Close due phases, most overdue first, for up to `budget` seconds; the rest wait one sweep.
    The query reads only due games (the deadline index; games not due cost nothing), and each close
    skips a game another worker holds (SKIP LOCKED), whose phase that worker is closing."""
    until = time.monotonic() + budget
    closed = 0
    for game_id, phase_no in svc.due_games(limit=limit):
        closed += svc.close_phase(game_id, phase_no, skip_locked=True)
        if time.monotonic() > until:
            break
    return closed
