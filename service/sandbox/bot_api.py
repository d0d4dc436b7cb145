"""The Bot API of the stand-in for Telegram (``service.sandbox.fake_telegram``): what it holds, how it
answers each method, and the web app that serves `/bot<token>/<method>`.

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
from typing import Any, ClassVar

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
_NO_MESSAGE = "Bad Request: message to edit not found"

Reply = tuple[int, dict[str, Any]]
"""A Bot API call's answer: (HTTP status, JSON body)."""


def _ok(result: Any) -> Reply:
    return 200, {"ok": True, "result": result}


@dataclass(frozen=True)
class Call:
    method: str
    params: dict[str, Any]
    status: int
    response: dict[str, Any]
    at: float


class BotApi:
    """The chats, messages, menus and taps the Bot API knows of, and its answer to each method."""

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

    def handle(self, method: str, params: dict[str, Any]) -> Reply:
        """One Bot API call: (HTTP status, JSON body)."""
        with self._lock:
            status, body = self._handle(method, params)
            self._calls.append(Call(method, params, status, body, self.clock()))
            return status, body

    def _handle(self, method: str, p: dict[str, Any]) -> Reply:
        if method in self._METHODS:
            return self._METHODS[method](self, p)
        if method not in self._CHAT_METHODS:
            return self._error(404, "Not Found")
        chat = self._chat(p.get("chat_id"))
        if chat is None:
            return self._error(400, "Bad Request: chat not found")
        return self._refused(method, chat, p) or self._CHAT_METHODS[method](self, chat, p)

    # ---- what the methods share ---------------------------------------------------------------
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

    def _refused(self, method: str, chat: dict[str, Any], p: dict[str, Any]) -> Reply | None:
        """Why a call in ``chat`` is refused before it is made: the group migrated, or (for what sends
        or edits a text) the bot blocked, the text empty or too long, the flood limits."""
        cid = chat["id"]
        if cid in self._migrated:
            return self._error(
                400, "Bad Request: group chat was upgraded to a supergroup chat", migrate_to_chat_id=self._migrated[cid]
            )
        if method not in _COUNTED:
            return None
        if cid in self._blocked:
            return self._error(403, self._blocked[cid])
        if method == "sendMessage" and not str(p.get("text", "")).strip():
            return self._error(400, "Bad Request: message text is empty")
        if len(str(p.get("text", ""))) > 4096:
            return self._error(400, "Bad Request: message is too long")
        wait = self._throttle(chat)
        if wait:
            return self._error(429, f"Too Many Requests: retry after {wait}", retry_after=wait)
        return None

    def _throttle(self, chat: dict[str, Any]) -> int:
        """0 if this send is allowed now (and counted), else Telegram's retry_after in seconds."""
        if self._forced:
            return self._forced.popleft()
        if not self.enforce_limits:
            return 0
        return self.flood.take("private" if chat["type"] == "private" else "group", chat["id"], self.clock())

    def _error(self, status: int, description: str, **parameters: Any) -> Reply:
        body: dict[str, Any] = {"ok": False, "error_code": status, "description": description}
        if parameters:
            body["parameters"] = parameters
        return status, body

    # ---- the methods without a chat -----------------------------------------------------------
    def _get_me(self, p: dict[str, Any]) -> Reply:
        return _ok(self.me)

    def _get_updates(self, p: dict[str, Any]) -> Reply:
        return _ok([])

    def _done(self, p: dict[str, Any]) -> Reply:
        return _ok(True)

    def _set_webhook(self, p: dict[str, Any]) -> Reply:
        self.webhook = {
            "url": str(p.get("url", "")),
            "secret_token": p.get("secret_token"),
            "allowed_updates": p.get("allowed_updates"),
        }
        return _ok(True)

    def _delete_webhook(self, p: dict[str, Any]) -> Reply:
        self.webhook = {"url": ""}
        return _ok(True)

    def _get_webhook_info(self, p: dict[str, Any]) -> Reply:
        """What `lupus doctor` reads; a test sets the pending and the error."""
        info = {
            "url": self.webhook.get("url", ""),
            "has_custom_certificate": False,
            "pending_update_count": int(self.webhook.get("pending_update_count", 0)),
        }
        for key in ("last_error_date", "last_error_message", "allowed_updates"):
            if self.webhook.get(key) is not None:
                info[key] = self.webhook[key]
        return _ok(info)

    @staticmethod
    def _menu(p: dict[str, Any]) -> tuple[str, str]:
        """Which "/" menu a call names: its scope's type and its language."""
        scope = p.get("scope")
        return (
            str(scope.get("type", "default")) if isinstance(scope, dict) else "default",
            str(p.get("language_code") or ""),
        )

    def _set_my_commands(self, p: dict[str, Any]) -> Reply:
        self._commands[self._menu(p)] = [dict(c) for c in p.get("commands") or [] if isinstance(c, dict)]
        return _ok(True)

    def _delete_my_commands(self, p: dict[str, Any]) -> Reply:
        self._commands.pop(self._menu(p), None)
        return _ok(True)

    def _get_my_commands(self, p: dict[str, Any]) -> Reply:
        return _ok(self._commands.get(self._menu(p), []))

    def _answer_callback_query(self, p: dict[str, Any]) -> Reply:
        qid = str(p.get("callback_query_id") or "")
        if not qid or self._queries.get(qid) is not None:  # a query is answered once
            return self._error(400, "Bad Request: query is too old and response timeout expired or query ID is invalid")
        if len(str(p.get("text", ""))) > 200:
            return self._error(400, "Bad Request: MESSAGE_TOO_LONG")
        self._queries[qid] = {k: p[k] for k in ("text", "show_alert") if k in p}
        return _ok(True)

    # ---- the methods in a chat ----------------------------------------------------------------
    def _send_message(self, chat: dict[str, Any], p: dict[str, Any]) -> Reply:
        cid = chat["id"]
        self._next_id[cid] = self._next_id.get(cid, 0) + 1
        msg: dict[str, Any] = {
            "message_id": self._next_id[cid],
            "date": int(time.time()),
            "chat": chat,
            "from": self.me,
            "text": str(p.get("text", "")),
        }
        if p.get("reply_markup"):
            msg["reply_markup"] = p["reply_markup"]
        self._messages.setdefault(cid, {})[msg["message_id"]] = msg
        return _ok(msg)

    def _message(self, chat: dict[str, Any], p: dict[str, Any]) -> dict[str, Any] | None:
        """The message of ``chat`` that the call names, or None (never sent, or deleted)."""
        return self._messages.get(chat["id"], {}).get(int(p.get("message_id", 0)))

    def _delete_message(self, chat: dict[str, Any], p: dict[str, Any]) -> Reply:
        msg = self._message(chat, p)
        if msg is None:
            return self._error(400, _NO_MESSAGE)
        del self._messages[chat["id"]][msg["message_id"]]
        return _ok(True)

    def _edit_message_text(self, chat: dict[str, Any], p: dict[str, Any]) -> Reply:
        msg = self._message(chat, p)
        if msg is None:
            return self._error(400, _NO_MESSAGE)
        msg["text"] = str(p.get("text", ""))
        return self._edited(msg, p)

    def _edit_message_reply_markup(self, chat: dict[str, Any], p: dict[str, Any]) -> Reply:
        msg = self._message(chat, p)
        if msg is None:
            return self._error(400, _NO_MESSAGE)
        if (p.get("reply_markup") or None) == msg.get("reply_markup"):
            return self._error(
                400,
                "Bad Request: message is not modified: specified new message content "
                "and reply markup are exactly the same as a current content and reply "
                "markup of the message",
            )
        return self._edited(msg, p)

    def _edited(self, msg: dict[str, Any], p: dict[str, Any]) -> Reply:
        msg.pop("reply_markup", None)
        if p.get("reply_markup"):
            msg["reply_markup"] = p["reply_markup"]
        msg["edit_date"] = int(time.time())
        return _ok(dict(msg))

    def _get_chat(self, chat: dict[str, Any], p: dict[str, Any]) -> Reply:
        return _ok({**chat, "accent_color_id": 0, "max_reaction_count": 11})

    def _get_chat_member(self, chat: dict[str, Any], p: dict[str, Any]) -> Reply:
        uid = int(p.get("user_id", 0))
        admin = uid == self.me["id"] and chat["id"] in self._admin_in
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
        return _ok(member)

    def _not_admin(self, chat: dict[str, Any]) -> Reply | None:
        """Why the bot may not restrict, ban or unban anyone in ``chat``, or None."""
        if chat["type"] == "private":
            return self._error(400, "Bad Request: method is available for supergroup and channel chats only")
        if chat["id"] not in self._admin_in:
            return self._error(400, "Bad Request: not enough rights to restrict/unrestrict chat member")
        return None

    def _ban(self, chat: dict[str, Any], p: dict[str, Any]) -> Reply:
        """banChatMember and unbanChatMember: allowed to an admin of a group, and not recorded."""
        return self._not_admin(chat) or _ok(True)

    def _restrict_chat_member(self, chat: dict[str, Any], p: dict[str, Any]) -> Reply:
        """Needs a user and a permissions object, as Telegram does."""
        refused = self._not_admin(chat)
        if refused is not None:
            return refused
        cid = chat["id"]
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
        return _ok(True)

    _METHODS: ClassVar[dict[str, Callable[[BotApi, dict[str, Any]], Reply]]] = {
        "getMe": _get_me,
        "logOut": _done,
        "close": _done,
        "getUpdates": _get_updates,
        "setMyCommands": _set_my_commands,
        "deleteMyCommands": _delete_my_commands,
        "getMyCommands": _get_my_commands,
        "getWebhookInfo": _get_webhook_info,
        "setWebhook": _set_webhook,
        "deleteWebhook": _delete_webhook,
        "answerCallbackQuery": _answer_callback_query,
    }
    _CHAT_METHODS: ClassVar[dict[str, Callable[[BotApi, dict[str, Any], dict[str, Any]], Reply]]] = {
        "sendMessage": _send_message,
        "editMessageText": _edit_message_text,
        "editMessageReplyMarkup": _edit_message_reply_markup,
        "deleteMessage": _delete_message,
        "getChat": _get_chat,
        "getChatMember": _get_chat_member,
        "restrictChatMember": _restrict_chat_member,
        "banChatMember": _ban,
        "unbanChatMember": _ban,
    }

    # ---- over HTTP ----------------------------------------------------------------------------
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
