"""Building the senders and the limiter from configuration values (the settings object passes them).

A channel whose credentials are missing is simply off: it has no sender, and `/healthz` can say so.
Call `make_delivery` once per process (or lazily): the senders are fork-safe, but each process
should have one of each, not one per message.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from service.channels.sms.sender import TWILIO_API_URL, TwilioSender
from service.channels.telegram.sender import TELEGRAM_API_URL, TelegramSender
from service.delivery.limiter import Limiter, Policy, make_limiter, make_policy
from service.delivery.senders import Sender
from service.settings import TELEGRAM_PER_SECOND


@dataclass
class Delivery:
    senders: dict[str, Sender]
    limiter: Limiter
    off: dict[str, str] = field(default_factory=dict)  # channel -> why it is off

    def close(self) -> None:
        for sender in self.senders.values():
            sender.close()


def make_delivery(
    *,
    telegram_bot_token: str | None = None,
    telegram_api_url: str | None = None,
    twilio_account_sid: str | None = None,
    twilio_auth_token: str | None = None,
    twilio_from_number: str | None = None,
    twilio_messaging_service_sid: str | None = None,
    twilio_api_url: str | None = None,
    public_url: str | None = None,
    redis_url: str | None = None,
    redis_options: dict[str, object] | None = None,
    telegram_per_second: float = TELEGRAM_PER_SECOND,
    sms_segments_per_second: float = 1.0,
    policy: Policy | None = None,
) -> Delivery:
    senders: dict[str, Sender] = {}
    off: dict[str, str] = {}
    channel_ids: dict[str, str] = {}
    if telegram_bot_token:
        telegram = TelegramSender(telegram_bot_token, api_url=telegram_api_url or TELEGRAM_API_URL)
        senders["telegram"], channel_ids["telegram"] = telegram, telegram.bot_id
    else:
        off["telegram"] = "TELEGRAM_BOT_TOKEN is not set"
    missing = [name for name, value in (("TWILIO_ACCOUNT_SID", twilio_account_sid),
                                        ("TWILIO_AUTH_TOKEN", twilio_auth_token)) if not value]
    if not (twilio_from_number or twilio_messaging_service_sid):
        missing.append("TWILIO_FROM_NUMBER or TWILIO_MESSAGING_SERVICE_SID")
    if missing:
        off["sms"] = " and ".join(missing) + (" is" if len(missing) == 1 else " are") + " not set"
    else:
        callback = public_url.rstrip("/") + "/sms/twilio/status" if public_url else None
        sms = TwilioSender(twilio_account_sid or "", twilio_auth_token or "", from_number=twilio_from_number,
                           messaging_service_sid=twilio_messaging_service_sid,
                           api_url=twilio_api_url or TWILIO_API_URL, status_callback=callback)
        senders["sms"], channel_ids["sms"] = sms, sms.sender_id
    rules = policy or make_policy(telegram_per_second=telegram_per_second,
                                  sms_segments_per_second=sms_segments_per_second)
    limiter = make_limiter(redis_url, rules, channel_ids=channel_ids, redis_options=redis_options)
    return Delivery(senders, limiter, off)
