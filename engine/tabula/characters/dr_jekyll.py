"""Dr. Jekyll: from the second night drinks the potion (``potion X``) and, as Mr. Hyde, kills
another character; the Bodyguard does not stop him. In ``tabula`` once per game, and the next
morning everyone is told that Dr. Jekyll turned into Mr. Hyde. In the Aura variant every night
from the second: the Potion is put on the card before anything else is looked at or marked
(a card with a tile can be neither looked at nor clawed), and its victim dies first at dawn."""

from __future__ import annotations

from ...types import Role, RuleSet, Team, Verb
from ..auras import POTION_TILE
from ..character import Character, Power, night_step, register
from ..state import TabulaState
from ..table import Table

DRUNK = "potion_drunk"


def _can_drink(state: TabulaState, actor: str) -> bool:
    return state.night >= 2 and (state.rules is RuleSet.AURA or actor not in state.marks.get(DRUNK, ()))


POTION = Power(
    Verb.POTION,
    "potion:{actor}",
    when=_can_drink,
    why_not="Dr. Jekyll drinks the potion from the second night on, and in this game only once",
)

DR_JEKYLL = register(Character(Role.DR_JEKYLL, Team.HUMANS, powers=(POTION,)))


def _potions(table: Table) -> list[tuple[str, str]]:
    return [(j, t) for j, t in table.choices_with_prefix("potion:") if j in table.start.alive and t is not None]


@night_step(28, "dr_jekyll.tile", Role.DR_JEKYLL)
def place_potion(table: Table) -> None:
    if table.start.rules is not RuleSet.AURA:
        return
    for _, target in _potions(table):
        table.scratch[POTION_TILE] = target
        table.announce("dr_jekyll.potion", target=target)


@night_step(60, "dr_jekyll", Role.DR_JEKYLL)
def mr_hyde(table: Table) -> None:
    for jekyll, target in _potions(table):
        if table.start.rules is not RuleSet.AURA:
            table.marks[DRUNK] = (*table.marks.get(DRUNK, ()), jekyll)
            table.announce("dr_jekyll.hyde")
        table.kill(target, "potion", by=[jekyll])
