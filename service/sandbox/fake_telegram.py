"""A stand-in for the Telegram Bot API, good enough for python-telegram-bot.

It serves `/bot<token>/<method>` like api.telegram.org, answers the methods the service uses,
records every call, and behaves like Telegram where the service must cope: too many messages get
HTTP 429 with `retry_after`, a chat that blocked the bot gets 403, an unknown chat (in strict mode)
400. It keeps the "/" menus (setMyCommands, by scope and language) and which button taps were
answered: a webhook's answer that names a method is made as Telegram makes it, and a callback query
is answered once. Point `TELEGRAM_API_URL` at it. Thread-safe: the sandbox page and the tests read
it while it serves.
Telegram's flood limits as it answers them (`TelegramLimits`, in ``service.sandbox.flood``): about
30 messages a second for the bot, 20 a minute in a group, and in a private chat a short burst then
one a second, which is a bucket (a burst of 3 refilled at one a second: a fourth text sooner than a
second after a burst of three is refused, however it is spread) rather than a window. A refused send
gets 429 with `retry_after` in whole seconds, rounded up, and Telegram then holds that chat to it:
every send there before the time is up is refused too, with what is left of the wait, and counts for
nothing. (The bot's own limit refuses by its window alone: sends to other chats go on as it allows.)
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from service.sandbox.flood import Flood, TelegramLimits

# Parameters PTB sends as JSON strings inside a form body.
_JSON_PARAMS = {
    "reply_markup",
    "link_preview_options",
    "permissions",
    "allowed_updates",
    "entities",
    "reply_parameters",
    "commands",
    "scope",
}
_COUNTED = {"sendMessage", "editMessageText", "editMessageReplyMarkup"}
_CHAT_METHODS = _COUNTED | {
    "deleteMessage",
    "getChat",
    "getChatMember",
    "restrictChatMember",
    "banChatMember",
    "unbanChatMember",
}


@dataclass(frozen=True)
class Call:
    method: str
    params: dict[str, Any]
    status: int
    response: dict[str, Any]
    at: float


class FakeTelegram:
    def __init__(
        self,
        token: str | None = None,
        *,
        bot_id: int = 7000000001,
        username: str = "lupus_sandbox_bot",
        limits: TelegramLimits | None = None,
        enforce_limits: bool = True,
        strict_chats: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """`token`: only this token is accepted (401 otherwise); None accepts any. `strict_chats`:
        only registered chats exist; otherwise any positive id is a private chat that started the
        bot and any negative id a group."""
        self.token = token
        self.me = {
            "id": bot_id,
            "is_bot": True,
            "first_name": "Lupus",
            "username": username,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
        }
        self.limits = limits or TelegramLimits()
        self.enforce_limits = enforce_limits
        self.strict_chats = strict_chats
        self.clock = clock
        self.webhook: dict[str, Any] = {"url": ""}
        self._lock = threading.RLock()
        self._calls: list[Call] = []
        self._chats: dict[int, dict[str, Any]] = {}
        self._blocked: dict[int, str] = {}
        self._admin_in: set[int] = set()
        self._restricted: dict[tuple[int, int], dict[str, Any]] = {}
        self._member_admins: set[tuple[int, int]] = set()
        self._migrated: dict[int, int] = {}
        self._messages: dict[int, dict[int, dict[str, Any]]] = {}
        self._next_id: dict[int, int] = {}
        self.flood = Flood(self.limits)
        self._forced: deque[int] = deque()
        self._commands: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self._queries: dict[str, dict[str, Any] | None] = {}  # taps delivered: id -> its answer, None: none yet
        self.app = self._make_app()

    # ---- what tests and the sandbox page use -------------------------------------------------
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

    # ---- the Bot API --------------------------------------------------------------------------
    def _chat(self, chat_id: Any) -> dict[str, Any] | None:
        try:
            cid = int(chat_id)
        except (TypeError, ValueError):
            return None
        with self._lock:
            if cid in self._chats:
                return self._chats[cid]
        if self.strict_chats:
            return None
        return (
            {"id": cid, "type": "private", "first_name": f"User{cid}"}
            if cid > 0
            else {"id": cid, "type": "group", "title": f"Group {cid}"}
        )

    def _throttle(self, chat: dict[str, Any]) -> int:
        """0 if this send is allowed now (and counted), else Telegram's retry_after in seconds."""
        if self._forced:
            return self._forced.popleft()
        if not self.enforce_limits:
            return 0
        return self.flood.take("private" if chat["type"] == "private" else "group", chat["id"], self.clock())

    def _error(self, status: int, description: str, **parameters: Any) -> tuple[int, dict[str, Any]]:
        body: dict[str, Any] = {"ok": False, "error_code": status, "description": description}
        if parameters:
            body["parameters"] = parameters
        return status, body

    def _message(self, chat: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
        cid = chat["id"]
        self._next_id[cid] = self._next_id.get(cid, 0) + 1
        msg: dict[str, Any] = {
            "message_id": self._next_id[cid],
            "date": int(time.time()),
            "chat": chat,
            "from": self.me,
            "text": str(params.get("text", "")),
        }
        if params.get("reply_markup"):
            msg["reply_markup"] = params["reply_markup"]
        self._messages.setdefault(cid, {})[msg["message_id"]] = msg
        return msg

    def handle(self, method: str, params: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """One Bot API call: (HTTP status, JSON body)."""
        with self._lock:
            status, body = self._handle(method, params)
            self._calls.append(Call(method, params, status, body, self.clock()))
            return status, body

    def _handle(self, method: str, p: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if method in (
            "getMe",
            "logOut",
            "close",
            "getUpdates",
            "setMyCommands",
            "deleteMyCommands",
            "getMyCommands",
            "getWebhookInfo",
            "setWebhook",
            "deleteWebhook",
        ):
            return 200, {"ok": True, "result": self._simple(method, p)}
        if method == "answerCallbackQuery":
            qid = str(p.get("callback_query_id") or "")
            if not qid or self._queries.get(qid) is not None:  # a query is answered once
                return self._error(
                    400, "Bad Request: query is too old and response timeout expired or query ID is invalid"
                )
            if len(str(p.get("text", ""))) > 200:
                return self._error(400, "Bad Request: MESSAGE_TOO_LONG")
            self._queries[qid] = {k: p[k] for k in ("text", "show_alert") if k in p}
            return 200, {"ok": True, "result": True}
        if method not in _CHAT_METHODS:
            return self._error(404, "Not Found")
        chat = self._chat(p.get("chat_id"))
        if chat is None:
            return self._error(400, "Bad Request: chat not found")
        cid = chat["id"]
        if cid in self._migrated:
            return self._error(
                400, "Bad Request: group chat was upgraded to a supergroup chat", migrate_to_chat_id=self._migrated[cid]
            )
        if method in _COUNTED:
            if cid in self._blocked:
                return self._error(403, self._blocked[cid])
            if method == "sendMessage" and not str(p.get("text", "")).strip():
                return self._error(400, "Bad Request: message text is empty")
            if len(str(p.get("text", ""))) > 4096:
                return self._error(400, "Bad Request: message is too long")
            wait = self._throttle(chat)
            if wait:
                return self._error(429, f"Too Many Requests: retry after {wait}", retry_after=wait)
        if method == "sendMessage":
            return 200, {"ok": True, "result": self._message(chat, p)}
        if method in ("editMessageText", "editMessageReplyMarkup", "deleteMessage"):
            msg = self._messages.get(cid, {}).get(int(p.get("message_id", 0)))
            if msg is None:
                return self._error(400, "Bad Request: message to edit not found")
            if method == "deleteMessage":
                del self._messages[cid][msg["message_id"]]
                return 200, {"ok": True, "result": True}
            if method == "editMessageReplyMarkup" and (p.get("reply_markup") or None) == msg.get("reply_markup"):
                return self._error(
                    400,
                    "Bad Request: message is not modified: specified new message content "
                    "and reply markup are exactly the same as a current content and reply "
                    "markup of the message",
                )
            if method == "editMessageText":
                msg["text"] = str(p.get("text", ""))
            msg.pop("reply_markup", None)
            if p.get("reply_markup"):
                msg["reply_markup"] = p["reply_markup"]
            msg["edit_date"] = int(time.time())
            return 200, {"ok": True, "result": dict(msg)}
        if method == "getChat":
            return 200, {"ok": True, "result": {**chat, "accent_color_id": 0, "max_reaction_count": 11}}
        if method == "getChatMember":
            uid = int(p.get("user_id", 0))
            admin = uid == self.me["id"] and cid in self._admin_in
            user = self.me if uid == self.me["id"] else {"id": uid, "is_bot": False, "first_name": f"User{uid}"}
            member: dict[str, Any] = {"status": "administrator" if admin else "member", "user": user}
            if admin:
                member.update(
                    can_be_edited=False,
                    can_manage_chat=True,
                    can_delete_messages=True,
                    can_manage_video_chats=False,
                    can_restrict_members=True,
                    can_promote_members=False,
                    can_change_info=False,
                    can_invite_users=True,
                    is_anonymous=False,
                    can_post_stories=False,
                    can_edit_stories=False,
                    can_delete_stories=False,
                )
            return 200, {"ok": True, "result": member}
        if method in ("restrictChatMember", "banChatMember", "unbanChatMember"):
            if chat["type"] == "private":
                return self._error(400, "Bad Request: method is available for supergroup and channel chats only")
            if cid not in self._admin_in:
                return self._error(400, "Bad Request: not enough rights to restrict/unrestrict chat member")
            if method == "restrictChatMember":
                return self._restrict(cid, p)
        return 200, {"ok": True, "result": True}

    def _restrict(self, cid: int, p: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """restrictChatMember: needs a user and a permissions object, as Telegram does."""
        try:
            uid = int(p.get("user_id", ""))
        except (TypeError, ValueError):
            return self._error(400, "Bad Request: invalid user_id specified")
        permissions = p.get("permissions")
        if not isinstance(permissions, dict):
            return self._error(400, "Bad Request: can't parse permissions JSON object")
        if uid == self.me["id"]:
            return self._error(400, "Bad Request: can't restrict self")
        if (cid, uid) in self._member_admins:
            return self._error(400, "Bad Request: user is an administrator of the chat")
        if all(v is True for k, v in permissions.items() if k.startswith("can_")) and permissions:
            self._restricted.pop((cid, uid), None)
        else:
            self._restricted[(cid, uid)] = dict(permissions)
        return 200, {"ok": True, "result": True}

    def _simple(self, method: str, p: dict[str, Any]) -> Any:
        if method == "getMe":
            return self.me
        if method == "getUpdates":
            return []
        if method == "setWebhook":
            self.webhook = {
                "url": str(p.get("url", "")),
                "secret_token": p.get("secret_token"),
                "allowed_updates": p.get("allowed_updates"),
            }
            return True
        if method == "deleteWebhook":
            self.webhook = {"url": ""}
            return True
        if method == "getWebhookInfo":  # what `lupus doctor` reads; a test sets the pending and the error
            info = {
                "url": self.webhook.get("url", ""),
                "has_custom_certificate": False,
                "pending_update_count": int(self.webhook.get("pending_update_count", 0)),
            }
            for key in ("last_error_date", "last_error_message", "allowed_updates"):
                if self.webhook.get(key) is not None:
                    info[key] = self.webhook[key]
            return info
        if method in ("setMyCommands", "deleteMyCommands", "getMyCommands"):
            scope = p.get("scope")
            where = (
                str(scope.get("type", "default")) if isinstance(scope, dict) else "default",
                str(p.get("language_code") or ""),
            )
            if method == "getMyCommands":
                return self._commands.get(where, [])
            if method == "deleteMyCommands":
                self._commands.pop(where, None)
            else:
                self._commands[where] = [dict(c) for c in p.get("commands") or [] if isinstance(c, dict)]
        return True

    def _make_app(self) -> FastAPI:
        app = FastAPI(title="Fake Telegram Bot API", openapi_url=None, docs_url=None, redoc_url=None)

        @app.api_route("/bot{token}/{method}", methods=["GET", "POST"])
        async def bot_api(token: str, method: str, request: Request) -> JSONResponse:
            if self.token is not None and token != self.token:
                return JSONResponse({"ok": False, "error_code": 401, "description": "Unauthorized"}, 401)
            status, body = self.handle(method, await read_params(request))
            return JSONResponse(body, status)

        return app


async def read_params(request: Request) -> dict[str, Any]:
    """Bot API parameters from the query string, a JSON body or a form (PTB sends a form whose
    object-valued fields are JSON strings)."""
    params: dict[str, Any] = dict(request.query_params)
    ctype = request.headers.get("content-type", "")
    if "json" in ctype:
        body = await request.json()
        if isinstance(body, dict):
            params.update(body)
    elif "form" in ctype:
        form = await request.form()
        params.update({k: v for k, v in form.items() if isinstance(v, str)})
    for key in _JSON_PARAMS & params.keys():
        if isinstance(params[key], str):
            with contextlib.suppress(ValueError):
                params[key] = json.loads(params[key])
    return params
