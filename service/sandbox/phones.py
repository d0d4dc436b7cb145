"""The sandbox's phones: who each simulated player is, what his phone sends in one message, and
his chat as the page shows it (the bot's messages and his own, interleaved as he saw them)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from service.sandbox import inbound

#: What a phone takes in one message: the Telegram app sends a longer text as several messages of
#: 4,096 characters; an SMS longer than Twilio's 1,600 characters never reaches the number.
TELEGRAM_MAX = 4096
SMS_MAX = 1600
NAMES = [
    "Ann",
    "Bob",
    "Cat",
    "Dan",
    "Eve",
    "Fay",
    "Gus",
    "Hal",
    "Ivy",
    "Jim",
    "Kim",
    "Leo",
    "Mia",
    "Ned",
    "Oli",
    "Pam",
    "Quin",
    "Rex",
    "Sue",
    "Tom",
    "Uma",
    "Vic",
    "Wes",
    "Xia",
    "Yves",
    "Zoe",
]


@dataclass
class Phone:
    """One simulated player: a Telegram user (his private chat) or a mobile number."""

    name: str
    channel: str  # "telegram" or "sms", as the service names channels
    address: str  # the Telegram user id, or the number in E.164
    robot: bool = False
    said: list[tuple[int, str]] = field(default_factory=list)
    """What he wrote, each with how far his inbox went when he wrote it (to interleave the two)."""

    def user(self) -> dict[str, Any]:
        return inbound.telegram_user(int(self.address), self.name, language_code="en")


def timeline(phone: Phone, inbox: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """His chat as his phone shows it, from what the stand-in holds for him (``inbox``): the bot's
    messages and his own, in order."""
    items: list[tuple[int, int, dict[str, Any]]] = []
    for i, m in enumerate(inbox, start=1):
        if phone.channel == "telegram":
            keyboard = m.get("reply_markup", {}).get("inline_keyboard", []) if m.get("reply_markup") else []
            buttons = [[{"text": b.get("text", ""), "data": b.get("callback_data")} for b in row] for row in keyboard]
            items.append(
                (m["message_id"], 0, {"from": "bot", "text": m["text"], "id": m["message_id"], "buttons": buttons})
            )
        else:
            items.append((i, 0, {"from": "bot", "text": m["body"], "segments": int(m["num_segments"])}))
    for j, (mark, text) in enumerate(phone.said, start=1):
        items.append((mark, -len(phone.said) + j - 1, {"from": "me", "text": text}))
    # What he wrote goes after the message he had seen when he wrote it, in the order he wrote.
    items.sort(key=lambda x: (x[0], 0 if x[2]["from"] == "bot" else 1, x[1]))
    return [x[2] for x in items]


def seated(games: Sequence[dict[str, Any]]) -> dict[str, tuple[str, bool]]:
    """Each phone under the newest game he sits in (or hosts), and whether he is dead there."""
    where: dict[str, tuple[str, bool]] = {}
    for g in games:
        for seat in g["seats"]:
            if seat["phone"]:
                where[seat["phone"]] = (g["code"], seat["dead"])
        if g["host"] and g["host"] not in {x["phone"] for x in g["seats"]}:
            where[g["host"]] = (g["code"], False)
    return where


def cut(text: str, size: int) -> list[str]:
    """A long message cut as the Telegram app cuts it: pieces of at most ``size``, at a space or a
    line break where one is near."""
    parts = []
    while len(text) > size:
        cut = max(text.rfind("\n", 0, size), text.rfind(" ", 0, size))
        cut = cut if cut > size // 2 else size
        parts.append(text[:cut])
        text = text[cut:].lstrip()
    return [*parts, text] if text else parts
