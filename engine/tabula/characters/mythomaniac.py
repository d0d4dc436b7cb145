"""Mythomaniac: at the end of the second night names another living player (``mimic X``).

A Werewolf (or Lara): he becomes a Werewolf at once (for the end count and the Seer) and
hunts with the pack from the next night, without Lara's power. The Seer or the Fortune
Teller: he shares that role's look from the next night, in one channel with it. Anyone
else: he stays a plain human.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...types import Role, Team, Verb
from ..character import (
    CHARACTERS,
    Character,
    Power,
    became,
    extra_powers,
    is_wolf,
    night_step,
    pack,
    register,
)
from ..state import TabulaState
from ..table import Table


def _second_night(state: TabulaState, actor: str) -> bool:
    return state.night == 2 and became(state, actor) is None


MIMIC = Power(Verb.MIMIC, "mimic:{actor}", when=_second_night,
              why_not="the Mythomaniac chooses only during the second night")

MYTHOMANIAC = register(Character(Role.MYTHOMANIAC, Team.HUMANS, powers=(MIMIC,), min_players=16))

#: The roles whose power a Mythomaniac copies.
COPYABLE = (Role.SEER, Role.FORTUNE_TELLER)


@extra_powers(Role.MYTHOMANIAC)
def copied_powers(state: TabulaState) -> Iterable[tuple[str, Iterable[Power]]]:
    """A Mythomaniac who became someone holds that character's powers."""
    return [(p, CHARACTERS[Role(r)].powers) for p, r in state.marks.get("became", {}).items() if p in state.roles]


@night_step(80, "mythomaniac", Role.MYTHOMANIAC)
def mimic(table: Table) -> None:
    s = table.start
    for myth, target in table.choices_with_prefix("mimic:"):
        if myth not in s.alive or target is None:
            continue
        became_map = dict(table.marks.get("became", {}))
        if is_wolf(s, target):
            became_map[myth] = Role.WEREWOLF.value
            table.marks["became"] = became_map
            members = pack(table.sync(), living_only=False)
            table.tell(members, "mythomaniac.joined_pack", channel="werewolves", member=myth,
                       members=list(members))
        elif s.roles[target] in COPYABLE:
            role = s.roles[target]
            became_map[myth] = role.value
            table.marks["became"] = became_map
            mates = [p for p in s.players if p in s.alive and (s.roles[p] is role or became_map.get(p) == role.value)]
            table.tell(mates, "mythomaniac.joined_seer", channel=role.value, member=myth, role=role.value,
                       members=mates)
        else:
            table.tell(myth, "mythomaniac.stays_human", target=target)
