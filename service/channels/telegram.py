"""Telegram updates as commands, the way Telegram users expect to write them.

- ``/vote bob``, ``vote bob`` and ``/vote@LupusBot bob`` are one command (the grammar strips the
  slash and the suffix); in a group only ``/commands`` are read (as a bot in privacy mode sees
  them) and a command for another bot is ignored. Plain talk in a group (which the bot sees when it
  is an admin there, or its privacy mode is off) is overheard: relayed to the players who do not
  read the group (by SMS) like ``say``, never answered, never read as a command.
- ``/start`` is Telegram's "open the bot": bare, it asks for help; from a deep link
  ``t.me/<bot>?start=CODE`` it joins game CODE under the user's first name. Starting a game is
  ``start`` typed without the slash, or ``/begin``.
- A tap on an inline button sends its data, the move as typed (``#ABCD vote bob``); the webhook
  answers the callback query in its own response, so the button stops spinning at once.
- The sender's address is his user id, which is also his private chat's id; a message written
  in a group carries the group's chat id, which binds a game created there to the group.

The update is read straight from its JSON: the few fields a command needs, each checked for the
type the Bot API gives it (a shape it never sends is a 400). Building python-telegram-bot's
``Update`` tree for them cost more CPU than the rest of the webhook's own code together.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

CHANNEL = "telegram"
#: What a deep link may carry (Telegram allows A-Z, a-z, 0-9, _ and -, up to 64 characters).
START_PAYLOAD = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
#: What we ask Telegram to send us (``lupus telegram set-webhook``).
ALLOWED_UPDATES = ("message", "callback_query")


@dataclass(frozen=True)
class Incoming:
    address: str
    """The user's id (his private chat's id)."""
    external_id: str
    """The update_id: each is acted on once."""
    text: str
    display_name: str | None
    chat: str | None
    """The group chat it was written in; None for his private chat with the bot."""
    callback_id: str | None = None
    overheard: bool = False
    """Plain talk typed in a group (no ``/command``): relayed as talk, never answered."""


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
    if user is not None and (type(user.get("id")) is not int or not isinstance(user.get("first_name"), str)
                             or not isinstance(user.get("is_bot"), bool)):
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
        if data is None or not data.strip():  # a game's buttons always carry a move
            return None
        where = None if chat is None or chat["type"] == PRIVATE else str(chat["id"])
        return Incoming(str(user["id"]), uid, data.strip(), game_name(user["first_name"]), where, query["id"])
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
        return Incoming(str(user["id"]), uid, text, game_name(user["first_name"]), str(chat["id"]), overheard=True)
    return Incoming(str(user["id"]), uid, command_text(text), game_name(user["first_name"]),
                    None if private else str(chat["id"]))


def webhook_answer(item: Incoming | None) -> dict[str, Any]:
    """The webhook's response body: a Bot API call Telegram makes for us (answering a button tap
    costs no request of our own), or nothing."""
    if item is not None and item.callback_id:
        return {"method": "answerCallbackQuery", "callback_query_id": item.callback_id}
    return {}
