"""Connections, transactions and the game lock.

PostgreSQL serializes commands on one game with ``SELECT ... FOR UPDATE`` on its row.
SQLite has no row locks (SQLAlchemy silently drops FOR UPDATE), so every transaction
there starts with ``BEGIN IMMEDIATE``: writers queue one at a time for the whole file,
which is plenty for a game played by message. Either way each write also bumps the game's
``version`` with a compare-and-set, so a lost update cannot happen silently.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

from sqlalchemy import JSON, CursorResult, Engine, bindparam, create_engine, event, insert, inspect, or_, text, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, SQLModel, col, select

from service.store.models import Game


class Conflict(RuntimeError):
    """The game changed under us (compare-and-set failed): retry the whole command."""


def is_sqlite(url: str) -> bool:
    return url.startswith("sqlite")


def make_engine(url: str, pre_ping: bool = True, **kw: Any) -> Engine:
    """``pre_ping``: test each pooled connection with a round trip before lending it (PostgreSQL).
    A caller that retries a transaction on ``OperationalError`` (``Service.run``) can go without:
    a connection found dead then fails its first statement, SQLAlchemy drops it and every older one
    in the pool, and the retry runs on a new one."""
    if is_sqlite(url):
        path = url.split("///", 1)[1] if "///" in url else ""
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 60}, **kw)
        _serialize_sqlite(engine)
        return engine
    return create_engine(url, pool_pre_ping=pre_ping, **kw)


def _serialize_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        # Let SQLAlchemy, not pysqlite, decide when transactions begin (the documented recipe).
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA busy_timeout=60000")
        cur.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")


@contextmanager
def transaction(engine: Engine) -> Iterator[Session]:
    """One transaction: commit on success, roll back on any error. What it holds back from the
    database until commit (or a read that needs it) is its ``service.store.unit.Unit``."""
    with Session(engine, expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


# The hot path's statements are built once: SQLAlchemy then finds each one's compiled form by a cache
# key memoized on the object, where a statement built per call is built and keyed anew every time.
_LOCK_BY_ID = (
    select(Game).where(Game.id == bindparam("key")).with_for_update().execution_options(populate_existing=True)
)
_LOCK_BY_CODE = (
    select(Game).where(Game.code == bindparam("key")).with_for_update().execution_options(populate_existing=True)
)
_INSERT_NEW: dict[tuple[str, str, tuple[str, ...], tuple[str, ...]], Any] = {}


def lock_game(session: Session, game_id: int | None = None, *, code: str | None = None) -> Game | None:
    """Load a game for writing, by id or by its code: a row lock on PostgreSQL (SQLite is already
    serialized). By code it is one statement where a look-up and then the lock took two."""
    stmt, key = (_LOCK_BY_ID, game_id) if code is None else (_LOCK_BY_CODE, code)
    return session.exec(stmt, params={"key": key}).first()


_LOCK_AHEAD = (
    select(Game.id)
    .where(
        or_(col(Game.code).in_(bindparam("codes", expanding=True)), col(Game.id).in_(bindparam("ids", expanding=True)))
    )
    .order_by(col(Game.id))
    .with_for_update()
)


def lock_games_ahead(session: Session, codes: set[str], ids: set[int]) -> None:
    """Lock, in one statement and in the order of their ids, the games a batch of commands is
    likely to lock one by one (PostgreSQL; SQLite is already serialized). Two web processes'
    batches then take the games they share in the same order and wait for each other at most a
    batch, where taking them in each batch's own order could lock them in a cycle: both waited out
    ``lock_timeout``, then ran every command again alone (a p99 of 260 ms with two processes). A
    command that then locks a game of these waits for nothing; one that locks another game locks it
    as before."""
    if len(codes) + len(ids) > 1 and session.get_bind().dialect.name != "sqlite":
        session.exec(_LOCK_AHEAD, params={"codes": sorted(codes), "ids": sorted(ids)}).all()


def insert_new(session: Session, model: type[SQLModel], key: tuple[str, ...], **values: Any) -> int | None:
    """``INSERT ... ON CONFLICT (key) DO NOTHING RETURNING id``: the new row's id, or None when a row
    with that key exists (or is being written by a transaction that then commits: PostgreSQL waits
    for it). One statement where a look-up and an insert took two."""
    table = cast("Any", model).__table__
    dialect = session.get_bind().dialect.name
    cache_key = (dialect, table.name, key, tuple(values))
    stmt = _INSERT_NEW.get(cache_key)
    if stmt is None:
        ins = sqlite_insert(table) if dialect == "sqlite" else pg_insert(table)
        stmt = (
            ins.values({name: bindparam(name) for name in values})
            .on_conflict_do_nothing(index_elements=list(key))
            .returning(table.c.id)
        )
        _INSERT_NEW[cache_key] = stmt
    row = session.execute(stmt, values).first()
    return int(row[0]) if row is not None else None


_BUMPS: dict[frozenset[str], Any] = {}


def bump(session: Session, game: Game) -> None:
    """Compare-and-set the game's version, in the same statement as the row's other changes (one
    UPDATE of the game per command); everything else is flushed as usual."""
    assert game.id is not None
    old = game.version
    state = inspect(game)
    changed: dict[str, Any] = {}
    for attr in state.mapper.column_attrs:
        added = state.attrs[attr.key].history.added
        if added and attr.key != "version":
            changed[attr.key] = added[0]
    # Written below, so the game is as loaded from the row: a flush has nothing to do for it (setting
    # each value as committed left it marked modified, and every flush then walked it for nothing).
    state._commit_all(state.dict, session.identity_map)
    session.flush()
    # On the table, not the mapped class: the ORM's bulk UPDATE would look for the row among the
    # session's objects to synchronize it, which committing the values does here for what we know.
    # One statement for each set of columns, built once (see the hot statements below).
    stmt = _BUMPS.get(frozenset(changed))
    if stmt is None:
        table = cast("Any", Game).__table__
        stmt = (
            update(table)
            .where(table.c.id == bindparam("_id"), table.c.version == bindparam("_old"))
            .values(version=bindparam("_new"), **{k: bindparam(f"_{k}") for k in changed})
        )
        _BUMPS[frozenset(changed)] = stmt
    result = cast(
        "CursorResult[Any]",
        session.connection().execute(
            stmt, {"_id": game.id, "_old": old, "_new": old + 1, **{f"_{k}": v for k, v in changed.items()}}
        ),
    )
    if result.rowcount != 1:
        raise Conflict(f"game {game.id} changed under this command")
    set_committed_value(game, "version", old + 1)


def alembic_config(url: str) -> Any:
    from alembic.config import Config

    root = Path(__file__).resolve().parent
    cfg = Config()
    cfg.set_main_option("script_location", str(root / "migrations"))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def upgrade(url: str, revision: str = "head") -> None:
    """``alembic upgrade head`` for this database (what the release process runs)."""
    from alembic import command

    if is_sqlite(url):
        make_engine(url).dispose()  # makes the folder for the file
    command.upgrade(alembic_config(url), revision)


_UNNEST: dict[tuple[str, tuple[str, ...], bool], Any] = {}


def insert_rows(session: Session, table: Any, rows: Sequence[Mapping[str, Any]], returning: bool = False) -> list[int]:
    """Insert ``rows`` (each with the same columns) in one statement; with ``returning``, their new
    ids in the order of ``rows``.

    On PostgreSQL the statement's text does not depend on how many rows there are: each column goes
    as one array, ``INSERT ... SELECT ... FROM unnest(...)``. A multi-row ``VALUES`` (SQLAlchemy's
    "insertmanyvalues") is a new text for every number of rows, which psycopg converts again and
    PostgreSQL parses and plans again each time; this one psycopg prepares once per connection.
    The ids a sequence gives one INSERT rise in the order its rows are inserted, which is the
    ``ORDER BY`` of the arrays' positions: sorted, they are the rows' (as SQLAlchemy's own
    ``sort_by_parameter_order`` reads them)."""
    if not rows:
        return []
    conn = session.connection()
    if conn.dialect.name != "postgresql":
        stmt = insert(table)
        if not returning:
            conn.execute(stmt, list(rows))
            return []
        return list(conn.execute(stmt.returning(table.c.id, sort_by_parameter_order=True), list(rows)).scalars())
    names = tuple(rows[0])
    key = (table.name, names, returning)
    unnest = _UNNEST.get(key)
    if unnest is None:
        cols = ", ".join(names)
        arrays = ", ".join(f"CAST(:{n} AS {table.c[n].type.compile(conn.dialect)}[])" for n in names)
        unnest = _UNNEST[key] = text(
            f"INSERT INTO {table.name} ({cols}) SELECT {cols} FROM unnest({arrays}) "
            f"WITH ORDINALITY AS u({cols}, n) ORDER BY n" + (" RETURNING id" if returning else "")
        )
    json_cols = {n for n in names if isinstance(table.c[n].type, JSON)}
    # JSON goes as text (None as JSON's null, as SQLAlchemy's JSON type writes it).
    params = {n: [json.dumps(r[n]) for r in rows] if n in json_cols else [r[n] for r in rows] for n in names}
    result = conn.execute(unnest, params)
    return sorted(result.scalars()) if returning else []
