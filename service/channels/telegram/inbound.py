"""Telegram updates as commands, the way Telegram users expect to write them.

- ``/vote bob``, ``vote bob`` and ``/vote@LupusBot bob`` are one command (the grammar strips the
  slash and the suffix); in a group only ``/commands`` are read (as a bot in privacy mode sees
  them) and a command for another bot is ignored. Plain talk in a group (which the bot sees when it
  is an admin there, or its privacy mode is off) is overheard: relayed to the players who do not
  read the group (by SMS) like ``say``, never answered, never read as a command.
- ``/start`` is Telegram's "open the bot": bare, it asks for help; from a deep link
  ``t.me/<bot>?start=CODE`` it joins game CODE under the user's first name. Starting a game is
  ``start`` typed without the slash, or ``/begin``.
- A tap on an inline button sends its data: the game, the phase the button was made for and the
  move with seats for players (``#ABCD/4 vote 3``, ``button_data``), handed on as the move typed
  (``#ABCD vote 3``) with the phase and the message it sits under (``Incoming.tap``:
  ``service.channels.base.Tap``), so that a tap from a phase that is over changes nothing and a
  choice shows on the keyboard. Every callback query is answered, in the webhook's own response (so the button
  stops spinning at once, and no request of ours is spent): with the first line of the command's
  first reply as a short notice, and a tap whose data is empty or no button of ours gets a notice
  of its own (``webhook_answer``).
- ``from.language_code`` (en, it, es) is the language of someone who writes for the first time.
- The sender's address is his user id, which is also his private chat's id; a message written
  in a group carries the group's chat id, which binds a game created there to the group.

The update is read straight from its JSON: the few fields a command needs, each checked for the
type the Bot API gives it (a shape it never sends is a 400). Building python-telegram-bot's
``Update`` tree for them cost more CPU than the rest of the webhook's own code together.
"""

from __future__ import annotations

import hmac
import json
import re
from collections.abc import Sequence
from typing import Any

from service.channels.base import Incoming, Tap
from service.channels.telegram.presentation import read_button
from service.texts.i18n import LANGUAGES, t

CHANNEL = "telegram"
#: What a deep link may carry (Telegram allows A-Z, a-z, 0-9, _ and -, up to 64 characters).
START_PAYLOAD = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
#: What we ask Telegram to send us (``lupus telegram set-webhook``).
ALLOWED_UPDATES = ("message", "callback_query")
#: Telegram's limit on a callback answer's notice, in characters.
NOTICE_MAX = 200


def language(user: dict[str, Any] | None) -> str | None:
    """``from.language_code`` (an IETF tag: ``it``, ``es-419``) as one of our languages, or None."""
    code = user.get("language_code") if user is not None else None
    base = code.split("-")[0].lower() if isinstance(code, str) else ""
    return base if base in LANGUAGES else None


def game_name(first_name: str | None) -> str | None:
    """A game name from a Telegram first name: its first word, without what names may not hold."""
    words = (first_name or "").split()
    name = re.sub(r"[#:]", "", words[0])[:20] if words else ""
    return name if name and not name.isdigit() and name.isprintable() else None


def command_text(text: str) -> str:
    """Telegram's own ``/start`` mapped to our words; everything else as written."""
    head, _, rest = text.strip().partition(" ")
    if head.split("@", 1)[0].lower() == "/start":
        payload = rest.strip()
        if payload and START_PAYLOAD.match(payload):
            return f"join {payload}"
        return "help"
    return text.strip()


def addressed_elsewhere(text: str, bot_username: str | None) -> bool:
    """``/vote@OtherBot``: a command for another bot in the same group."""
    head = text.split(maxsplit=1)[0] if text.split() else ""
    _, at, who = head.partition("@")
    return bool(at) and bot_username is not None and who.lower() != bot_username.lower()


class NotAnUpdate(ValueError):
    """The JSON is not shaped like a Telegram update (the webhook answers 400)."""


class NotJson(ValueError):
    """The body is not JSON at all (the webhook answers 400)."""


def authentic(given: str, secret: str | None) -> bool:
    """The ``X-Telegram-Bot-Api-Secret-Token`` header is the secret we gave ``setWebhook``."""
    return hmac.compare_digest(given.encode(), (secret or "").encode())


