"""Baron Samedi: once per game, from the second night, even as a Ghost, ``revive`` (no name):
the "Welcome!" holder becomes a Zombie, cannot be killed that night, and is alive again at
dawn with all his abilities. Never on himself. Afterwards there is no Baron Samedi phase."""

from __future__ import annotations

from ...types import Role, Team, Verb
from ..character import Character, Power, is_wolf, night_step, pack, register
from ..state import TabulaState
from ..table import Table

USED = "revived_by"


def _can_revive(state: TabulaState, actor: str) -> bool:
    w = state.welcome
    return (
        state.night >= 2
        and actor not in state.marks.get(USED, ())
        and w is not None
        and w != actor
        and w not in state.alive
    )


REVIVE = Power(
    Verb.REVIVE,
    "revive:{actor}",
    no_target=True,
    as_ghost=True,
    when=_can_revive,
    why_not='Baron Samedi revives once, from the second night, the "Welcome!" holder '
    "if he is a Ghost and is not Baron Samedi himself",
)

BARON_SAMEDI = register(Character(Role.BARON_SAMEDI, Team.HUMANS, powers=(REVIVE,)))


@night_step(50, "baron_samedi", Role.BARON_SAMEDI)
def zombie(table: Table) -> None:
    s = table.start
    for baron, _ in table.choices_with_prefix("revive:"):
        w = s.welcome
        if not _can_revive(s, baron) or w is None:
            continue
        table.marks[USED] = (*table.marks.get(USED, ()), baron)
        table.revive(w, by=[baron])
        table.immune.add(w)
        table.announce("baron_samedi.revived", player=w)
        if is_wolf(s, w):
            table.scratch[BACK_IN_THE_PACK] = w


#: A Werewolf revived this night, for ``back_in_the_pack`` (in ``Table.scratch``).
BACK_IN_THE_PACK = "baron_samedi.wolf"


@night_step(98, "baron_samedi.pack", Role.BARON_SAMEDI)
def back_in_the_pack(table: Table) -> None:
    """A Werewolf back with the pack learns it as it is at dawn, and it learns of him (a
    Mythomaniac may have joined it while he was a Ghost, and was not named to him then): told
    after the night's last death, so that none of the pack slaughtered that night hears it."""
    if table.scratch.get(BACK_IN_THE_PACK) is None:
        return
    members = pack(table.sync())
    table.tell(members, "werewolf.pack", channel="werewolves", members=list(members))
