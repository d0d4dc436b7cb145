from __future__ import annotations

import pytest

from service.sandbox.fake_telegram import FakeTelegram
from service.sandbox.fake_twilio import FakeTwilio
from service.sandbox.server import ServerThread
from tests.databases import flushed_redis, redis_url

TOKEN = "123456:TEST-token_abc"
REDIS_URL = redis_url(9)  # this package's own database, flushed around each test


@pytest.fixture
def redis_db():
    with flushed_redis(REDIS_URL) as client:
        yield client


class ServedTelegram(FakeTelegram):
    url: str
    """Where the test serves it."""


class ServedTwilio(FakeTwilio):
    url: str
    """Where the test serves it."""


@pytest.fixture
def fake_telegram():
    fake = ServedTelegram(TOKEN)
    with ServerThread(fake.app) as url:
        fake.url = url
        yield fake


@pytest.fixture
def fake_twilio():
    fake = ServedTwilio()
    fake.add_messaging_service("MG" + "1" * 32)
    with ServerThread(fake.app) as url:
        fake.url = url
        yield fake
