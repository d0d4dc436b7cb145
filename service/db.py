"""Connections, transactions and the game lock.

PostgreSQL serializes commands on one game with ``SELECT ... FOR UPDATE`` on its row.
SQLite has no row locks (SQLAlchemy silently drops FOR UPDATE), so every transaction
there starts with ``BEGIN IMMEDIATE``: writers queue one at a time for the whole file,
which is plenty for a game played by message. Either way each write also bumps the game's
``version`` with a compare-and-set, so a lost update cannot happen silently.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

from sqlalchemy import CursorResult, Engine, create_engine, event, inspect, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, SQLModel, select

from .models import Game


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
    """One unit of work: commit on success, roll back on any error."""
    with Session(engine, expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


def lock_game(session: Session, game_id: int | None = None, *, code: str | None = None) -> Game | None:
    """Load a game for writing, by id or by its code: a row lock on PostgreSQL (SQLite is already
    serialized). By code it is one statement where a look-up and then the lock took two."""
    where = Game.id == game_id if code is None else Game.code == code
    stmt = select(Game).where(where).with_for_update().execution_options(populate_existing=True)
    return session.exec(stmt).first()


def insert_new(session: Session, model: type[SQLModel], key: tuple[str, ...], **values: Any) -> int | None:
    """``INSERT ... ON CONFLICT (key) DO NOTHING RETURNING id``: the new row's id, or None when a row
    with that key exists (or is being written by a transaction that then commits: PostgreSQL waits
    for it). One statement where a look-up and an insert took two."""
    table = cast("Any", model).__table__
    ins = sqlite_insert(table) if session.get_bind().dialect.name == "sqlite" else pg_insert(table)
    stmt = ins.values(**values).on_conflict_do_nothing(index_elements=list(key)).returning(table.c.id)
    row = session.execute(stmt).first()
    return int(row[0]) if row is not None else None


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
    for key, value in changed.items():  # written below, so the flush leaves the row alone
        set_committed_value(game, key, value)
    session.flush()
    # On the table, not the mapped class: the ORM's bulk UPDATE would look for the row among the
    # session's objects to synchronize it, which set_committed_value does here for what we know.
    table = cast("Any", Game).__table__
    stmt = (update(table).where(table.c.id == game.id, table.c.version == old)
            .values(version=old + 1, **changed))
    result = cast("CursorResult[Any]", session.connection().execute(stmt))
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
