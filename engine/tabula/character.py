"""How a character is declared: its side, how it reads to the seers, and its powers.

Each character lives in one module of ``characters/`` named after it, which declares a
``Character`` and, where it acts at night, a resolution step registered with the order the
rulings give. Nothing else in the engine names a character, except through the hooks here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..types import Event, Phase, Role, Team, Verb
from .state import TabulaState

if TYPE_CHECKING:
    from .table import Table

Targets = Callable[[TabulaState, str], Iterable[str]]
Immediate = Callable[[TabulaState, str, "str | None"], "tuple[TabulaState, list[Event]]"]
Check = Callable[[TabulaState, str], bool]


def _always(state: TabulaState, actor: str) -> bool:
    return True


def others_alive(state: TabulaState, actor: str) -> Iterable[str]:
    """The usual night target: another living player."""
    return [p for p in state.living() if p != actor]


@dataclass(frozen=True)
class Power:
    """Something a player may choose to do during some phases.

    ``slot`` keys the choice in the state; ``{actor}`` in it is replaced by the actor's name.
    A slot without ``{actor}`` is shared: whoever of its holders chooses last decides.
    """

    verb: Verb
    slot: str
    targets: Targets = others_alive
    phases: frozenset[Phase] = frozenset({Phase.NIGHT})
    when: Check = _always
    """Further conditions (from the second night, once per game...)."""
    as_ghost: bool = False
    """May be used after death (Baron Samedi)."""
    no_target: bool = False
    why_not: str = "you cannot do that now"
    """What the player is told when ``when`` says no."""
    immediate: Immediate | None = None
    """Takes effect at once instead of being stored as a choice (standing orders)."""
    target_hint: str | None = None
    """What to tell a player whose target is not allowed, when the targets are not players."""

    def slot_for(self, actor: str) -> str:
        return self.slot.replace("{actor}", actor)

    def usable(self, state: TabulaState, actor: str) -> bool:
        if state.phase not in self.phases:
            return False
        if not self.as_ghost and actor not in state.alive:
            return False
        return self.when(state, actor)


DeathHook = Callable[["Table", str, str], None]
DealHook = Callable[["Table"], None]
SeenHook = Callable[["Table", str, list[str]], None]


@dataclass(frozen=True)
class Character:
    role: Role
    team: Team
    reads_as_were: bool = False
    """The Seer, the Fortune Teller and the Medium see "Were"."""
    wicked: bool = False
    """Counted by Miss Purple."""
    wolf: bool = False
    """Hunts with the pack and counts as a Werewolf for the end of the game."""
    wolf_proof: bool = False
    """The Werewolves cannot kill him (the Werehamster)."""
    counts_living: bool = True
    """False for the Deadalive, who never counts as living at the end."""
    ghost_team: Team | None = None
    """The side a dead character plays for, when not his own (Darius wins with the Humans)."""
    powers: tuple[Power, ...] = ()
    on_deal: DealHook | None = None
    on_death: DeathHook | None = None
    """Called when this character dies: (table, who, cause)."""
    on_seen: SeenHook | None = None
    """Called when a seer looks at this character: (table, who, the lookers)."""
    unique: bool = True
    min_players: int = 8
    """The rulebook's suggested minimum."""
    channel: str | None = None
    """A private channel shared with others of the same kind at night."""


CHARACTERS: dict[Role, Character] = {}


@dataclass(order=True, frozen=True)
class Step:
    order: int
    name: str
    run: Callable[[Table], None] = field(compare=False)
    role: Role | None = field(default=None, compare=False)
    """The card without which the step has nothing to do (it is skipped in games without it)."""


NIGHT_STEPS: list[Step] = []
"""Night resolution, in the rulings' order."""

DAY_CLOSE_STEPS: list[Step] = []
"""Run when the day ends (after the lynching), e.g. Hamlet's Skull passing."""

ExtraPowers = Callable[[TabulaState], Iterable[tuple[str, Iterable[Power]]]]
EXTRA_POWERS: list[tuple[Role, ExtraPowers]] = []
"""Powers that come from something other than the card (a token held, a role copied): each
hook names the few players who hold such powers in a state, with the powers; it is asked only
in games where the card it belongs to was dealt."""


def register(character: Character) -> Character:
    CHARACTERS[character.role] = character
    return character


