"""Telegram through python-telegram-bot 22: one `Bot` and one connection pool per process.

The Bot lives on a `BackgroundLoop` (see loop.py); `send` is synchronous so a Celery task can call
it. `call` runs any other Bot method (edit a message, answer a callback query, set the webhook) on
the same Bot and loop.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import re
import threading
import warnings
from collections.abc import Awaitable, Callable
from typing import TypeVar

import structlog
from telegram import Bot, ChatPermissions, InlineKeyboardButton, InlineKeyboardMarkup, LinkPreviewOptions
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
)
from telegram.request import HTTPXRequest
from telegram.warnings import PTBDeprecationWarning

from service.delivery.loop import BackgroundLoop
from service.delivery.senders import KEYBOARD, Button, Keyboard, PermanentReason, SendResult, SendStatus

log = structlog.get_logger(__name__)
T = TypeVar("T")
TELEGRAM_API_URL = "https://api.telegram.org"
_NOT_FOUND = re.compile(r"chat not found|user not found|peer_id_invalid|user is deactivated", re.I)
#: Telegram's answer to an edit that changes nothing: the keyboard is as asked (a retried edit).
_UNCHANGED = re.compile(r"message is not modified", re.I)


def bot_base_url(api_url: str) -> str:
    """PTB's `base_url` for a Bot API server: PTB appends the token, then "/method". Accepts the
    server's root ("http://host:port") or a URL already ending in "/bot"."""
    root = api_url.rstrip("/")
    return root if root.endswith("/bot") else root + "/bot"


def chat_id(address: str) -> int | str:
    """Numeric chat ids go as integers; "@channelname" stays a string."""
    return int(address) if re.fullmatch(r"-?\d+", address) else address


def keyboard_markup(buttons: Keyboard | None) -> InlineKeyboardMarkup | None:
    if not buttons:
        return None
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(b.text, callback_data=b.data, url=b.url) for b in row] for row in buttons]
    )


def classify(exc: TelegramError) -> SendResult:
    """What a failed Bot API call means for the outbox. Order matters: in PTB, BadRequest and
    TimedOut are both NetworkErrors."""
    text = str(exc)
    if isinstance(exc, RetryAfter):
        with warnings.catch_warnings():  # PTB 22.2+ warns that it will become a timedelta
            warnings.simplefilter("ignore", PTBDeprecationWarning)
            after = exc.retry_after
        seconds = after.total_seconds() if isinstance(after, dt.timedelta) else float(after)
        return SendResult.retry(seconds, text)
    if isinstance(exc, Forbidden):
        # "bot was blocked by the user", "bot can't initiate conversation with a user" (he never
        # opened the bot), "bot was kicked from the group chat"; a deleted account is gone for good.
        reason = PermanentReason.NOT_FOUND if _NOT_FOUND.search(text) else PermanentReason.BLOCKED
        return SendResult.permanent(reason, text)
    if isinstance(exc, BadRequest):
        reason = PermanentReason.NOT_FOUND if _NOT_FOUND.search(text) else PermanentReason.REJECTED
        return SendResult.permanent(reason, text)
    if isinstance(exc, NetworkError):
        return SendResult.transient(text)
    # InvalidToken, EndPointNotFound, Conflict: the deployment is misconfigured, not the recipient
    # unreachable; retrying with backoff is right and the logs say why.
    log.error("telegram.misconfigured", error=text)
    return SendResult.transient(text)


