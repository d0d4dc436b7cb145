"""The app the webhook bench serves: the real one from ``service.web.create_app`` (settings from the
environment, as in production). ``uvicorn --factory bench.webhook.server:app``.

With ``BENCH_CAPTURE`` set to a folder, each web process writes there every SQL statement it sends
to PostgreSQL while the file ``on`` exists in that folder (a SQLAlchemy ``before_cursor_execute``
hook, the statement as the driver gets it, each parameter as the SQL literal psycopg makes of it),
and each commit and rollback: the floor's pgbench scripts are built from them (``floor.py``), so
they follow the code instead of a copy of it. Off, the hook costs one ``stat`` a statement.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from sqlalchemy import event
from sqlalchemy.engine import Engine

from service import web


def capture(folder: Path) -> None:
    on = folder / "on"
    out = (folder / f"statements-{os.getpid()}.jsonl").open("a", buffering=1)

    def literal(cursor: Any, value: Any) -> str:
        from psycopg import sql

        return sql.Literal(value).as_string(cursor.connection)

    def write(conn: Any, **entry: Any) -> None:
        out.write(json.dumps({"conn": f"{os.getpid()}:{id(conn.connection.dbapi_connection)}", **entry}) + "\n")

    @event.listens_for(Engine, "before_cursor_execute")
    def statement(conn: Any, cursor: Any, sql_text: str, params: Any, context: Any, executemany: bool) -> None:
        if not on.exists():
            return
        # One dict of named parameters, or (executemany) a sequence of them; SQLAlchemy's multi-row
        # INSERTs come as one dict, each row's names suffixed (``seq__0``, ``seq__1``).
        rows = [params] if isinstance(params, dict) or not params else list(params)
        rendered = [{k: literal(cursor, v) for k, v in row.items()} for row in rows]
        # An array's length (a column of rows inserted at once): the floor makes as many new values.
        lengths = [{k: len(v) for k, v in row.items() if isinstance(v, list)} for row in rows]
        write(conn, sql=sql_text, rows=rendered, lengths=lengths)

    @event.listens_for(Engine, "commit")
    def commit(conn: Any) -> None:
        if on.exists():
            write(conn, end="commit")

    @event.listens_for(Engine, "rollback")
    def rollback(conn: Any) -> None:
        if on.exists():
            write(conn, end="rollback")


def app() -> FastAPI:
    if os.environ.get("BENCH_CAPTURE"):
        capture(Path(os.environ["BENCH_CAPTURE"]))
    return web.create_app()