def update_of(body: bytes) -> dict[str, Any]:
    """The webhook's body as an update (an object with an integer ``update_id``): raises ``NotJson``
    or ``NotAnUpdate``."""
    try:
        data = json.loads(body)
    except ValueError:
        raise NotJson("malformed JSON") from None
    if not isinstance(data, dict) or type(data.get("update_id")) is not int:
        raise NotAnUpdate("update_id")
    return data


PRIVATE = "private"


def _object(parent: dict[str, Any], key: str) -> dict[str, Any] | None:
    """``parent[key]``: an object, or None when absent or null; any other value is no update's."""
    value = parent.get(key)
    if value is not None and not isinstance(value, dict):
        raise NotAnUpdate(key)
    return value


def _user(parent: dict[str, Any], key: str) -> dict[str, Any] | None:
    """A User (``from``) as the Bot API sends it: an integer id, a first name, ``is_bot``."""
    user = _object(parent, key)
    if user is not None and (
        type(user.get("id")) is not int
        or not isinstance(user.get("first_name"), str)
        or not isinstance(user.get("is_bot"), bool)
    ):
        raise NotAnUpdate(key)
    return user


def _chat(parent: dict[str, Any]) -> dict[str, Any] | None:
    """A Chat as the Bot API sends it: an integer id and a type."""
    chat = _object(parent, "chat")
    if chat is not None and (type(chat.get("id")) is not int or not isinstance(chat.get("type"), str)):
        raise NotAnUpdate("chat")
    return chat


def incoming(update: dict[str, Any], bot_username: str | None = None) -> Incoming | None:
    """The command in an update (its JSON, whose ``update_id`` is an integer), or None for updates
    the game does not use (an edit, a sticker, a member joining, a bot's message). Raises
    ``NotAnUpdate`` for a shape Telegram never sends."""
    uid = str(update["update_id"])
    query = _object(update, "callback_query")
    if query is not None:
        user, message = _user(query, "from"), _object(query, "message")
        chat = _chat(message) if message is not None else None
        data = query.get("data")
        if user is None or not isinstance(query.get("id"), str) or not isinstance(data, str | None):
            raise NotAnUpdate("callback_query")
        where = None if chat is None or chat["type"] == PRIVATE else str(chat["id"])
        read = read_button(data) if data is not None else None
        name, lang = game_name(user["first_name"]), language(user)
        if read is None:  # empty, or no button of ours: answered all the same (webhook_answer)
            return Incoming(CHANNEL, str(user["id"]), uid, "", name, where, callback_id=query["id"], language=lang)
        at = (
            (str(chat["id"]), message["message_id"])
            if chat is not None and message is not None and type(message.get("message_id")) is int
            else None
        )
        move, phase = read
        tap = Tap(phase, *at) if at is not None else Tap(phase)
        return Incoming(
            CHANNEL, str(user["id"]), uid, move, name, where, callback_id=query["id"], tap=tap, language=lang
        )
    msg = _object(update, "message")
    if msg is None:
        return None
    user, chat = _user(msg, "from"), _chat(msg)
    if chat is None:
        raise NotAnUpdate("message.chat")
    text = msg.get("text")
    if not isinstance(text, str) or user is None or user["is_bot"]:
        return None
    text = text.strip()
    private = chat["type"] == PRIVATE
    if not text or (not private and addressed_elsewhere(text, bot_username)):
        return None
    if not private and not text.startswith("/"):
        return Incoming(
            CHANNEL,
            str(user["id"]),
            uid,
            text,
            game_name(user["first_name"]),
            str(chat["id"]),
            overheard=True,
            language=language(user),
        )
    return Incoming(
        CHANNEL,
        str(user["id"]),
        uid,
        command_text(text),
        game_name(user["first_name"]),
        None if private else str(chat["id"]),
        language=language(user),
    )


def webhook_answer(item: Incoming | None, replies: Sequence[str] = ()) -> dict[str, Any]:
    """The webhook's response body: a Bot API call Telegram makes for us (answering a button tap
    costs no request of our own), or nothing. A tap's notice is the first line of the first reply
    (the engine's refusal, "that button was for an earlier phase"), which also reaches the chat."""
    if item is None or not item.callback_id:
        return {}
    answer: dict[str, Any] = {"method": "answerCallbackQuery", "callback_query_id": item.callback_id}
    note = replies[0].split("\n", 1)[0].strip() if replies else ""
    if item.unusable:
        note = t(item.language or "en", "tg.tap.unknown")
    if note:
        answer["text"] = note if len(note) <= NOTICE_MAX else note[: NOTICE_MAX - 1] + "\u2026"
    return answer
