"""A third channel, for tests: a plain-text console, one line in, one line out. It is one package
(inbound, presentation, sender) and one line in the registry (``service.channels.register``),
and touches neither the Telegram nor the SMS package: what adding a channel costs.

How it looks: every text as written (no buttons, nothing held or merged, no short forms), each
line of a text on a line of its own, prefixed with ``| ``, as a terminal would show it. How it
sends: through the real delivery (``service.delivery``), by its own sender and under its own rate
limit, which the settings need not configure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from service.channels.base import Hub, Outbound, Plain, Webhook
from service.delivery.limiter import Rate, Rule
from service.settings import Settings

NAME = "console"
PREFIX = "| "
RATE = Rate(3, 1.0, burst=20)
"""What one console shows: a screenful at once, then three texts a second (slower than the
delivery books ahead, ``dispatch.AHEAD``, so that a frozen clock lets exactly the burst through)."""


class Console(Plain):
    """Plain texts (``Plain``'s defaults: no buttons, nothing held or merged), each line marked as
    a terminal shows it, sent by its own sender under its own rate."""

    def fold(self, text: str) -> str:
        return "\n".join(PREFIX + line for line in text.split("\n"))

    def rules(self, settings: Settings) -> Mapping[str, Sequence[Rule]]:
        return {"private": [Rule("address", RATE)]}  # each console is one person's; it has no groups

    def outbound(self, settings: Settings) -> Outbound:
        from .sender import ConsoleSender

        return Outbound(ConsoleSender())

    def webhook_off(self, settings: Settings) -> str | None:
        return None

    def webhook(self, hub: Hub) -> Webhook | None:
        return None  # lines come in by ``inbound.type_line``, not over HTTP


CHANNEL = Console(NAME)
