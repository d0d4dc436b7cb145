"""What the operator runs for SMS: ``lupus setup`` points the Twilio number's incoming texts at the
app (PUBLIC_URL/sms/twilio, POST); ``lupus doctor`` reads the number's configuration back from
Twilio and names what the runbook warns about."""

from __future__ import annotations

from typing import Any

from service.channels.base import FAIL, OK, SKIP, Check
from service.channels.sms.routes import PATH, STATUS_PATH
from service.settings import Settings

FIX = 'run `lupus setup`, or set it under the number\'s Messaging configuration, "A message comes in"'


def _url(cfg: Settings, path: str) -> str:
    return cfg.PUBLIC_URL.rstrip("/") + path


def _number(cfg: Settings) -> tuple[Any, list[Check]]:
    """The account's number TWILIO_FROM_NUMBER, or the lines that say why there is none to read."""
    if not (cfg.TWILIO_ACCOUNT_SID and cfg.TWILIO_AUTH_TOKEN):
        return None, [Check("twilio", SKIP, "off (TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN are not set)")]
    if not cfg.TWILIO_FROM_NUMBER:
        return None, [
            Check(
                "twilio number",
                SKIP,
                "a Messaging Service sends (TWILIO_MESSAGING_SERVICE_SID): check "
                "in the console that its Integration sends incoming messages to "
                f"{_url(cfg, PATH)} (not checked from here)",
            )
        ]
    from twilio.base.exceptions import TwilioRestException
    from twilio.rest import Client

    client = Client(cfg.TWILIO_ACCOUNT_SID, cfg.TWILIO_AUTH_TOKEN)
    client.api.base_url = cfg.TWILIO_API_URL
    try:
        numbers = client.incoming_phone_numbers.list(phone_number=cfg.TWILIO_FROM_NUMBER, limit=5)
    except TwilioRestException as e:
        return None, [
            Check(
                "twilio number",
                FAIL,
                f"Twilio refused ({e.status}, {e.code}): are TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN this account's?",
            )
        ]
    if not numbers:
        return None, [
            Check(
                "twilio number",
                FAIL,
                f"{cfg.TWILIO_FROM_NUMBER} is not a number of this account (TWILIO_FROM_NUMBER, in E.164: +39...)",
            )
        ]
    return numbers[0], []


def setup(cfg: Settings, fresh: bool = False) -> list[Check]:
    """Incoming texts to POST PUBLIC_URL/sms/twilio. A status callback on the number is left alone:
    ``doctor`` names it (the app asks for each text's report itself)."""
    if not (cfg.TWILIO_ACCOUNT_SID and cfg.TWILIO_AUTH_TOKEN):
        return []
    number, why = _number(cfg)
    if number is None:
        return why
    want = _url(cfg, PATH)
    number.update(sms_url=want, sms_method="POST")
    return [Check("twilio sms url", OK, f"incoming texts to {cfg.TWILIO_FROM_NUMBER} now go to POST {want}")]


def doctor(cfg: Settings) -> list[Check]:
    number, why = _number(cfg)
    if number is None:
        return why
    want = _url(cfg, PATH)
    out = []
    if number.sms_url != want or (number.sms_method or "POST").upper() != "POST":
        now = f"{number.sms_method} {number.sms_url}" if number.sms_url else "nowhere"
        out.append(Check("twilio sms url", FAIL, f"incoming texts go {now}, not to POST {want}: {FIX}"))
    else:
        out.append(Check("twilio sms url", OK, f"incoming texts go to POST {want}"))
    status = number.status_callback or ""
    if status.startswith(_url(cfg, STATUS_PATH)):
        out.append(
            Check(
                "twilio status url",
                FAIL,
                f"the number has a status callback ({status}): remove it. The "
                "app asks for each text's delivery report itself (with the text's key); "
                "reports sent to the number's URL carry none, and are refused",
            )
        )
    else:
        out.append(
            Check("twilio status url", OK, f"each text asks for its own delivery report, at {_url(cfg, STATUS_PATH)}")
        )
    return out
