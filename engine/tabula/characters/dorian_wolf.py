"""Dorian Wolf: on the first night gives his Portrait to another character (``portrait X``; the
tile is on the table for all to see). When he is killed (by any cause) and his standing order
says reveal (``reveal on|off``, default on), he shows his card and stays alive, and the
Portrait's holder dies instead, unless already a Ghost; the Portrait is then gone. Not
revealing, he dies and the Portrait stays in play."""

from __future__ import annotations

from ...types import Role, Team, Verb
from ..character import Character, Power, night_step, register
from ..standing import reveal_power, reveals
from ..state import TabulaState
from ..table import Table

TOKEN = "portrait"


def _first_night(state: TabulaState, actor: str) -> bool:
    return state.night == 1


GIVE = Power(
    Verb.PORTRAIT,
    "portrait:{actor}",
    when=_first_night,
    why_not="Dorian Wolf gives his Portrait on the first night only",
)


def _killed(table: Table, who: str, cause: str) -> None:
    holder = table.marks.get(TOKEN)
    if holder is None or not reveals(table.state, who):
        return
    del table.marks[TOKEN]
    table.revive(who, why=TOKEN)
    table.reveal(who)
    table.announce("dorian_wolf.revealed", player=who, holder=holder)
    table.kill(holder, TOKEN, by=[who])


DORIAN_WOLF = register(
    Character(Role.DORIAN_WOLF, Team.HUMANS, powers=(GIVE, reveal_power()), on_death=_killed, min_players=12)
)


@night_step(12, "dorian_wolf", Role.DORIAN_WOLF)
def give_portrait(table: Table) -> None:
    s = table.start
    if s.night != 1:
        return
    for dorian, target in table.choices_with_prefix("portrait:"):
        if dorian in s.alive and target is not None:
            table.marks[TOKEN] = target
            table.announce("dorian_wolf.portrait", holder=target)
            table.note(TOKEN, by=[dorian], target=target)
