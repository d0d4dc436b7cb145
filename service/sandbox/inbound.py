"""What Telegram and Twilio send *to* the service, built as they build it: Telegram updates (JSON,
with the webhook's secret header) and Twilio's form posts (incoming SMS and delivery status
callbacks, signed with `X-Twilio-Signature` as Twilio signs them). The sandbox page and the
service's tests use these to play players.
"""

from __future__ import annotations

import itertools
import secrets
import time
from typing import Any

from twilio.request_validator import RequestValidator

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
SIGNATURE_HEADER = "X-Twilio-Signature"
_update_ids = itertools.count(100_000_000)


def telegram_user(
    user_id: int, first_name: str, *, username: str | None = None, language_code: str = "it"
) -> dict[str, Any]:
    user: dict[str, Any] = {"id": user_id, "is_bot": False, "first_name": first_name, "language_code": language_code}
    if username:
        user["username"] = username
    return user


def telegram_chat(user_or_group: dict[str, Any] | int, title: str | None = None) -> dict[str, Any]:
    """A private chat with a user (pass the user), or a group (pass its negative id and title)."""
    if isinstance(user_or_group, dict):
        return {"id": user_or_group["id"], "first_name": user_or_group["first_name"], "type": "private"}
    return {"id": user_or_group, "title": title or f"Group {user_or_group}", "type": "group"}


def text_update(
    user: dict[str, Any],
    text: str,
    *,
    chat: dict[str, Any] | None = None,
    message_id: int = 1,
    update_id: int | None = None,
) -> dict[str, Any]:
    """A text message from `user` (in his private chat unless `chat` is given). A leading /command
    gets its bot_command entity, as Telegram adds it."""
    message: dict[str, Any] = {
        "message_id": message_id,
        "from": user,
        "chat": chat or telegram_chat(user),
        "date": int(time.time()),
        "text": text,
    }
    if text.startswith("/"):
        message["entities"] = [{"offset": 0, "length": len(text.split()[0]), "type": "bot_command"}]
    return {"update_id": next(_update_ids) if update_id is None else update_id, "message": message}


def callback_update(
    user: dict[str, Any], data: str, message: dict[str, Any], *, update_id: int | None = None
) -> dict[str, Any]:
    """A tap on an inline button of `message` (the bot's message, as the stand-in recorded it)."""
    query = {
        "id": str(secrets.randbits(63)),
        "from": user,
        "message": message,
        "chat_instance": str(abs(hash(message["chat"]["id"]))),
        "data": data,
    }
    return {"update_id": next(_update_ids) if update_id is None else update_id, "callback_query": query}


def telegram_headers(secret: str | None) -> dict[str, str]:
    headers = {"Content-Type": "application/json"}
    if secret is not None:
        headers[SECRET_HEADER] = secret
    return headers


def twilio_signature(auth_token: str, url: str, params: dict[str, str]) -> str:
    """Twilio's HMAC-SHA1 over the exact URL plus the sorted form parameters."""
    return str(RequestValidator(auth_token).compute_signature(url, params))


def incoming_sms(account_sid: str, from_: str, to: str, body: str) -> dict[str, str]:
    """The form Twilio posts to a number's messaging webhook when an SMS arrives."""
    sid = "SM" + secrets.token_hex(16)
    return {
        "ToCountry": "US",
        "ToState": "",
        "SmsMessageSid": sid,
        "NumMedia": "0",
        "ToCity": "",
        "FromZip": "",
        "SmsSid": sid,
        "FromState": "",
        "SmsStatus": "received",
        "FromCity": "",
        "Body": body,
        "FromCountry": "IT",
        "To": to,
        "ToZip": "",
        "NumSegments": "1",
        "MessageSid": sid,
        "AccountSid": account_sid,
        "From": from_,
        "ApiVersion": "2010-04-01",
    }


def status_callback(message: dict[str, Any], status: str, error_code: int | None = None) -> dict[str, str]:
    """The form Twilio posts to a message's StatusCallback (`message` as the Messages API returned it)."""
    form = {
        "SmsSid": message["sid"],
        "SmsStatus": status,
        "MessageStatus": status,
        "MessageSid": message["sid"],
        "AccountSid": message["account_sid"],
        "To": message["to"],
        "From": message.get("from") or "",
        "ApiVersion": "2010-04-01",
    }
    if message.get("messaging_service_sid"):
        form["MessagingServiceSid"] = message["messaging_service_sid"]
    if error_code is not None:
        form["ErrorCode"] = str(error_code)
    return form


def signed(auth_token: str, url: str, form: dict[str, str]) -> dict[str, str]:
    """Headers for posting `form` to `url` as Twilio would."""
    return {
        SIGNATURE_HEADER: twilio_signature(auth_token, url, form),
        "Content-Type": "application/x-www-form-urlencoded",
    }
