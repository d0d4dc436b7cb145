from __future__ import annotations

from service.delivery.limiter import MemoryLimiter, RedisLimiter
from service.delivery.wiring import make_delivery

from .conftest import REDIS_URL, TOKEN


def test_channels_without_credentials_are_off():
    d = make_delivery()
    assert d.senders == {} and isinstance(d.limiter, MemoryLimiter)
    assert d.off == {"telegram": "TELEGRAM_BOT_TOKEN is not set",
                     "sms": "TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN and TWILIO_FROM_NUMBER or "
                            "TWILIO_MESSAGING_SERVICE_SID are not set"}
    half = make_delivery(twilio_account_sid="AC1", twilio_auth_token="t")
    assert half.off["sms"] == "TWILIO_FROM_NUMBER or TWILIO_MESSAGING_SERVICE_SID is not set"


def test_both_channels_end_to_end_through_the_stand_ins(fake_telegram, fake_twilio, redis_db):
    d = make_delivery(telegram_bot_token=TOKEN, telegram_api_url=fake_telegram.url,
                      twilio_account_sid=fake_twilio.account_sid, twilio_auth_token=fake_twilio.auth_token,
                      twilio_from_number="+15005550006", twilio_api_url=fake_twilio.url,
                      public_url="https://lupus.example/", redis_url=REDIS_URL)
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
