"""Telegram's webhook route: authenticate (the secret token), read the update (``inbound``), hand
the command to the service through the web app, answer a tap in the response itself.

python-telegram-bot's custom-webhook pattern, without its object tree for the update: the few
fields a command needs are read from the JSON (``inbound.incoming``); an ``Application`` built
without an updater is initialized (one getMe, for the bot's username in t.me links) on the first
update that needs it, never at import.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any, Protocol

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse

from service.channels.telegram import inbound
from service.channels.webhooks import ERRORS, INT, STR, read_body

if TYPE_CHECKING:
    from collections.abc import Callable

    from service.channels.base import Hub
    from service.settings import Settings

log = logging.getLogger(__name__)
PATH = "/telegram/webhook"

_USER = {
    "type": "object",
    "required": ["id", "is_bot", "first_name"],
    "properties": {"id": INT, "is_bot": {"type": "boolean"}, "first_name": STR, "username": STR, "language_code": STR},
}
_CHAT = {
    "type": "object",
    "required": ["id", "type"],
    "properties": {
        "id": INT,
        "type": {"type": "string", "enum": ["private", "group", "supergroup", "channel"]},
        "title": STR,
        "first_name": STR,
    },
}
_MESSAGE = {
    "type": "object",
    "required": ["message_id", "date", "chat"],
    "properties": {"message_id": INT, "date": INT, "chat": _CHAT, "from": _USER, "text": STR},
}
TELEGRAM_WEBHOOK: dict[str, Any] = {
    "summary": "A Telegram update (Bot API setWebhook)",
    "parameters": [{"name": "X-Telegram-Bot-Api-Secret-Token", "in": "header", "required": True, "schema": STR}],
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "required": ["update_id"],
                    "properties": {
                        "update_id": INT,
                        "message": _MESSAGE,
                        "edited_message": _MESSAGE,
                        "callback_query": {
                            "type": "object",
                            "required": ["id", "from", "chat_instance"],
                            "properties": {
                                "id": STR,
                                "from": _USER,
                                "chat_instance": STR,
                                "data": STR,
                                "message": _MESSAGE,
                            },
                        },
                    },
                }
            }
        },
    },
    "responses": ERRORS,
}
"""What the route takes, as OpenAPI says it (``service.channels.webhooks``)."""


class Named(Protocol):
    """What the route keeps on the application service: the bot's username, which its texts use in
    t.me links (``service.game.app.Service``)."""

    handles: dict[str, str]


class TelegramWebhook:
    """The route, and the ``Application`` it asks for the bot's username (made on first need)."""

    updates = (PATH,)

    def __init__(self, hub: Hub, name: str, off: Callable[[Settings], str | None]) -> None:
        self.hub = hub
        self.name = name
        """The channel's registered name, under which the bot's username is kept (``Service.handles``)."""
        self.off = off
        """Why the route takes nothing as configured (it answers 404), or None (``Channel.webhook_off``)."""
        self._app: Any = None
        self._lock = asyncio.Lock()
        self._next_try = 0.0
        self.router = APIRouter()
        self.router.add_api_route(PATH, self.telegram_webhook, methods=["POST"], openapi_extra=TELEGRAM_WEBHOOK)

    def application(self) -> Any:
        if self._app is None:
            from telegram.ext import Application

            from service.channels.telegram.sender import bot_base_url

            settings = self.hub.settings
            self._app = (
                Application.builder()
                .token(settings.TELEGRAM_BOT_TOKEN or "")
                .base_url(bot_base_url(settings.TELEGRAM_API_URL))
                .updater(None)
                .build()
            )
        return self._app

    async def bot_username(self) -> str | None:
        """The bot's username, from one getMe on first need (retried at most once a minute)."""
        service: Named = self.hub.service
        if self.name in service.handles:
            return service.handles[self.name]
        async with self._lock:
            if self.name in service.handles or time.monotonic() < self._next_try:
                return service.handles.get(self.name)
            app = self.application()
            try:
                await app.initialize()
                service.handles[self.name] = app.bot.username
            except Exception as e:  # Telegram unreachable: texts say "a private chat with me" meanwhile
                log.warning("telegram getMe failed: %s", e)
                self._next_try = time.monotonic() + 60
        return service.handles.get(self.name)

    async def close(self) -> None:
        """At shutdown: the Application's connection pool (if it was ever initialized)."""
        if self._app is not None:
            await self._app.shutdown()

    async def telegram_webhook(self, request: Request) -> JSONResponse:
        settings = self.hub.settings
        if self.off(settings) is not None:
            raise HTTPException(404, "Telegram is off")
        if not inbound.authentic(
            request.headers.get("x-telegram-bot-api-secret-token", ""), settings.TELEGRAM_WEBHOOK_SECRET
        ):
            raise HTTPException(403, "bad secret")
        body = await read_body(request, "application/json")
        try:
            item = inbound.incoming(inbound.update_of(body), await self.bot_username())
        except inbound.NotJson:
            raise HTTPException(400, "malformed JSON") from None
        except inbound.NotAnUpdate:
            raise HTTPException(400, "not a Telegram update") from None
        replies: list[str] = []
        if item is not None and not item.unusable:
            replies = await self.hub.inbound(item)
        return JSONResponse(inbound.webhook_answer(item, replies))
