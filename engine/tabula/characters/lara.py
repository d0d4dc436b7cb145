"""Lara, the Lady Werewolf: one of the Werewolves, who hunts with the pack (``kill X``) and may
instead name another Werewolf (never herself): then that Werewolf is the night's victim,
whatever the others chose. A Mythomaniac who copies her joins the pack without her power."""

from __future__ import annotations

from collections.abc import Iterable

from ...types import Role, Team, Verb
from ..character import Character, Power, is_wolf, night_step, others_alive, register
from ..state import TabulaState
from ..table import Table
from . import werewolf


def _targets(state: TabulaState, actor: str) -> Iterable[str]:
    return others_alive(state, actor)


CLAW = Power(Verb.KILL, "pack:{actor}", targets=_targets)


def _deal(table: Table) -> None:
    # The pack is told of itself by the Werewolf card; with no such card, Lara's does it.
    if not table.holders(Role.WEREWOLF, living=False) and werewolf.WEREWOLF.on_deal is not None:
        werewolf.WEREWOLF.on_deal(table)


LARA = register(Character(Role.LARA, Team.WEREWOLVES, reads_as_were=True, wicked=True, wolf=True, powers=(CLAW,),
                          on_deal=_deal, channel=werewolf.CHANNEL))


@night_step(werewolf.ORDER - 5, "lara")
def lara_turns_on_the_pack(table: Table) -> None:
    s = table.start
    for lara in table.holders(Role.LARA):
        target = table.choice("pack:" + lara)
        if target is not None and target in table.alive and is_wolf(s, target):
            table.scratch["pack_victim"] = target
