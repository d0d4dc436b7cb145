"""A PostgreSQL database of its own for one bench run, on the local server the tests use, dropped
when the run ends however it ends. Each bench imports it as ``bench.scratch`` (the repository's
root is on its ``sys.path``)."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator

from sqlalchemy import text

from service.store.db import make_engine

ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"


def url_of(name: str) -> str:
    return f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"


def create_database(prefix: str, template: str | None = None) -> tuple[str, str]:
    """A new empty database (or a copy of ``template``): its name and URL."""
    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    admin = make_engine(ADMIN, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as c:
            c.execute(text(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else "")))
    finally:
        admin.dispose()
    return name, url_of(name)


def drop_database(name: str) -> None:
    """Drop it, closing whatever connections a killed process left open to it."""
    admin = make_engine(ADMIN, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as c:
            c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()


@contextlib.contextmanager
def scratch_database(prefix: str) -> Iterator[str]:
    """``create_database`` for the ``with`` block; its URL."""
    name, url = create_database(prefix)
    try:
        yield url
    finally:
        drop_database(name)
