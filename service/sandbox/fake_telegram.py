"""A stand-in for the Telegram Bot API, good enough for python-telegram-bot.

It serves `/bot<token>/<method>` like api.telegram.org, answers the methods the service uses,
records every call, and behaves like Telegram where the service must cope: too many messages get
HTTP 429 with `retry_after`, a chat that blocked the bot gets 403, an unknown chat (in strict mode)
400. It keeps the "/" menus (setMyCommands, by scope and language) and which button taps were
answered: a webhook's answer that names a method is made as Telegram makes it, and a callback query
is answered once. Point `TELEGRAM_API_URL` at it. Thread-safe: the sandbox page and the tests read
it while it serves.

The Bot API itself, what it holds and how it answers each method, is ``service.sandbox.bot_api``.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

import httpx

from service.sandbox.bot_api import BotApi, Call
from service.sandbox.flood import TelegramLimits

__all__ = ["Call", "FakeTelegram", "TelegramLimits"]


class FakeTelegram(BotApi):
    """The Bot API (``BotApi``, whose arguments it takes), with what tests and the sandbox page use."""

    def register_chat(
        self,
        chat_id: int,
        kind: str = "private",
        *,
        title: str | None = None,
        first_name: str | None = None,
        username: str | None = None,
    ) -> None:
        chat: dict[str, Any] = {"id": chat_id, "type": kind}
        if kind == "private":
            chat["first_name"] = first_name or f"User{chat_id}"
            if username:
                chat["username"] = username
        else:
            chat["title"] = title or f"Group {chat_id}"
        with self._lock:
            self._chats[chat_id] = chat

    def block(self, chat_id: int, description: str = "Forbidden: bot was blocked by the user") -> None:
        """Sends to `chat_id` now get 403 (use "Forbidden: bot can't initiate conversation with a
        user" for someone who never opened the bot)."""
        with self._lock:
            self._blocked[chat_id] = description

    def unblock(self, chat_id: int) -> None:
        with self._lock:
            self._blocked.pop(chat_id, None)

    def migrate(self, chat_id: int, new_chat_id: int) -> None:
        """The group became a supergroup: calls naming the old id get 400 with migrate_to_chat_id."""
        with self._lock:
            self._migrated[chat_id] = new_chat_id
            self._chats[new_chat_id] = {"id": new_chat_id, "type": "supergroup", "title": f"Group {chat_id}"}

    def make_admin(self, chat_id: int, user_id: int | None = None) -> None:
        """The bot (or the member ``user_id``) becomes an admin of the group: the bot may then
        restrict members, and nobody may restrict that member."""
        with self._lock:
            if user_id is None:
                self._admin_in.add(chat_id)
            else:
                self._member_admins.add((chat_id, user_id))

    def restricted(self, chat_id: int) -> dict[int, dict[str, Any]]:
        """The members of a group the bot restricts now, with the permissions it left them (a member
        given every permission back is no longer restricted)."""
        with self._lock:
            return {uid: dict(p) for (cid, uid), p in self._restricted.items() if cid == chat_id}

    def force_retry_after(self, seconds: int, times: int = 1) -> None:
        """The next `times` counted calls get 429 whatever the windows say."""
        with self._lock:
            self._forced.extend([seconds] * times)

    def calls(self, method: str | None = None) -> list[Call]:
        with self._lock:
            return [c for c in self._calls if method is None or c.method == method]

    def sent(self, chat_id: int | None = None) -> list[dict[str, Any]]:
        """Messages the bot sent successfully, as Telegram returned them, in order."""
        return [
            c.response["result"]
            for c in self.calls("sendMessage")
            if c.status == 200 and (chat_id is None or c.response["result"]["chat"]["id"] == chat_id)
        ]

    def messages(self, chat_id: int) -> list[dict[str, Any]]:
        """The chat as its user sees it now: edits applied, deletions gone."""
        with self._lock:
            return [dict(m) for m in self._messages.get(chat_id, {}).values()]

    def commands(self, scope: str = "default", language_code: str = "") -> list[dict[str, Any]]:
        """The "/" menu set for a scope type (``all_private_chats``...) and language ("": the default)."""
        with self._lock:
            return [dict(c) for c in self._commands.get((scope, language_code), [])]

    def answers(self) -> dict[str, dict[str, Any] | None]:
        """Every button tap delivered, by callback query id, with its answer (None: never answered)."""
        with self._lock:
            return {q: dict(a) if a is not None else None for q, a in self._queries.items()}

    def unanswered(self) -> list[str]:
        """The taps delivered that were never answered: their buttons still spin."""
        return [q for q, a in self.answers().items() if a is None]

    def deliver(self, update: dict[str, Any], timeout: float = 10.0) -> int:
        """Post `update` to the webhook the bot registered, with its secret, as Telegram does;
        returns the HTTP status the service answered (Telegram would retry anything but 2xx). A 2xx
        answer that names a method (``answerCallbackQuery``) is made, as Telegram makes it."""
        url = self.webhook.get("url")
        if not url:
            raise RuntimeError("no webhook is set")
        headers = {"Content-Type": "application/json"}
        if self.webhook.get("secret_token"):
            headers["X-Telegram-Bot-Api-Secret-Token"] = str(self.webhook["secret_token"])
        r = httpx.post(str(url), content=json.dumps(update), headers=headers, timeout=timeout)
        self.webhook_answered(update, r.status_code, r.content)
        return r.status_code

    def webhook_answered(self, update: dict[str, Any], status: int, body: bytes) -> None:
        """What Telegram does once the webhook answered ``update`` (for tests that post it themselves):
        a tap is counted as delivered, and a 2xx answer that names a method is made."""
        query = update.get("callback_query")
        if isinstance(query, dict) and isinstance(query.get("id"), str):
            with self._lock:
                self._queries.setdefault(query["id"], None)
        if not 200 <= status < 300 or not body:
            return
        with contextlib.suppress(ValueError):
            answer = json.loads(body)
            if isinstance(answer, dict) and isinstance(answer.get("method"), str):
                self.handle(answer["method"], {k: v for k, v in answer.items() if k != "method"})

    def rejected(self, status: int = 429) -> int:
        return sum(1 for c in self.calls() if c.status == status)
