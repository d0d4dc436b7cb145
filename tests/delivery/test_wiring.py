from __future__ import annotations

from typing import Any

from service.delivery.limiter import MemoryLimiter, RedisLimiter
from service.delivery.wiring import make_delivery
from service.settings import Settings

from .conftest import REDIS_URL, TOKEN

NO_CHANNEL = dict(
    TELEGRAM_BOT_TOKEN=None,
    TWILIO_ACCOUNT_SID=None,
    TWILIO_AUTH_TOKEN=None,
    TWILIO_FROM_NUMBER=None,
    TWILIO_MESSAGING_SERVICE_SID=None,
    REDIS_URL=None,
)


def settings(**values: Any) -> Settings:
    """These settings and none of the environment's channels."""
    return Settings(_env_file=None, **{**NO_CHANNEL, **values})  # type: ignore[call-arg]


def test_channels_without_credentials_are_off():
    d = make_delivery(settings())
    assert d.senders == {} and isinstance(d.limiter, MemoryLimiter)
    assert d.off == {
        "telegram": "TELEGRAM_BOT_TOKEN is not set",
        "sms": "TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN and TWILIO_FROM_NUMBER or "
        "TWILIO_MESSAGING_SERVICE_SID are not set",
    }
    half = make_delivery(settings(TWILIO_ACCOUNT_SID="AC1", TWILIO_AUTH_TOKEN="t"))
    assert half.off["sms"] == "TWILIO_FROM_NUMBER or TWILIO_MESSAGING_SERVICE_SID is not set"


def test_both_channels_end_to_end_through_the_stand_ins(fake_telegram, fake_twilio, redis_db):
    d = make_delivery(
        settings(
            TELEGRAM_BOT_TOKEN=TOKEN,
            TELEGRAM_API_URL=fake_telegram.url,
            TWILIO_ACCOUNT_SID=fake_twilio.account_sid,
            TWILIO_AUTH_TOKEN=fake_twilio.auth_token,
            TWILIO_FROM_NUMBER="+15005550006",
            TWILIO_API_URL=fake_twilio.url,
            PUBLIC_URL="https://lupus.example/",
            REDIS_URL=REDIS_URL,
        )
    )
    assert d.off == {} and isinstance(d.limiter, RedisLimiter)
    for channel, address in (("telegram", "42"), ("sms", "+393330000001")):
        sender = d.senders[channel]
        assert d.limiter.try_acquire(sender.channel, "private", address, cost=sender.cost("ciao")) == 0
        assert sender.send(address, "ciao", dedup_key=f"{channel}:1").ok
    d.close()
    assert fake_telegram.sent(42)[0]["text"] == "ciao"
    [sms] = fake_twilio.messages()
    assert sms["status_callback"] == "https://lupus.example/sms/twilio/status?key=sms%3A1"
    # The channel-wide budgets are keyed by the bot and by the sender number.
    keys = sorted(k.decode() for k in redis_db.keys("lupus:rl:*"))
    assert keys == ["lupus:rl:sms:+15005550006", "lupus:rl:telegram:123456", "lupus:rl:telegram:123456:42"]
