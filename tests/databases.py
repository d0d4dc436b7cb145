"""Throwaway databases for tests: a PostgreSQL database of one's own, a flushed Redis db."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import pytest
import redis
from sqlalchemy import text

from service.db import make_engine, upgrade

PG_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
# Where the tests' Redis runs: 6379 as .ci/run starts it; LUPUS_TEST_REDIS_PORT lets two checkouts
# run their suites side by side without flushing each other's databases.
REDIS_PORT = int(os.environ.get("LUPUS_TEST_REDIS_PORT", "6379"))


def no_postgres() -> NoReturn:
    """PostgreSQL is not running: skip, except where CI says the PostgreSQL half of the suite must
    run (``LUPUS_REQUIRE_POSTGRES``, set by .ci/run): there a server that did not come up fails."""
    msg = "PostgreSQL is not running on 127.0.0.1:5432"
    if os.environ.get("LUPUS_REQUIRE_POSTGRES"):
        pytest.fail(msg + " and LUPUS_REQUIRE_POSTGRES is set")
    pytest.skip(msg)


def redis_url(db: int) -> str:
    """The URL of the tests' Redis database number `db` (each test package keeps its own)."""
    return f"redis://127.0.0.1:{REDIS_PORT}/{db}"


@contextmanager
def throwaway_pg(prefix: str) -> Iterator[str]:
    """A new, migrated PostgreSQL database named after the caller, dropped afterwards."""
    name = f"{prefix}_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    admin = make_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'CREATE DATABASE "{name}"'))
    url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    try:
        upgrade(url)
        yield url
    finally:
        with admin.connect() as c:
            c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@contextmanager
def flushed_redis(url: str) -> Iterator[redis.Redis]:
    """A Redis database flushed before and after (each test package has its own number)."""
    client = redis.Redis.from_url(url)
    try:
        client.ping()
    except redis.ConnectionError:
        pytest.skip("no Redis server on 127.0.0.1:6379 (.ci/run starts one)")
    client.flushdb()
    try:
        yield client
    finally:
        client.flushdb()
        client.close()
