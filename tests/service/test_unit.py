"""The transaction's unit of work (``service.store.unit``): staged rows reach the database in one INSERT
per table at commit, or before a read that needs them and no earlier, and a rollback drops them."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, event
from sqlmodel import Session, col, select

from service.store.db import transaction
from service.store.models import Game, GameEvent, Identity, Outbox, utcnow
from service.store.unit import Letter, unit_of

_N = itertools.count(1)


@contextmanager
def _statements(db: Engine) -> Iterator[list[str]]:
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        seen.append(" ".join(statement.split()).upper())

    event.listen(db, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(db, "before_cursor_execute", record)


def _setup(db: Engine) -> tuple[int, int]:
    n = next(_N)
    with transaction(db) as s:
        person = Identity(channel="test", address=f"u{n}")
        game = Game(code=f"U{n:04d}")
        s.add_all([person, game])
        s.flush()
        assert person.id is not None and game.id is not None
        return person.id, game.id


def _row(person: int, game: int, tag: str, status: str = "pending") -> Letter:
    return Letter(
        identity_id=person,
        channel="test",
        game_id=game,
        key="k",
        text=tag,
        status=status,
        dedup_key=f"unit:{game}:{tag}",
        not_before=utcnow(),
        created_at=utcnow(),
    )


def _inserts(seen: list[str], table: str) -> int:
    return sum(s.startswith(f"INSERT INTO {table.upper()} ") for s in seen)


def _outbox_inserts(db: Engine, rows: int) -> int:
    """Statements for ``rows`` outbox rows written together: one on PostgreSQL; SQLite, whose
    RETURNING keeps no order, takes one a row (the ids must follow the order the rows were staged)."""
    return 1 if db.dialect.name == "postgresql" else rows


def _held(row: Letter) -> bool:
    return row.status == "held"


def test_staged_rows_go_in_one_insert_per_table_at_commit_and_not_before(db: Engine) -> None:
    person, game = _setup(db)
    with _statements(db) as seen, transaction(db) as s:
        unit = unit_of(s)
        for seq in (1, 2, 3):
            unit.log(
                game_id=game,
                seq=seq,
                phase_no=0,
                kind="event",
                key="k",
                data={},
                audience=None,
                channel=None,
                created_at=utcnow(),
            )
            unit.stage(_row(person, game, f"t{seq}"))
        assert unit.last_logged(game) == 3
        s.connection()  # the transaction begins; nothing staged is written by that
        assert _inserts(seen, "game_events") == _inserts(seen, "outbox") == 0
    assert _inserts(seen, "game_events") == 1
    assert _inserts(seen, "outbox") == _outbox_inserts(db, 3)
    with Session(db) as s:
        assert [o.text for o in s.exec(select(Outbox).where(Outbox.game_id == game).order_by(col(Outbox.id)))] == [
            "t1",
            "t2",
            "t3",
        ]
        assert len(s.exec(select(GameEvent).where(GameEvent.game_id == game)).all()) == 3


def test_a_read_writes_only_what_it_could_find_and_flushes_only_its_own_table(db: Engine) -> None:
    person, game = _setup(db)
    with _statements(db) as seen, transaction(db) as s:
        unit = unit_of(s)
        loaded = s.get(Game, game)
        assert loaded is not None
        unit.stage(_row(person, game, "plain"))
        loaded.phase_no = 5  # a pending change of another table
        with unit.reading(Outbox, staged=_held):  # no held row staged: nothing to write, nothing to flush
            assert s.exec(select(Outbox).where(Outbox.game_id == game)).all() == []
        assert _inserts(seen, "outbox") == 0 and not any(x.startswith("UPDATE GAMES") for x in seen)
        unit.stage(_row(person, game, "held", status="held"))
        with unit.reading(Outbox, staged=_held):  # a held row staged: every staged row goes, in order
            found = s.exec(select(Outbox).where(Outbox.game_id == game).order_by(col(Outbox.id))).all()
        assert [o.text for o in found] == ["plain", "held"]
        assert _inserts(seen, "outbox") == _outbox_inserts(db, 2)
        assert not any(x.startswith("UPDATE GAMES") for x in seen)
        found[1].status = "merged"  # a change to a written row: the next read of the outbox sees it
        with unit.reading(Outbox, staged=_held):
            assert s.exec(select(Outbox).where(Outbox.game_id == game, Outbox.status == "held")).all() == []
    assert _inserts(seen, "outbox") == _outbox_inserts(db, 2)


def test_a_letter_changed_after_it_was_written_is_updated_before_a_read_and_at_commit(db: Engine) -> None:
    person, game = _setup(db)
    with _statements(db) as seen, transaction(db) as s:
        unit = unit_of(s)
        first, second = _row(person, game, "first"), _row(person, game, "second")
        unit.stage(first)
        unit.stage(second)
        with unit.reading(Outbox):
            assert first.id is not None and second.id is not None
        first.status = "merged"  # as Ctx.merge_texts does to a part already written
        with unit.reading(Outbox):
            pending = s.exec(select(Outbox.text).where(Outbox.game_id == game, Outbox.status == "pending")).all()
        assert pending == ["second"]
        second.status = "merged"
        updates = sum(x.startswith("UPDATE OUTBOX") for x in seen)
    assert sum(x.startswith("UPDATE OUTBOX") for x in seen) == updates + 1  # at commit, once
    with Session(db) as s:
        assert s.exec(select(Outbox.status).where(Outbox.game_id == game)).all() == ["merged", "merged"]


def test_a_letter_sets_every_column_of_the_outbox() -> None:
    # One INSERT statement for all letters: each must give every column (but the id) a value.
    columns = {c.name for c in Outbox.__table__.columns} - {"id"}  # type: ignore[attr-defined]
    assert set(_row(1, 1, "x").values()) == columns


def test_a_rollback_drops_what_was_staged(db: Engine) -> None:
    person, game = _setup(db)
    s = Session(db)
    try:
        unit_of(s).stage(_row(person, game, "gone"))
        unit_of(s).log(
            game_id=game,
            seq=1,
            phase_no=0,
            kind="event",
            key="k",
            data={},
            audience=None,
            channel=None,
            created_at=utcnow(),
        )
        s.connection()
        s.rollback()
        s.commit()
    finally:
        s.close()
    with Session(db) as s:
        assert s.exec(select(Outbox).where(Outbox.game_id == game)).all() == []
        assert s.exec(select(GameEvent).where(GameEvent.game_id == game)).all() == []


def test_a_batch_asks_the_unit_who_wrote_before_the_database(db: Engine) -> None:
    with transaction(db) as s:
        unit = unit_of(s)
        assert unit.known("test", "nobody") == (False, None)
        unit.know({("test", "nobody"): None})
        assert unit.known("test", "nobody") == (True, None)
        someone = Identity(channel="test", address="nobody")
        unit.remember(someone, "test", "nobody")
        assert unit.known("test", "nobody") == (True, someone)
