"""Seer: each night looks at another living player and learns at close whether he is a
Werewolf ("Were": Werewolves, Lara, Darius, the Werecow, a Mythomaniac turned Werewolf).

The look is a shared slot: a Mythomaniac who copied the Seer looks with him, the last
choice counting. Looking at the Werehamster kills him (his own hook).
"""

from __future__ import annotations

from ...types import Role, RuleSet, Team, Verb
from ..auras import sight
from ..character import Character, Power, card, night_step, reads_as_were, register, slot_holders
from ..table import Table

ORDER = 30
LOOK = Power(Verb.SEE, "seer")

SEER = register(Character(Role.SEER, Team.HUMANS, powers=(LOOK,), channel="seer"))


def sharers(table: Table, slot: str) -> list[str]:
    """Living players (at the night's start) who hold the power with this slot."""
    return list(slot_holders(table.start, slot))


def look(table: Table, slot: str, key: str) -> None:
    """The look shared by the Seer, the Fortune Teller and Darius (each with its own slot)."""
    if table.start.rules is RuleSet.AURA:
        _aura_look(table, slot, key)
        return
    target = table.choice(slot)
    if target is None:
        return
    readers = sharers(table, slot)
    if not readers:
        return
    were = reads_as_were(table.start, target)
    table.tell(
        readers, key, channel=slot if len(readers) > 1 else None, target=target, were=were, night=table.start.night
    )
    table.note("look", by=readers, target=target, as_card=slot, were=were)
    hook = card(table.start, target).on_seen
    if hook is not None and slot in SEEING_SLOTS:
        hook(table, target, readers)


def _aura_look(table: Table, slot: str, key: str) -> None:
    """In the Aura variant a look sees the Aura, or the card, or nothing under a tile."""
    target = table.choice(slot)
    readers = sharers(table, slot)
    if target is not None and readers:
        seen = sight(table, target)
        table.tell(
            readers, key, channel=slot if len(readers) > 1 else None, target=target, night=table.start.night, **seen
        )
        table.note("look", by=readers, target=target, as_card=slot, **seen)


#: Looks that kill the Werehamster (the Seer's and the Fortune Teller's, not Darius's).
SEEING_SLOTS = {"seer", "fortune_teller"}


@night_step(ORDER, "seer", Role.SEER)
def seer_looks(table: Table) -> None:
    look(table, "seer", "seer.result")
