"""Fixtures for the reliability tests: a PostgreSQL database of their own (created for the
session, dropped after), and the service harness of ``tests/service`` on it.

Tests marked ``slow`` run only when asked for (``pytest -m slow``): the default suite, which
CI runs, keeps their short versions.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, text

from service.store.db import make_engine
from tests.databases import flushed_redis, no_postgres, redis_url, throwaway_pg
from tests.service.conftest import TABLES, Harness, _pg_available
from tests.worker.test_worker import fake  # noqa: F401 (the stand-in Telegram API, a fixture of the worker tests)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "slow" in (config.getoption("markexpr", "") or ""):
        return
    here = os.path.dirname(__file__)
    keep: list[pytest.Item] = []
    slow: list[pytest.Item] = []
    for item in items:
        (slow if item.get_closest_marker("slow") and str(item.path).startswith(here) else keep).append(item)
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = keep


@pytest.fixture(scope="session")
def reliability_pg() -> Iterator[str]:
    if not _pg_available():
        no_postgres()
    with throwaway_pg("lupus_rel") as url:
        yield url


@pytest.fixture
def pg(reliability_pg: str) -> Iterator[Engine]:
    """An empty, migrated PostgreSQL database with room for many connections at once."""
    eng = make_engine(reliability_pg, pool_size=40, max_overflow=10)
    with eng.begin() as c:
        c.execute(text(f"TRUNCATE {TABLES} RESTART IDENTITY CASCADE"))
    yield eng
    eng.dispose()


@pytest.fixture
def pg_h(pg: Engine) -> Harness:
    return Harness(pg)


@pytest.fixture
def redis_worker_db() -> Iterator[str]:
    """This package's own Redis database (15), flushed around the test."""
    url = redis_url(15)
    with flushed_redis(url):
        yield url
