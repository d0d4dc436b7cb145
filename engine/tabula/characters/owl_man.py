"""Owl-man: each night names a player, who becomes one of the two suspects the next day
(in place of the second-ranked, unless already a suspect).

Deadly Owl-man (more than 20 players, or the option ``deadly_owl``): his choice dies at
the start of the day unless a Werewolf or the Werehamster.
"""

from __future__ import annotations

from ...types import Role, Team, Verb
from ..character import Character, Power, is_wolf, night_step, register
from ..state import TabulaState
from ..table import Table

HOOT = Power(Verb.OWL, "owl:{actor}")
MARK = "owl"
"""Holds his choice from his night to the close of the nominations (``day.choose_suspects``)."""

OWL_MAN = register(Character(Role.OWL_MAN, Team.HUMANS, powers=(HOOT,), min_players=12))

#: More than this many players makes the Owl-man deadly.
DEADLY_ABOVE = 20


def deadly(state: TabulaState) -> bool:
    opt = state.options.get("deadly_owl")
    if opt is not None:
        return bool(opt)
    return len(state.players) > DEADLY_ABOVE


def owl_pick(table: Table) -> tuple[str, str] | None:
    """(the Owl-man, his choice), if a living one chose."""
    for actor, target in table.choices_with_prefix("owl:"):
        if actor in table.start.alive and target is not None:
            return actor, target
    return None


@night_step(33, "owl_man", Role.OWL_MAN)
def hoot(table: Table) -> None:
    table.marks.pop(MARK, None)
    picked = owl_pick(table)
    if picked is not None:
        owl, target = picked
        table.marks[MARK] = target
        table.note("owl", by=[owl], target=target)


@night_step(95, "owl_man.deadly", Role.OWL_MAN)
def deadly_hoot(table: Table) -> None:
    target = table.marks.get(MARK)
    if target is None or not deadly(table.start):
        return
    s = table.sync()  # a Mythomaniac who joined the pack this night is a Werewolf "at once"
    if is_wolf(s, target) or s.roles[target] is Role.WEREHAMSTER:
        return
    picked = owl_pick(table)
    table.kill(target, "owl", by=[picked[0]] if picked is not None else [])
