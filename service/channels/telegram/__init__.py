"""The Telegram channel: ``inbound`` reads the webhook's updates (secret token, taps),
``presentation`` gives the choices buttons and keeps the "/" menu, ``sender`` calls the Bot API.
``CHANNEL`` answers the core's questions (``service.channels.base.Channel``)."""

from __future__ import annotations

from collections.abc import Sequence

from service.channels.base import Buttons, Notice
from service.channels.telegram import presentation

NAME = "telegram"
TELEGRAM_MAX = 4096


class Telegram:
    name = NAME
    short = False
    buttons = True
    acts = True
    writes_first = True  # a bot may not write to a user who never opened it
    max_len: int | None = TELEGRAM_MAX

    def fold(self, text: str) -> str:
        return text

    def cannot_act(self, error: str) -> bool:
        return presentation.no_rights(error)

    def group(self, address: str) -> bool:
        """Telegram groups have negative chat ids."""
        return address.startswith("-")

    def pack(self, texts: Sequence[str]) -> list[list[int]] | None:
        return None

    def cost(self, text: str) -> int:
        return 1

    def keyboard(self, actions: Sequence[str], code: str, lang: str, *, phase: int, seats: Sequence[str],
                 chosen: str | None = None) -> Buttons | None:
        return presentation.buttons(actions, code, lang, phase=phase, seats=seats, chosen=chosen)

    def holds(self, notice: Notice, own: bool, first: bool) -> bool:
        return False

    def answered_first(self, notice: Notice) -> str | None:
        return None

    def said_next(self, notice: Notice) -> bool:
        return False

    def held_line(self, notice: Notice) -> str | None:
        return None


CHANNEL = Telegram()
