"""Building the senders and the limiter from the settings, for every registered channel.

Each channel says what the settings make of it (``Channel.rules``, ``Channel.outbound``): this
module only puts them together, so a new channel's sending needs nothing here. A channel whose
credentials are missing is simply off: it has no sender, and ``Delivery.off`` says why. Call
``make_delivery`` once per process (or lazily): the senders are fork-safe, but each process should
have one of each, not one per message.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from service.channels import CHANNELS
from service.delivery.limiter import Limiter, Policy, make_limiter
from service.delivery.senders import Sender
from service.settings import Settings, redis_tls_options


@dataclass
class Delivery:
    senders: dict[str, Sender]
    limiter: Limiter
    off: dict[str, str] = field(default_factory=dict)  # channel -> why it is off

    def close(self) -> None:
        for sender in self.senders.values():
            sender.close()


def make_policy(settings: Settings | None = None) -> Policy:
    """The rules of every registered channel for each of its chat kinds, as ``settings`` configure
    them (None: the settings' defaults, whatever the environment says). Each channel keeps its
    limits inside its platform's with room to spare (``service.channels.telegram``'s rules say why)."""
    cfg = settings if settings is not None else Settings.model_construct()
    return {
        (channel.name, kind): list(rules) for channel in CHANNELS.values() for kind, rules in channel.rules(cfg).items()
    }


DEFAULT_POLICY = make_policy()
"""The built-in channels' limits at their default settings (what the tests hold deliveries to)."""


def make_delivery(settings: Settings, *, policy: Policy | None = None) -> Delivery:
    """The senders of the registered channels that ``settings`` configure, and one limiter for them
    all: Redis's when ``REDIS_URL`` is set, else this process's own. ``policy`` replaces the
    channels' own rules (the sandbox's stand-ins take any rate)."""
    senders: dict[str, Sender] = {}
    off: dict[str, str] = {}
    budgets: dict[str, str] = {}
    for channel in CHANNELS.values():
        out = channel.outbound(settings)
        if out.sender is None:
            off[channel.name] = out.off
        else:
            senders[channel.name], budgets[channel.name] = out.sender, out.budget
    limiter = make_limiter(
        settings.REDIS_URL,
        policy or make_policy(settings),
        channel_ids=budgets,
        redis_options=redis_tls_options(settings.REDIS_URL),
    )
    return Delivery(senders, limiter, off)
