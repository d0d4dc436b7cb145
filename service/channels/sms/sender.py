"""SMS through Twilio's Messages API: one client (one HTTP session) per process."""

from __future__ import annotations

import logging
import os
import threading
from urllib.parse import urlencode, urlsplit, urlunsplit

import requests
import structlog
from twilio.base.exceptions import TwilioException, TwilioRestException
from twilio.http.http_client import TwilioHttpClient
from twilio.rest import Client

from service.channels.sms.gsm7 import segments, to_gsm7
from service.delivery.senders import Keyboard, PermanentReason, SendResult

log = structlog.get_logger(__name__)
TWILIO_API_URL = "https://api.twilio.com"

# Twilio's client logs every request with its body and numbers at INFO: players' phone numbers and
# secret texts do not belong in the logs.
_quiet = logging.getLogger("lupus.twilio_http")
_quiet.setLevel(logging.WARNING)

OPTED_OUT = {21610}  # "Attempt to send to unsubscribed recipient": the number texted STOP
NOT_FOUND = {21211, 21214, 21217, 21401, 21407, 21421, 21614}  # not a valid (mobile) number
RATE_LIMITED = {20429, 14107}  # too many requests; the message-rate limit of a sender


def classify(exc: TwilioRestException) -> SendResult:
    code, status = exc.code, exc.status
    text = f"{code}: {exc.msg}"
    if code in OPTED_OUT:
        return SendResult.permanent(PermanentReason.OPTED_OUT, text)
    if code in NOT_FOUND:
        return SendResult.permanent(PermanentReason.NOT_FOUND, text)
    if status == 429 or code in RATE_LIMITED:
        # Twilio's 429 carries no retry delay; one second is a long code's pace.
        return SendResult.retry(1.0, text)
    if status >= 500 or status in (401, 403, 404):
        # A Twilio outage, or wrong credentials/account (the deployment's fault, not the player's).
        return SendResult.transient(text)
    return SendResult.permanent(PermanentReason.REJECTED, text)


def with_key(url: str, dedup_key: str) -> str:
    """The status callback URL with the outbox key added, so a delivery report names its row."""
    parts = urlsplit(url)
    query = (parts.query + "&" if parts.query else "") + urlencode({"key": dedup_key})
    return urlunsplit(parts._replace(query=query))


class TwilioSender:
    channel = "sms"

    def __init__(
        self,
        account_sid: str,
        auth_token: str,
        *,
        from_number: str | None = None,
        messaging_service_sid: str | None = None,
        api_url: str = TWILIO_API_URL,
        status_callback: str | None = None,
        timeout: float = 10.0,
        gsm7: bool = True,
    ) -> None:
        """`api_url` replaces https://api.twilio.com (TWILIO_API_URL; the sandbox's stand-in).
        `status_callback` is the public URL of the delivery-status route, or None. `gsm7`: pass texts
        through `to_gsm7` first, so a curly quote does not make a message cost two or three times."""
        if not (account_sid and auth_token):
            raise ValueError("a Twilio account SID and auth token are required")
        if not (from_number or messaging_service_sid):
            raise ValueError("a Twilio from number or messaging service SID is required")
        self._sid, self._token = account_sid, auth_token
        self.from_number = from_number
        self.messaging_service_sid = messaging_service_sid
        self._api_url = api_url.rstrip("/")
        self._status_callback = status_callback
        self._timeout = timeout
        self._gsm7 = gsm7
        self._client: Client | None = None
        self._pid = 0
        self._lock = threading.Lock()
        self._lock_pid = os.getpid()

    @property
    def sender_id(self) -> str:
        """Whose rate budget a send spends: the number, or the messaging service."""
        return self.messaging_service_sid or self.from_number or ""

    @property
    def client(self) -> Client:
        """This process's client (made again after a fork: a requests session is not fork-safe)."""
        if self._lock_pid != os.getpid():  # forked: another parent thread may have held the lock
            self._lock, self._lock_pid = threading.Lock(), os.getpid()
        with self._lock:
            if self._client is None or self._pid != os.getpid():
                http = TwilioHttpClient(timeout=self._timeout, logger=_quiet)
                client = Client(self._sid, self._token, http_client=http)
                client.api.base_url = self._api_url
                self._client, self._pid = client, os.getpid()
            return self._client

    def prepare(self, text: str) -> str:
        return to_gsm7(text) if self._gsm7 else text

    def cost(self, text: str) -> int:
        """Segments: what Twilio bills and what a sender number's rate is counted in."""
        return segments(self.prepare(text))

    def send(self, address: str, text: str, *, buttons: Keyboard | None = None, dedup_key: str) -> SendResult:
        """SMS has no buttons: the texts number the choices instead, so `buttons` is ignored."""
        kwargs: dict[str, str] = {"to": address, "body": self.prepare(text)}
        if self.messaging_service_sid:
            kwargs["messaging_service_sid"] = self.messaging_service_sid
        else:
            kwargs["from_"] = self.from_number or ""
        if self._status_callback:
            kwargs["status_callback"] = with_key(self._status_callback, dedup_key)
        try:
            message = self.client.messages.create(**kwargs)
        except TwilioRestException as e:
            result = classify(e)
            log.info("twilio.send_failed", key=dedup_key, status=str(result.status), code=e.code)
            return result
        except (requests.RequestException, TwilioException) as e:
            return SendResult.transient(f"{type(e).__name__}: {e}")
        return SendResult.sent(message.sid)

    def close(self) -> None:
        with self._lock:
            client, self._client = self._client, None
        http = getattr(client, "http_client", None) if client is not None else None
        session = getattr(http, "session", None)
        if session is not None:
            session.close()
