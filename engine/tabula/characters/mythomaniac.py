"""Mythomaniac: at the end of the second night names another living player (``mimic X``).

A Werewolf (or Lara): he becomes a Werewolf at once (for the end count and the Seer) and
hunts with the pack from the next night, without Lara's power. The Seer or the Fortune
Teller: he shares that role's look from the next night, in one channel with it. Anyone
else: he stays a plain human.

Who is told: the news waits for the night's last death (the deadly Owl-man's, at dawn) and
reaches the living only. A dead player's card stays secret until the end and a Ghost no
longer plays as a character, so a dead Werewolf (or Seer) is neither told of him nor named
to him as a member. A Mythomaniac killed earlier the same night is a Ghost by his phase:
he has lost his ability ("when a character becomes a Ghost, he loses all special
abilities"), so his choice does nothing and nobody is told.
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


MIMIC = Power(
    Verb.MIMIC, "mimic:{actor}", when=_second_night, why_not="the Mythomaniac chooses only during the second night"
)

MYTHOMANIAC = register(Character(Role.MYTHOMANIAC, Team.HUMANS, powers=(MIMIC,), min_players=16))

#: The roles whose power a Mythomaniac copies.
COPYABLE = (Role.SEER, Role.FORTUNE_TELLER)


@extra_powers(Role.MYTHOMANIAC)
def copied_powers(state: TabulaState) -> Iterable[tuple[str, Iterable[Power]]]:
    """A Mythomaniac who became someone holds that character's powers."""
    return [(p, CHARACTERS[Role(r)].powers) for p, r in state.marks.get("became", {}).items() if p in state.roles]


#: The Mythomaniacs who took on a role this night, for ``tell_the_news`` (in ``Table.scratch``).
NEWS = "mythomaniac.news"


@night_step(80, "mythomaniac", Role.MYTHOMANIAC)
def mimic(table: Table) -> None:
    s = table.start
    for myth, target in table.choices_with_prefix("mimic:"):
        if myth not in table.alive or target is None:  # a Ghost by his phase, or no choice
            continue
        role = Role.WEREWOLF if is_wolf(s, target) else s.roles[target] if s.roles[target] in COPYABLE else None
        if role is not None:
            table.marks["became"] = {**table.marks.get("became", {}), myth: role.value}
        table.scratch.setdefault(NEWS, []).append((myth, target, role))
        table.note("mimic", by=[myth], target=target, became=role.value if role is not None else None)


@night_step(99, "mythomaniac.news", Role.MYTHOMANIAC)
def tell_the_news(table: Table) -> None:
    """What the Mythomaniac became, told after the night's last death, to the living only."""
    news = table.scratch.get(NEWS)
    if not news:
        return
    state = table.sync()
    for myth, target, role in news:
        if myth not in table.alive:  # taken by the deadly Owl-man at dawn: a Ghost learns nothing
            continue
        if role is Role.WEREWOLF:
            members = pack(state)  # the living pack, him among them
            table.tell(members, "mythomaniac.joined_pack", channel="werewolves", member=myth, members=list(members))
        elif role is not None:
            mates = [p for p in state.living() if state.roles[p] is role or became(state, p) is role]
            table.tell(
                mates, "mythomaniac.joined_seer", channel=role.value, member=myth, role=role.value, members=mates
            )
        else:
            table.tell(myth, "mythomaniac.stays_human", target=target)
