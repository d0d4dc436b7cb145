"""Hamlet: on the first night gives the Skull to another character (``skull X``; the tile is on
the table for all to see). Each day its holder passes it to another living character
(``skull X`` by day); if he has not by the close of the day, it goes to one at random. When
Hamlet dies and his standing order says reveal (``reveal on|off``, default on), he shows his
card and the Skull's holder dies too, unless already a Ghost; the Skull is then gone.

In the Aura variant he may also ``peek X`` on the first night: he sees that character's Aura
(or, without one, the card)."""

from __future__ import annotations

from collections.abc import Iterable

from ...types import Phase, Role, RuleSet, Team, Verb
from ..auras import sight
from ..character import Character, Power, day_close_step, extra_powers, night_step, register
from ..standing import reveal_power, reveals
from ..state import TabulaState
from ..table import Table

TOKEN = "skull"


def _first_night(state: TabulaState, actor: str) -> bool:
    return state.night == 1


def _first_aura_night(state: TabulaState, actor: str) -> bool:
    return state.night == 1 and state.rules is RuleSet.AURA


GIVE = Power(Verb.SKULL, "skull:{actor}", when=_first_night, why_not="Hamlet gives the Skull on the first night only")
PEEK = Power(
    Verb.PEEK,
    "peek:{actor}",
    when=_first_aura_night,
    why_not="Hamlet peeks at an Aura on the first night of the Aura variant only",
)


def _holds_skull(state: TabulaState, actor: str) -> bool:
    return state.marks.get(TOKEN) == actor


PASS = Power(
    Verb.SKULL,
    "skull_pass:{actor}",
    phases=frozenset({Phase.NOMINATIONS, Phase.BALLOT}),
    when=_holds_skull,
    why_not="only the Skull's holder passes it, by day",
)


@extra_powers(Role.HAMLET)
def skull_holder(state: TabulaState) -> Iterable[tuple[str, Iterable[Power]]]:
    holder = state.marks.get(TOKEN)
    return [(holder, (PASS,))] if holder is not None else []


def _killed(table: Table, who: str, cause: str) -> None:
    holder = table.marks.get(TOKEN)
    if holder is None or not reveals(table.state, who):
        return
    del table.marks[TOKEN]
    table.reveal(who)
    table.announce("hamlet.revealed", player=who, holder=holder)
    table.kill(holder, TOKEN, by=[who])


HAMLET = register(
    Character(Role.HAMLET, Team.HUMANS, powers=(GIVE, PEEK, reveal_power()), on_death=_killed, min_players=12)
)


@night_step(14, "hamlet", Role.HAMLET)
def first_night(table: Table) -> None:
    s = table.start
    if s.night != 1:
        return
    for hamlet, target in table.choices_with_prefix("peek:"):
        if hamlet in s.alive and target is not None:
            seen = sight(table, target)
            table.tell(hamlet, "hamlet.peek", target=target, **seen)
            table.note("look", by=[hamlet], target=target, as_card=Role.HAMLET.value, **seen)
    for hamlet, target in table.choices_with_prefix("skull:"):
        if hamlet in s.alive and target is not None:
            table.marks[TOKEN] = target
            table.announce("hamlet.skull", holder=target)
            table.note(TOKEN, by=[hamlet], target=target)


@day_close_step(10, "hamlet.skull_passes", Role.HAMLET)
def pass_skull(table: Table) -> None:
    holder = table.marks.get(TOKEN)
    if holder is None:
        return
    candidates = [p for p in table.living() if p != holder]
    if not candidates:
        return
    choice = table.choice("skull_pass:" + holder)
    at_random = choice not in candidates
    to = table.rng.choice(candidates) if at_random else choice
    table.marks[TOKEN] = to
    table.announce("hamlet.skull_passed", holder=holder, to=to, random=at_random)
