"""A line typed at the console, as one command for the service."""

from __future__ import annotations

import itertools

from service.channels.base import Incoming
from service.game.app import Service

from . import NAME

_lines = itertools.count(1)


def incoming(user: str, line: str) -> Incoming:
    """The line ``user`` typed (a private conversation: the console is one person's)."""
    return Incoming(NAME, user, f"console-{next(_lines)}", line.strip(), display_name=user)


def type_line(svc: Service, user: str, line: str) -> list[str]:
    """Hand the line to the service; its replies are in the outbox (the sender prints them)."""
    m = incoming(user, line)
    return svc.handle_inbound(m.channel, m.address, m.external_id, m.text, m.display_name)
