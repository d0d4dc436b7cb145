"""Twilio's webhook routes: an incoming SMS, and a delivery report for a text sent. Each checks
Twilio's signature over the public URL it called and the account, then makes one call of the
service (``inbound``); replies go through the outbox, never in the TwiML answer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from service.channels.sms import inbound
from service.channels.sms.routes import PATH, STATUS_PATH
from service.channels.webhooks import ERRORS, STR, parse_form, read_body

if TYPE_CHECKING:
    from collections.abc import Callable

    from service.channels.base import Hub
    from service.settings import Settings

TWIML_EMPTY = '<?xml version="1.0" encoding="UTF-8"?><Response/>'

_SIGNATURE = {"name": "X-Twilio-Signature", "in": "header", "required": True, "schema": STR}
TWILIO_SMS: dict[str, Any] = {
    "summary": "An incoming SMS (Twilio messaging webhook)",
    "parameters": [_SIGNATURE],
    "requestBody": {
        "required": True,
        "content": {
            "application/x-www-form-urlencoded": {
                "schema": {
                    "type": "object",
                    "required": ["MessageSid", "AccountSid", "From", "To", "Body"],
                    "properties": {
                        "MessageSid": STR,
                        "AccountSid": STR,
                        "MessagingServiceSid": STR,
                        "From": STR,
                        "To": STR,
                        "Body": STR,
                        "NumSegments": STR,
                        "OptOutType": STR,
                    },
                }
            }
        },
    },
    "responses": {
        "200": {"description": "Empty TwiML: replies go through the outbox", "content": {"text/xml": {"schema": STR}}},
        **ERRORS,
    },
}
TWILIO_STATUS: dict[str, Any] = {
    "summary": "A delivery report for a text sent (Twilio status callback)",
    "parameters": [_SIGNATURE, {"name": "key", "in": "query", "required": True, "schema": STR}],
    "requestBody": {
        "required": True,
        "content": {
            "application/x-www-form-urlencoded": {
                "schema": {
                    "type": "object",
                    "required": ["MessageSid", "AccountSid", "MessageStatus"],
                    "properties": {
                        "MessageSid": STR,
                        "AccountSid": STR,
                        "MessageStatus": STR,
                        "ErrorCode": STR,
                        "To": STR,
                    },
                }
            }
        },
    },
    "responses": {"204": {"description": "Recorded"}, **ERRORS},
}
"""What the routes take, as OpenAPI says it (``service.channels.webhooks``)."""


class SmsWebhook:
    """The routes. Only the incoming texts count as updates received (a report is not a message)."""

    updates = (PATH,)

    def __init__(self, hub: Hub, off: Callable[[Settings], str | None]) -> None:
        self.hub = hub
        self.off = off
        """Why the routes take nothing as configured (they answer 404), or None (``Channel.webhook_off``)."""
        self.router = APIRouter()
        self.router.add_api_route(PATH, self.twilio_sms, methods=["POST"], openapi_extra=TWILIO_SMS)
        self.router.add_api_route(STATUS_PATH, self.twilio_status, methods=["POST"], openapi_extra=TWILIO_STATUS)

    async def close(self) -> None:
        """Nothing to close: the service is the web app's."""

    async def form(self, request: Request) -> dict[str, str]:
        settings = self.hub.settings
        if self.off(settings) is not None:
            raise HTTPException(404, "SMS is off")
        form = parse_form(await read_body(request, "application/x-www-form-urlencoded"))
        # Signed over the URL Twilio called: rebuilt from PUBLIC_URL, with the query string as sent.
        url = settings.PUBLIC_URL.rstrip("/") + request.url.path
        if request.url.query:
            url += "?" + request.url.query
        if not inbound.signed(url, form, request.headers.get("x-twilio-signature", ""), settings.TWILIO_AUTH_TOKEN):
            raise HTTPException(403, "bad signature")
        if not inbound.from_account(form, settings.TWILIO_ACCOUNT_SID):
            raise HTTPException(403, "another account")
        return inbound.cleaned(form)

    def handle(self, form: dict[str, str]) -> None:
        inbound.handle(self.hub.service, form)
        self.hub.first_command_done()

    async def twilio_sms(self, request: Request) -> Response:
        form = await self.form(request)
        if not inbound.well_formed(form, "MessageSid", "From"):
            raise HTTPException(400, "not an incoming message")
        await run_in_threadpool(self.handle, form)
        return Response(TWIML_EMPTY, media_type="text/xml")

    async def twilio_status(self, request: Request) -> Response:
        form = await self.form(request)
        key = (request.query_params.get("key") or "").replace("\x00", "")
        if not key or not inbound.well_formed(form, "MessageSid"):
            raise HTTPException(400, "not a status callback")
        await run_in_threadpool(inbound.record_status, self.hub.service, key, form)
        return Response(status_code=204)
