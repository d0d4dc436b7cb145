"""Freemasons: always two Humans who are told of each other when the cards are dealt."""

from __future__ import annotations

from ...types import Role, Team
from ..character import Character, register
from ..table import Table

CHANNEL = "freemasons"


def _deal(table: Table) -> None:
    members = table.holders(Role.FREEMASON, living=False)
    table.tell(members, "freemason.lodge", channel=CHANNEL, members=list(members))


FREEMASON = register(
    Character(Role.FREEMASON, Team.HUMANS, on_deal=_deal, unique=False, min_players=13, channel=CHANNEL)
)
