"""The channels: one package each (``telegram``, ``sms``), holding its inbound parsing and
authentication (its webhook routes), its presentation, its sender and its rate rules, behind
``base.Channel``. The core asks a reader's channel how a notice looks (``channel``); the delivery
(``service.delivery.wiring``) and the web app (``service.web``) loop over ``CHANNELS`` for the
senders, the rules and the routes. A new channel is one package and one line in ``CHANNELS`` (or
``register``, as the tests' console channel does)."""

from __future__ import annotations

from service.channels import sms, telegram
from service.channels.base import Channel, Plain

CHANNELS: dict[str, Channel] = {c.name: c for c in (telegram.CHANNEL, sms.CHANNEL)}


def register(channel: Channel) -> None:
    """Add a channel (or replace the one of that name)."""
    CHANNELS[channel.name] = channel


def channel(name: str) -> Channel:
    """The channel named ``name``: a plain one for a name no package registered (the recording
    channel of the service's tests)."""
    found = CHANNELS.get(name)
    return found if found is not None else Plain(name)


def shown_as(name: str) -> set[str | None]:
    """How the registered channels show a player's name (``channel.shows``): None among them when
    one could not show it at all."""
    return {c.shows(name) for c in CHANNELS.values()}