def night_step(
    order: int, name: str, role: Role | None = None
) -> Callable[[Callable[[Table], None]], Callable[[Table], None]]:
    def deco(fn: Callable[[Table], None]) -> Callable[[Table], None]:
        NIGHT_STEPS.append(Step(order, name, fn, role))
        NIGHT_STEPS.sort()
        return fn

    return deco


def day_close_step(
    order: int, name: str, role: Role | None = None
) -> Callable[[Callable[[Table], None]], Callable[[Table], None]]:
    def deco(fn: Callable[[Table], None]) -> Callable[[Table], None]:
        DAY_CLOSE_STEPS.append(Step(order, name, fn, role))
        DAY_CLOSE_STEPS.sort()
        return fn

    return deco


def extra_powers(role: Role) -> Callable[[ExtraPowers], ExtraPowers]:
    def deco(fn: ExtraPowers) -> ExtraPowers:
        EXTRA_POWERS.append((role, fn))
        return fn

    return deco


def steps_of(state: TabulaState, steps: list[Step]) -> list[Step]:
    """The steps of ``steps`` (``NIGHT_STEPS``, ``DAY_CLOSE_STEPS``) that can act in this game,
    in order: a step that belongs to a card nobody was dealt is left out."""
    dealt = set(state.roles.values())
    return [s for s in steps if s.role is None or s.role in dealt]


# -- questions every module may ask about a player ------------------------------------------------
def card(state: TabulaState, player: str) -> Character:
    return CHARACTERS[state.roles[player]]


def became(state: TabulaState, player: str) -> Role | None:
    """The role a Mythomaniac took on, if any."""
    b = state.marks.get("became")
    if b and player in b:
        return Role(b[player])
    return None


def is_wolf(state: TabulaState, player: str) -> bool:
    """A Werewolf (or Lara) by card, or a Mythomaniac turned Werewolf."""
    if CHARACTERS[state.roles[player]].wolf:
        return True
    b = state.marks.get("became")
    return b is not None and b.get(player) == "werewolf"


def reads_as_were(state: TabulaState, player: str) -> bool:
    return CHARACTERS[state.roles[player]].reads_as_were or became(state, player) is Role.WEREWOLF


def is_wicked(state: TabulaState, player: str) -> bool:
    return CHARACTERS[state.roles[player]].wicked or became(state, player) is Role.WEREWOLF


def team_of(state: TabulaState, player: str) -> Team:
    if became(state, player) is Role.WEREWOLF:
        return Team.WEREWOLVES
    c = CHARACTERS[state.roles[player]]
    if c.ghost_team is not None and player not in state.alive:
        return c.ghost_team
    return c.team


def wolves(state: TabulaState) -> frozenset[str]:
    """Every player ``is_wolf`` holds for, dead or alive."""
    roles = state.roles
    found = [p for p in state.players if CHARACTERS[roles[p]].wolf]
    became = state.marks.get("became")
    if became:
        found += [p for p, r in became.items() if r == "werewolf" and p in roles]
    return frozenset(found)


def pack(state: TabulaState, living_only: bool = True) -> tuple[str, ...]:
    """The Werewolves in seating order: the living ones, or all of them."""
    members = wolves(state)
    return tuple([p for p in state.players if p in members and (not living_only or p in state.alive)])


def holders(state: TabulaState, role: Role) -> tuple[str, ...]:
    return state.dealt(role)


def slot_holders(state: TabulaState, slot: str) -> tuple[str, ...]:
    """Living players who hold a power with this (shared) slot, in seating order."""
    extra, roles = extra_holders(state), state.roles
    found = []
    for p in state.living():
        for power in CHARACTERS[roles[p]].powers + extra.get(p, ()):
            if power.slot == slot:
                found.append(p)
                break
    return tuple(found)


def extra_holders(state: TabulaState) -> dict[str, tuple[Power, ...]]:
    """Who holds powers beyond his card's (asked of the hooks of the cards dealt in this game)."""
    found: dict[str, tuple[Power, ...]] = {}
    dealt = set(state.roles.values())
    for role, extra in EXTRA_POWERS:
        if role in dealt:
            for player, powers in extra(state):
                found[player] = (*found.get(player, ()), *powers)
    return found


def powers_of(state: TabulaState, player: str, extra: dict[str, tuple[Power, ...]] | None = None) -> tuple[Power, ...]:
    """Every power the player holds, usable now or not (``extra``: ``extra_holders``, if asked already)."""
    own = CHARACTERS[state.roles[player]].powers
    more = (extra_holders(state) if extra is None else extra).get(player)
    return (*own, *more) if more else own