class TelegramSender:
    channel = "telegram"

    def __init__(
        self,
        token: str,
        *,
        api_url: str = TELEGRAM_API_URL,
        pool_size: int = 16,
        timeout: float = 10.0,
        parse_mode: str | None = None,
        loop: BackgroundLoop | None = None,
    ) -> None:
        """`api_url` is the Bot API server's root (TELEGRAM_API_URL; the sandbox points it at its
        stand-in). `pool_size` bounds the HTTP connections of this process's Bot. `loop` defaults
        to the process-wide background loop. `parse_mode` ("HTML", "MarkdownV2") applies to every text."""
        if not token:
            raise ValueError("a Telegram bot token is required")
        self._token = token
        self._base_url = bot_base_url(api_url)
        self._pool_size = pool_size
        self._timeout = timeout
        self._parse_mode = parse_mode
        self._own_loop = loop
        self._bot: Bot | None = None
        self._bot_pid = 0
        self._bot_loop: BackgroundLoop | None = None
        self._lock = threading.Lock()
        self._lock_pid = os.getpid()

    @property
    def bot_id(self) -> str:
        """The bot's numeric id, the part of the token before the colon (no network needed)."""
        return self._token.split(":", 1)[0]

    def _loop(self) -> BackgroundLoop:
        if self._own_loop is not None and self._own_loop.alive:
            return self._own_loop
        return BackgroundLoop.for_this_process()

    def _ready(self) -> tuple[Bot, BackgroundLoop]:
        """This process's initialized Bot and its loop (made on first use, and again after a fork)."""
        if self._lock_pid != os.getpid():  # forked: another parent thread may have held the lock
            self._lock, self._lock_pid = threading.Lock(), os.getpid()
        with self._lock:
            loop = self._loop()
            if self._bot is None or self._bot_pid != os.getpid() or self._bot_loop is not loop:
                t = self._timeout

                async def make() -> Bot:
                    request = HTTPXRequest(
                        connection_pool_size=self._pool_size,
                        read_timeout=t,
                        write_timeout=t,
                        connect_timeout=t,
                        pool_timeout=t,
                    )
                    bot = Bot(self._token, base_url=self._base_url, request=request)
                    try:
                        await bot.initialize()  # getMe: fails fast on a wrong token or URL
                    except BaseException:
                        await request.shutdown()  # do not leak a connection pool per failed attempt
                        raise
                    return bot

                self._bot = loop.run(make(), timeout=3 * t)
                self._bot_pid, self._bot_loop = os.getpid(), loop
            return self._bot, loop

    def warm(self) -> None:
        """Make this process's Bot now (its getMe), so that the first send does not spend its rate
        slot waiting for it. A failure is left for that send to meet and classify."""
        with contextlib.suppress(Exception):
            self._ready()

    def call(self, fn: Callable[[Bot], Awaitable[T]], timeout: float | None = None) -> T:
        """Run `fn(bot)` on this process's Bot and loop: `sender.call(lambda b: b.get_me())`."""
        bot, loop = self._ready()

        async def run() -> T:
            return await fn(bot)

        return loop.run(run(), timeout=timeout or 3 * self._timeout)

    @property
    def bot(self) -> Bot:
        return self._ready()[0]

    def cost(self, text: str) -> int:
        return 1

    def send(self, address: str, text: str, *, buttons: Keyboard | None = None, dedup_key: str) -> SendResult:
        markup = keyboard_markup(buttons)
        target = chat_id(address)
        moved: str | None = None
        try:
            try:
                msg = self.call(
                    lambda b: b.send_message(
                        target,
                        text,
                        reply_markup=markup,
                        parse_mode=self._parse_mode,
                        link_preview_options=LinkPreviewOptions(is_disabled=True),
                    )
                )
            except ChatMigrated as e:
                # A group became a supergroup: send there once and tell the caller its new id.
                new_id = e.new_chat_id
                moved = str(new_id)
                msg = self.call(
                    lambda b: b.send_message(
                        new_id,
                        text,
                        reply_markup=markup,
                        parse_mode=self._parse_mode,
                        link_preview_options=LinkPreviewOptions(is_disabled=True),
                    )
                )
        except TelegramError as e:
            result = classify(e)
            log.info("telegram.send_failed", key=dedup_key, status=str(result.status), error=str(e))
            return result
        except TimeoutError as e:
            return SendResult.transient(f"timed out: {e}")
        return SendResult.sent(str(msg.message_id), new_address=moved)

    def act(self, address: str, action: str, chat: str, *, dedup_key: str) -> SendResult:
        """Mute (``mute``) or let speak again (``unmute``) the member ``address`` in the group ``chat``:
        restrictChatMember. Or (``keyboard``, ``chat`` then a JSON object: the chat, the message id and
        the new rows of buttons) replace a sent message's keyboard: editMessageReplyMarkup. Any
        refusal is this act's alone (REJECTED): the member stays reachable."""
        if action == KEYBOARD:
            return self._keyboard(chat, dedup_key)
        permissions = (
            ChatPermissions.all_permissions()
            if action == "unmute"
            else ChatPermissions(
                can_send_messages=False,
                can_send_audios=False,
                can_send_documents=False,
                can_send_photos=False,
                can_send_videos=False,
                can_send_video_notes=False,
                can_send_voice_notes=False,
                can_send_polls=False,
                can_send_other_messages=False,
                can_add_web_page_previews=False,
            )
        )
        target, user = chat_id(chat), int(address)
        try:
            try:
                self.call(lambda b: b.restrict_chat_member(target, user, permissions))
            except ChatMigrated as e:
                new_id = e.new_chat_id
                self.call(lambda b: b.restrict_chat_member(new_id, user, permissions))
        except TelegramError as e:
            return _act_failed(e, dedup_key, action)
        except TimeoutError as e:
            return SendResult.transient(f"timed out: {e}")
        return SendResult.sent()

    def _keyboard(self, spec: str, dedup_key: str) -> SendResult:
        try:
            where = json.loads(spec)
            target, message_id = chat_id(str(where["chat"])), int(where["message_id"])
            rows = [[Button(b["text"], b.get("data"), b.get("url")) for b in row] for row in where.get("buttons") or []]
        except (ValueError, TypeError, KeyError) as e:
            return SendResult.permanent(PermanentReason.REJECTED, f"no keyboard edit: {e}")
        markup = keyboard_markup(rows)
        try:
            self.call(lambda b: b.edit_message_reply_markup(chat_id=target, message_id=message_id, reply_markup=markup))
        except TelegramError as e:
            if _UNCHANGED.search(str(e)):
                return SendResult.sent()
            return _act_failed(e, dedup_key, KEYBOARD)
        except TimeoutError as e:
            return SendResult.transient(f"timed out: {e}")
        return SendResult.sent()

    def close(self) -> None:
        with self._lock:
            bot, loop = self._bot, self._bot_loop
            self._bot = None
            if bot is not None and loop is not None and loop.alive:
                try:
                    loop.run(bot.shutdown(), timeout=self._timeout)
                except (TelegramError, TimeoutError) as e:
                    log.warning("telegram.shutdown_failed", error=str(e))


def _act_failed(e: TelegramError, dedup_key: str, action: str) -> SendResult:
    """An act Telegram refused: what a permanent refusal is (the bot's rights, a chat that is gone)
    is rejected, never retried; anything else is retried as a send would be."""
    result = classify(e)
    log.info("telegram.act_failed", key=dedup_key, action=action, status=str(result.status), error=str(e))
    if result.status is SendStatus.PERMANENT:
        return SendResult.permanent(PermanentReason.REJECTED, str(e))
    return result
