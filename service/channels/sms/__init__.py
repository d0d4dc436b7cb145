"""The SMS channel (Twilio): ``inbound`` reads Twilio's form posts (signature, STOP and START),
``presentation`` and ``gsm7`` shape what an SMS reader is sent, ``sender`` sends it. ``CHANNEL``
answers the core's questions (``service.channels.base.Channel``)."""

from __future__ import annotations

from collections.abc import Sequence

from service.channels.base import Buttons, Notice
from service.channels.sms import gsm7, presentation

NAME = "sms"
MERGED = f"{NAME}.merged"
"""The key of one text that carries what a command wrote to one SMS reader (the parts stay in the
outbox, ``merged``, under their own keys: ``Ctx.merge_texts``)."""
TWILIO_MAX = 1600  # characters; over it Twilio refuses the message (error 21617)


class Sms:
    name = NAME
    short = True
    buttons = False
    acts = False
    writes_first = False
    max_len: int | None = TWILIO_MAX

    def fold(self, text: str) -> str:
        return gsm7.fold(text)

    def cannot_act(self, error: str) -> bool:
        return False

    def group(self, address: str) -> bool:
        return False

    def pack(self, texts: Sequence[str]) -> list[list[int]] | None:
        return gsm7.pack(texts)

    def cost(self, text: str) -> int:
        return gsm7.segments(text)

    def keyboard(self, actions: Sequence[str], code: str, lang: str, *, phase: int, seats: Sequence[str],
                 chosen: str | None = None) -> Buttons | None:
        return None  # the texts number the choices instead

    def holds(self, notice: Notice, own: bool, first: bool) -> bool:
        if own:
            return notice.key in presentation.OWN_HELD_KEYS and not first
        return notice.key in presentation.HELD_KEYS

    def answered_first(self, notice: Notice) -> str | None:
        return presentation.FIRST_ANSWERED.get(notice.key)

    def said_next(self, notice: Notice) -> bool:
        return notice.key in presentation.SAID_NEXT

    def held_line(self, notice: Notice) -> str | None:
        return presentation.held_line(notice.key, notice.data, notice.reader.language)


CHANNEL = Sms()
