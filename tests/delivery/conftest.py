from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from service.sandbox.fake_telegram import FakeTelegram
from service.sandbox.fake_twilio import FakeTwilio
from service.sandbox.server import ServerThread
from service.store.db import make_engine
from tests.databases import flushed_redis, redis_url
from tests.service.conftest import pg_url, sqlite_template  # noqa: F401 - databases of the service's tests

TOKEN = "123456:TEST-token_abc"
REDIS_URL = redis_url(9)  # this package's own database, flushed around each test


@pytest.fixture
def redis_db() -> Iterator[Any]:
    with flushed_redis(REDIS_URL) as client:
        yield client


class ServedTelegram(FakeTelegram):
    url: str
    """Where the test serves it."""


class ServedTwilio(FakeTwilio):
    url: str
    """Where the test serves it."""


@pytest.fixture
def fake_telegram() -> Iterator[ServedTelegram]:
    fake = ServedTelegram(TOKEN)
    with ServerThread(fake.app) as url:
        fake.url = url
        yield fake


@pytest.fixture
def fake_twilio() -> Iterator[ServedTwilio]:
    fake = ServedTwilio()
    fake.add_messaging_service("MG" + "1" * 32)
    with ServerThread(fake.app) as url:
        fake.url = url
        yield fake


@pytest.fixture
def lite(tmp_path: Path, sqlite_template: Path) -> Iterator[Engine]:  # noqa: F811
    """A migrated SQLite database of the test's own."""
    path = tmp_path / "lupus.db"
    shutil.copy(sqlite_template, path)
    eng = make_engine(f"sqlite:///{path}")
    yield eng
    eng.dispose()
