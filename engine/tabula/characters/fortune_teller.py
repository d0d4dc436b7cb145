"""The Fortune Teller: a second Seer with her own phase (``see X``); neither knows the other.
Her look kills the Werehamster. A Mythomaniac who copies her shares her look, in her channel."""

from __future__ import annotations

from ...types import Role, Team, Verb
from ..character import Character, Power, night_step, register
from ..table import Table
from .seer import ORDER, look

SLOT = "fortune_teller"
LOOK = Power(Verb.SEE, SLOT)

FORTUNE_TELLER = register(Character(Role.FORTUNE_TELLER, Team.HUMANS, powers=(LOOK,), channel=SLOT, min_players=16))


@night_step(ORDER + 1, "fortune_teller", Role.FORTUNE_TELLER)
def fortune_teller_looks(table: Table) -> None:
    look(table, SLOT, "fortune_teller.result")
