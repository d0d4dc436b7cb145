"""The Telegram channel: ``inbound`` reads the webhook's updates (secret token, taps),
``presentation`` gives the choices buttons and keeps the "/" menu, ``sender`` calls the Bot API.
``CHANNEL`` answers the core's questions (``service.channels.base.Channel``): how a notice looks,
and what the settings make of the channel (its rate limits, its sender)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from service.channels.base import Buttons, Check, Credentials, Hub, Outbound, Plain, Webhook, credentials
from service.channels.telegram import presentation
from service.delivery.limiter import Rate, Rule

if TYPE_CHECKING:
    from service.settings import Settings

NAME = "telegram"
TELEGRAM_MAX = 4096
NEEDS = ("TELEGRAM_BOT_TOKEN", "TELEGRAM_WEBHOOK_SECRET")
"""The bot's token (to send, and to be the bot) and the secret Telegram sends with every update."""


class Telegram(Plain):
    """Telegram: buttons, acts on groups, a bot that may not write first; every text as written
    (what ``Plain`` does by default, it does too)."""

    buttons = True
    acts = True
    writes_first = True  # a bot may not write to a user who never opened it
    max_len: int | None = TELEGRAM_MAX

    def cannot_act(self, error: str) -> bool:
        return presentation.no_rights(error)

    def group(self, address: str) -> bool:
        """Telegram groups have negative chat ids."""
        return address.startswith("-")

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
        return presentation.buttons(actions, code, lang, phase=phase, seats=seats, chosen=chosen)

    def rules(self, settings: Settings) -> Mapping[str, Sequence[Rule]]:
        """Each inside Telegram's with room to spare: Telegram counts texts as they arrive, and the
        network delays some sends more than others, so a limit equal to Telegram's own is refused
        whenever the first texts of a burst arrive a little late and the next one on time
        (``service.sandbox.fake_telegram`` answers as Telegram does;
        ``tests/delivery/test_stand_in_limits.py``).

        The bot: ~30 a second (``TELEGRAM_PER_SECOND``, 28 sustained, no burst, so that any
        one-second window holds at most ~30 even with network jitter). A private chat: one a second
        after a burst of 2, where Telegram lets a burst of 3 through and refuses a fourth text less
        than a second after them; the text kept spare absorbs up to a second of difference between
        two sends' delays. A group: 20 a minute, here 15 a minute with a burst of 3, at most 18 in
        any minute. (What queues for a group goes merged, so a group rarely needs more.)"""
        bot = Rule("channel", Rate(settings.TELEGRAM_PER_SECOND, 1.0))
        return {
            "private": [bot, Rule("address", Rate(1, 1.0, burst=2))],
            "group": [bot, Rule("address", Rate(15, 60.0, burst=3))],
        }

    def outbound(self, settings: Settings) -> Outbound:
        """A sender for the bot ``TELEGRAM_BOT_TOKEN`` (through ``TELEGRAM_API_URL``), its budget
        the bot's own."""
        if not settings.TELEGRAM_BOT_TOKEN:
            return Outbound(None, off="TELEGRAM_BOT_TOKEN is not set")
        from service.channels.telegram.sender import TelegramSender  # python-telegram-bot: where one sends

        sender = TelegramSender(settings.TELEGRAM_BOT_TOKEN, api_url=settings.TELEGRAM_API_URL)
        return Outbound(sender, sender.bot_id)

    def credentials(self, settings: Settings) -> Credentials:
        return credentials(settings, *NEEDS)

    def webhook_off(self, settings: Settings) -> str | None:
        return self.credentials(settings).off

    def webhook(self, hub: Hub) -> Webhook | None:
        from service.channels.telegram.webhook import TelegramWebhook

        return TelegramWebhook(hub, self.name, self.webhook_off)

    def setup(self, settings: Settings, *, fresh: bool = False) -> list[Check]:
        from service.channels.telegram import setup  # python-telegram-bot: only where the operator asks

        return setup.setup(settings, fresh)

    def doctor(self, settings: Settings) -> list[Check]:
        from service.channels.telegram import setup

        return setup.doctor(settings)

    def private_link(self, handle: str | None, start: str | None = None) -> str | None:
        """t.me's link to the bot, whose ``start`` parameter Telegram sends back as /start's argument."""
        if not handle:
            return None
        return f"https://t.me/{handle}" + (f"?start={start}" if start else "")


CHANNEL = Telegram(NAME)
