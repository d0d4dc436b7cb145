"""Lara, the Lady Werewolf: one of the Werewolves, who hunts with the pack (``kill X``) and may
instead name another Werewolf (never herself): then that Werewolf is the night's victim,
whatever the others chose. A Mythomaniac who copies her joins the pack without her power."""

from __future__ import annotations

from ...types import Role, Team, Verb
from ..character import Character, Power, is_wolf, night_step, register
from ..table import Table
from . import werewolf

CLAW = Power(Verb.KILL, "pack:{actor}")  # any other living player, a Werewolf included


def _deal(table: Table) -> None:
    # The pack is told of itself by the Werewolf card; with no such card, Lara's does it.
    if not table.holders(Role.WEREWOLF, living=False) and werewolf.WEREWOLF.on_deal is not None:
        werewolf.WEREWOLF.on_deal(table)


LARA = register(
    Character(
        Role.LARA,
        Team.WEREWOLVES,
        reads_as_were=True,
        wicked=True,
        wolf=True,
        powers=(CLAW,),
        on_deal=_deal,
        channel=werewolf.CHANNEL,
    )
)


@night_step(werewolf.ORDER - 5, "lara", Role.LARA)
def lara_turns_on_the_pack(table: Table) -> None:
    s = table.start
    for lara in table.holders(Role.LARA):
        target = table.choice("pack:" + lara)
        if target is not None and target in table.alive and is_wolf(s, target):
            table.scratch["pack_victim"] = target
