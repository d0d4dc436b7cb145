"""A stand-in for Twilio's Messages API (the part an SMS bot uses).

POST /2010-04-01/Accounts/{sid}/Messages.json answers with the JSON Twilio returns (201, a message
resource in status "queued") or with Twilio's error JSON: 21610 for a number that texted STOP, 21211
for a number that is not E.164, 20003 for wrong credentials. Point `TWILIO_API_URL` at it. Every
call is recorded; the sandbox page and the tests read the messages back.
"""

from __future__ import annotations

import base64
import re
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from email.utils import formatdate
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from service.channels.sms.gsm7 import sms_size

_E164 = re.compile(r"\+[1-9]\d{6,14}")


@dataclass(frozen=True)
class TwilioCall:
    method: str
    path: str  # after /2010-04-01/
    params: dict[str, str]
    status: int
    response: dict[str, Any]
    at: float


def _error(status: int, code: int, message: str) -> tuple[int, dict[str, Any]]:
    return status, {
        "code": code,
        "message": message,
        "more_info": f"https://www.twilio.com/docs/errors/{code}",
        "status": status,
    }


class FakeTwilio:
    def __init__(
        self,
        account_sid: str = "AC" + "0" * 32,
        auth_token: str = "sandbox-token",
        *,
        numbers: tuple[str, ...] = ("+15005550006",),
        max_per_second: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """`numbers`: the account's own numbers (valid From values). `max_per_second`: if set,
        more sends than that from one sender within a second get 429 (real Twilio queues instead,
        up to 10 hours; the option exists to test the retry path)."""
        self.account_sid = account_sid
        self.auth_token = auth_token
        self.numbers = set(numbers)
        self.services: set[str] = set()
        self.max_per_second = max_per_second
        self.clock = clock
        self._lock = threading.RLock()
        self._calls: list[TwilioCall] = []
        self._messages: dict[str, dict[str, Any]] = {}
        self._opted_out: set[str] = set()
        self._stamps: dict[str, deque[float]] = {}
        self.phone_numbers: dict[str, dict[str, Any]] = {n: self._number(n) for n in sorted(self.numbers)}
        """The account's numbers as IncomingPhoneNumbers lists them (what `lupus doctor` reads); a test
        sets their ``sms_url``, ``sms_method`` and ``status_callback`` (``configure_number``)."""
        self.app = self._make_app()

    def _number(self, number: str) -> dict[str, Any]:
        sid = "PN" + secrets.token_hex(16)
        return {
            "sid": sid,
            "account_sid": self.account_sid,
            "phone_number": number,
            "friendly_name": number,
            "sms_url": "",
            "sms_method": "POST",
            "sms_fallback_url": "",
            "sms_application_sid": "",
            "status_callback": "",
            "status_callback_method": "POST",
            "capabilities": {"sms": True},
            "uri": f"/2010-04-01/Accounts/{self.account_sid}/IncomingPhoneNumbers/{sid}.json",
        }

    def configure_number(self, number: str, **config: str) -> None:
        """Set a number's configuration, as the console's Messaging section does (``sms_url=...``)."""
        with self._lock:
            self.phone_numbers[number].update(config)

    def add_messaging_service(self, sid: str) -> None:
        self.services.add(sid)

    def opt_out(self, number: str) -> None:
        """The number texted STOP: sends to it fail with 21610 until `opt_in`."""
        with self._lock:
            self._opted_out.add(number)

    def opt_in(self, number: str) -> None:
        with self._lock:
            self._opted_out.discard(number)

    def calls(self) -> list[TwilioCall]:
        with self._lock:
            return list(self._calls)

    def messages(self, to: str | None = None) -> list[dict[str, Any]]:
        """Accepted messages, in order (each as the API returned it)."""
        with self._lock:
            return [dict(m) for m in self._messages.values() if to is None or m["to"] == to]

    def _authorized(self, header: str | None) -> bool:
        if not header or not header.startswith("Basic "):
            return False
        try:
            user, _, password = base64.b64decode(header[6:]).decode().partition(":")
        except ValueError:
            return False
        return secrets.compare_digest(user, self.account_sid) and secrets.compare_digest(password, self.auth_token)

    def create(self, p: dict[str, str]) -> tuple[int, dict[str, Any]]:
        to, body = p.get("To", ""), p.get("Body", "")
        sender = p.get("MessagingServiceSid") or p.get("From", "")
        if not to:
            return _error(400, 21604, "A 'To' phone number is required.")
        if not _E164.fullmatch(to):
            return _error(400, 21211, f"The 'To' number {to} is not a valid phone number.")
        if not sender:
            return _error(400, 21603, "A 'From' phone number is required.")
        if "MessagingServiceSid" in p and sender not in self.services:
            return _error(400, 21701, "The Messaging Service Sid is invalid.")
        if "MessagingServiceSid" not in p and sender not in self.numbers:
            return _error(
                400,
                21606,
                f"The From phone number {sender} is not a valid, SMS-capable "
                "inbound phone number or short code for your account.",
            )
        if not body:
            return _error(400, 21602, "Message body is required.")
        if len(body) > 1600:
            return _error(400, 21617, "The concatenated message body exceeds the 1600 character limit.")
        if to in self._opted_out:
            return _error(400, 21610, "Attempt to send to unsubscribed recipient")
        if self.max_per_second is not None:
            now = self.clock()
            stamps = self._stamps.setdefault(sender, deque())
            while stamps and stamps[0] <= now - 1.0:
                stamps.popleft()
            if len(stamps) >= self.max_per_second:
                return _error(429, 20429, "Too Many Requests")
            stamps.append(now)
        sid = "SM" + secrets.token_hex(16)
        now_text = formatdate(usegmt=True)
        size = sms_size(body)
        uri = f"/2010-04-01/Accounts/{self.account_sid}/Messages/{sid}.json"
        message = {
            "account_sid": self.account_sid,
            "api_version": "2010-04-01",
            "body": body,
            "date_created": now_text,
            "date_sent": None,
            "date_updated": now_text,
            "direction": "outbound-api",
            "error_code": None,
            "error_message": None,
            "from": p.get("From") or None,
            "messaging_service_sid": p.get("MessagingServiceSid"),
            "num_media": "0",
            "num_segments": str(size.segments),
            "price": None,
            "price_unit": "USD",
            "sid": sid,
            "status": "accepted" if "MessagingServiceSid" in p else "queued",
            "subresource_uris": {"media": uri.replace(".json", "/Media.json")},
            "to": to,
            "uri": uri,
            # Not in Twilio's answer: what the sandbox needs to show and to call back.
            "encoding": size.encoding,
            "status_callback": p.get("StatusCallback"),
        }
        self._messages[sid] = message
        return 201, {k: v for k, v in message.items() if k not in ("encoding", "status_callback")}

    def handle(self, method: str, path: str, params: dict[str, str], auth: str | None) -> tuple[int, dict[str, Any]]:
        with self._lock:
            status, body = self._handle(method, path, params, auth)
            self._calls.append(TwilioCall(method, path, params, status, body, self.clock()))
            return status, body

    def _handle(self, method: str, path: str, p: dict[str, str], auth: str | None) -> tuple[int, dict[str, Any]]:
        numbers = re.fullmatch(r"Accounts/([^/]+)/IncomingPhoneNumbers\.json", path)
        if numbers is not None and method == "GET":
            if not self._authorized(auth) or numbers.group(1) != self.account_sid:
                return _error(401, 20003, "Authenticate")
            found = [
                dict(n)
                for n in self.phone_numbers.values()
                if not p.get("PhoneNumber") or n["phone_number"] == p["PhoneNumber"]
            ]
            uri = f"/2010-04-01/{path}"
            return 200, {
                "incoming_phone_numbers": found,
                "page": 0,
                "page_size": 50,
                "start": 0,
                "end": max(0, len(found) - 1),
                "uri": uri,
                "first_page_uri": uri,
                "next_page_uri": None,
                "previous_page_uri": None,
            }
        one = re.fullmatch(r"Accounts/([^/]+)/IncomingPhoneNumbers/(PN[0-9a-f]{32})\.json", path)
        if one is not None:  # a number's configuration, read or changed (as `lupus setup` does)
            if not self._authorized(auth) or one.group(1) != self.account_sid:
                return _error(401, 20003, "Authenticate")
            number = next((n for n in self.phone_numbers.values() if n["sid"] == one.group(2)), None)
            if number is None:
                return _error(404, 20404, f"The requested resource {path} was not found")
            if method == "POST":
                fields = {"SmsUrl": "sms_url", "SmsMethod": "sms_method", "StatusCallback": "status_callback"}
                number.update({fields[k]: v for k, v in p.items() if k in fields})
            return 200, dict(number)
        m = re.fullmatch(r"Accounts/([^/]+)/Messages(?:/(SM[0-9a-f]{32}))?\.json", path)
        if m is None:
            return _error(404, 20404, "The requested resource was not found")
        if not self._authorized(auth) or m.group(1) != self.account_sid:
            return _error(401, 20003, "Authenticate")
        if m.group(2):
            msg = self._messages.get(m.group(2))
            if msg is None:
                return _error(404, 20404, f"The requested resource {path} was not found")
            return 200, {k: v for k, v in msg.items() if k not in ("encoding", "status_callback")}
        if method != "POST":
            return 200, {"messages": [dict(x) for x in self._messages.values()], "page": 0}
        return self.create(p)

    def _make_app(self) -> FastAPI:
        app = FastAPI(title="Fake Twilio", openapi_url=None, docs_url=None, redoc_url=None)

        # The path is matched from the version on, so the app also works mounted under a prefix.
        @app.api_route("/2010-04-01/{rest:path}", methods=["GET", "POST"])
        async def api(rest: str, request: Request) -> JSONResponse:
            form = await request.form() if request.method == "POST" else request.query_params
            params = {k: v for k, v in form.items() if isinstance(v, str)}
            status, body = self.handle(request.method, rest, params, request.headers.get("authorization"))
            return JSONResponse(body, status)

        return app
