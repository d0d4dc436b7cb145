"""The Aura cards and tiles of the 4-7 player variant (``aura``), as they act on the table.

Every character starts with the Aura of its nature (``marks['aura']``: player -> wicked or
innocent). A killed character with an Aura, whatever killed him, loses it (face down on the
discard pile, ``marks['aura_pile']``) and lives on. A look sees the Aura if there is one,
else the card; a card carrying a tile (the Potion, the Claw) cannot be looked at, and cannot
take a second tile. The Claw stays on its card until the lynching and is the reference for
the day's tie order (see ``order.py``). Outside ``aura`` all of this does nothing.
"""

from __future__ import annotations

from typing import Any

from ..types import RuleSet
from .character import day_close_step, night_step, pack, reads_as_were
from .table import Table, shield

AURA = "aura"
PILE = "aura_pile"
CLAW = "claw"
POTION_TILE = "potion"
"""In ``table.scratch``: the card the Potion is on tonight (it goes back at dawn)."""
WICKED, INNOCENT = "wicked", "innocent"


def sight(table: Table, target: str) -> dict[str, Any]:
    """What a look at ``target`` shows: in ``aura`` the Aura, or the card, or nothing under a
    tile; elsewhere whether the card reads as "Were"."""
    s = table.start
    if s.rules is not RuleSet.AURA:
        return {"were": reads_as_were(s, target)}
    if target in (table.scratch.get(POTION_TILE), table.marks.get(CLAW)):
        return {"blocked": True}
    aura = table.marks.get(AURA, {}).get(target)
    if aura is not None:
        return {"aura": aura}
    return {"role": s.roles[target].value, "were": reads_as_were(s, target)}


@shield
def aura_absorbs(table: Table, player: str, cause: str) -> str | None:
    if table.start.rules is not RuleSet.AURA:
        return None
    auras = dict(table.marks.get(AURA, {}))
    kind = auras.pop(player, None)
    if kind is None:
        return None
    table.marks[AURA] = auras
    table.marks[PILE] = (*table.marks.get(PILE, ()), kind)
    table.announce("aura.lost", player=player)
    return AURA


@night_step(69, "aura.claw")
def place_claw(table: Table) -> None:
    """The pack's choice takes the Claw, unless the Potion is already on that card."""
    if table.start.rules is not RuleSet.AURA:
        return
    from .characters.werewolf import pack_victim

    table.marks.pop(CLAW, None)
    victim = table.scratch.get("pack_victim") or pack_victim(table)
    if victim is None or victim not in table.alive:
        return
    table.scratch["pack_victim"] = victim  # one draw of a tie, for the slaughter too
    if victim == table.scratch.get(POTION_TILE):
        table.protected.add(victim)
        # The living pack as the table stands (Mr. Hyde's Potion may have taken one of them already).
        table.tell(pack(table.sync()), "werewolf.claw_blocked", channel="werewolves", target=victim)
        return
    table.marks[CLAW] = victim
    table.announce("aura.claw", target=victim)


@day_close_step(90, "aura.claw_returned")
def return_claw(table: Table) -> None:
    table.marks.pop(CLAW, None)
