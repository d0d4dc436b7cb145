from __future__ import annotations

import pytest

from service.sandbox.fake_telegram import FakeTelegram
from service.sandbox.fake_twilio import FakeTwilio
from service.sandbox.server import ServerThread

TOKEN = "123456:TEST-token_abc"


@pytest.fixture
def fake_telegram():
    fake = FakeTelegram(TOKEN)
    with ServerThread(fake.app) as url:
        fake.url = url
        yield fake


@pytest.fixture
def fake_twilio():
    fake = FakeTwilio()
    fake.add_messaging_service("MG" + "1" * 32)
    with ServerThread(fake.app) as url:
        fake.url = url
        yield fake
