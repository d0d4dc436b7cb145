"""The SMS channel (Twilio): ``inbound`` reads Twilio's form posts (signature, STOP and START),
``presentation`` and ``gsm7`` shape what an SMS reader is sent, ``sender`` sends it. ``CHANNEL``
answers the core's questions (``service.channels.base.Channel``): how a notice looks, and what the
settings make of the channel (its rate limit, its sender)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from service.channels.base import Buttons, Check, Credentials, Hub, Notice, Outbound, Webhook, credentials
from service.channels.sms import gsm7, presentation
from service.channels.sms.routes import STATUS_PATH
from service.delivery.limiter import Rate, Rule

if TYPE_CHECKING:
    from service.settings import Settings

NAME = "sms"
MERGED = f"{NAME}.merged"
"""The key of one text that carries what a command wrote to one SMS reader (the parts stay in the
outbox, ``merged``, under their own keys: ``Ctx.merge_texts``)."""
TWILIO_MAX = 1600  # characters; over it Twilio refuses the message (error 21617)
NEEDS = ("TWILIO_ACCOUNT_SID", "TWILIO_AUTH_TOKEN", "TWILIO_FROM_NUMBER or TWILIO_MESSAGING_SERVICE_SID")
"""The account, its token (which also signs every webhook call) and whom the texts come from."""


class Sms:
    name = NAME
    short = True
    buttons = False
    acts = False
    writes_first = False
    max_len: int | None = TWILIO_MAX

    def fold(self, text: str) -> str:
        return gsm7.fold(text)

    def shows(self, name: str) -> str | None:
        return gsm7.plain_name(name)

    def cannot_act(self, error: str) -> bool:
        return False

    def group(self, address: str) -> bool:
        return False

    def pack(self, texts: Sequence[str]) -> list[list[int]] | None:
        return gsm7.pack(texts)

    def cost(self, text: str) -> int:
        return gsm7.segments(text)

    def keyboard(
        self,
        actions: Sequence[str],
        code: str,
        lang: str,
        *,
        phase: int,
        seats: Sequence[str],
        chosen: str | None = None,
    ) -> Buttons | None:
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

    def rules(self, settings: Settings) -> Mapping[str, Sequence[Rule]]:
        """Per sender number, charged per segment (``cost``): a long code sends about one segment a
        second; a short code or a messaging service with many numbers can be configured faster
        (``SMS_SEGMENTS_PER_SECOND``)."""
        number = [Rule("channel", Rate(settings.SMS_SEGMENTS_PER_SECOND, 1.0))]
        return {"private": number, "group": number}

    def outbound(self, settings: Settings) -> Outbound:
        """A sender for the Twilio account, from its number or its messaging service (whose budget
        the sends spend), its delivery reports posted to ``PUBLIC_URL``'s status route."""
        missing = self.credentials(settings).missing
        if missing:
            return Outbound(None, off=" and ".join(missing) + (" is" if len(missing) == 1 else " are") + " not set")
        from service.channels.sms.sender import TwilioSender  # Twilio's SDK: where one sends

        callback = settings.PUBLIC_URL.rstrip("/") + STATUS_PATH if settings.PUBLIC_URL else None
        sender = TwilioSender(
            settings.TWILIO_ACCOUNT_SID or "",
            settings.TWILIO_AUTH_TOKEN or "",
            from_number=settings.TWILIO_FROM_NUMBER,
            messaging_service_sid=settings.TWILIO_MESSAGING_SERVICE_SID,
            api_url=settings.TWILIO_API_URL,
            status_callback=callback,
        )
        return Outbound(sender, sender.sender_id)

    def credentials(self, settings: Settings) -> Credentials:
        return credentials(settings, *NEEDS)

    def webhook_off(self, settings: Settings) -> str | None:
        return self.credentials(settings).off

    def webhook(self, hub: Hub) -> Webhook | None:
        from service.channels.sms.webhook import SmsWebhook

        return SmsWebhook(hub, self.webhook_off)

    def setup(self, settings: Settings, *, fresh: bool = False) -> list[Check]:
        from service.channels.sms import setup  # Twilio's SDK: only where the operator asks

        return setup.setup(settings, fresh)

    def doctor(self, settings: Settings) -> list[Check]:
        from service.channels.sms import setup

        return setup.doctor(settings)

    def private_link(self, handle: str | None, start: str | None = None) -> str | None:
        return None  # a number is texted, not opened


CHANNEL = Sms()
