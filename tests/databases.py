"""Throwaway databases for tests: a PostgreSQL database of one's own, a flushed Redis db; and what a
test does when the server it needs is not there (``missing``): skip, loudly, on a developer's
machine; fail where CI requires the service (``LUPUS_REQUIRE_POSTGRES``, ``LUPUS_REQUIRE_REDIS``,
both set by .ci/run). ``tests/skips.py`` keeps the run honest about those skips."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import pytest
import redis
from sqlalchemy import text

from service.store.db import make_engine, upgrade

PG_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
# Where the tests' Redis runs: 6379 as .ci/run starts it; LUPUS_TEST_REDIS_PORT lets two checkouts
# run their suites side by side without flushing each other's databases.
REDIS_PORT = int(os.environ.get("LUPUS_TEST_REDIS_PORT", "6379"))


#: The services a test may need, by the environment variable that makes their absence a failure.
REQUIRE = {"PostgreSQL": "LUPUS_REQUIRE_POSTGRES", "Redis": "LUPUS_REQUIRE_REDIS"}


def missing(service: str, why: str) -> NoReturn:
    """``service`` ("PostgreSQL", "Redis") is not there (``why``: where it was looked for). Where
    its variable of ``REQUIRE`` is set (CI) the test fails; elsewhere it is skipped with a reason
    ``tests/skips.py`` recognises and counts in the run's summary."""
    require = REQUIRE[service]
    if os.environ.get(require):
        pytest.fail(f"{service} is not running: {why}, and {require} is set", pytrace=False)
    pytest.skip(f"{service} is not running: {why} ({require} is not set: CI fails instead)")


def no_postgres() -> NoReturn:
    """PostgreSQL is not running: skip, except where CI says the PostgreSQL half of the suite must
    run (``LUPUS_REQUIRE_POSTGRES``, set by .ci/run): there a server that did not come up fails."""
    missing("PostgreSQL", "nothing answers on 127.0.0.1:5432")


def no_redis(url: str) -> NoReturn:
    """Redis is not running where the tests look for it (``LUPUS_TEST_REDIS_PORT``, else 6379):
    skip, except under ``LUPUS_REQUIRE_REDIS`` (set by .ci/run), where it fails."""
    missing("Redis", f"nothing answers at {url}")


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
        client.close()
        no_redis(url)
    client.flushdb()
    try:
        yield client
    finally:
        client.flushdb()
        client.close()
