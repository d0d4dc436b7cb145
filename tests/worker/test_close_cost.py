"""What a phase close costs the database: a fixed number of statements, however many players
it writes to, counts absences for, or warns (each table written in one statement, nothing read
twice), so the worker keeps up when many games close at once (bench/deadlines)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Engine, event, text

from service.store.db import make_engine
from tests.service.conftest import TABLES

from .conftest import Table


@pytest.fixture
def pg(pg_url: str) -> Iterator[Engine]:
    # PostgreSQL's: SQLite (the embedded mode) writes new rows one statement each.
    eng = make_engine(pg_url)
    with eng.begin() as c:
        c.execute(text(f"TRUNCATE {TABLES}, absences RESTART IDENTITY CASCADE"))
    yield eng
    eng.dispose()


def _statements_per_close(t: Table, closes: int) -> list[int]:
    counts: list[int] = []
    seen: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        seen.append(statement)

    event.listen(t.db, "before_cursor_execute", count)
    try:
        for _ in range(closes):
            game = t.game()
            assert game.deadline is not None and game.id is not None
            t.clock.now = max(t.clock.now, game.deadline)
            seen.clear()
            assert t.svc.close_phase(game.id, game.phase_no)
            counts.append(len([s for s in seen if not s.startswith(("BEGIN", "SAVEPOINT", "RELEASE"))]))
    finally:
        event.remove(t.db, "before_cursor_execute", count)
    return counts


@pytest.mark.postgres
def test_a_close_costs_a_few_statements_whatever_the_players(pg: Engine) -> None:
    # Nobody acts: every close counts an absence for each player who had something to do, warns
    # them, and then tells the host of each one (the most a close writes).
    t = Table(pg, INACTIVE_PHASES=1)
    t.open()
    counts = _statements_per_close(t, 6)
    assert t.game().phase_no > 6
    # lock; seats (with the last event's number); people; moves; absences; held rows; volunteers
    # (once); then one write per table: absences (inserts, updates), events, outbox, seats, game.
    assert max(counts) <= 13, counts
