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
SeenHook = Callable[["Table", str], None]


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
    """Called when a seer looks at this character: (table, who)."""
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


def night_step(order: int, name: str,
               role: Role | None = None) -> Callable[[Callable[[Table], None]], Callable[[Table], None]]:
    def deco(fn: Callable[[Table], None]) -> Callable[[Table], None]:
        NIGHT_STEPS.append(Step(order, name, fn, role))
        NIGHT_STEPS.sort()
        return fn

    return deco


def day_close_step(order: int, name: str,
                   role: Role | None = None) -> Callable[[Callable[[Table], None]], Callable[[Table], None]]:
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
    in order: a step that belongs to a card nobody was dealt is left out (kept for the game)."""
    memo = state.game_memo()
    key = "night_steps" if steps is NIGHT_STEPS else "day_close_steps"
    found: list[Step] | None = memo.get(key)
    if found is None:
        found = memo[key] = [s for s in steps if s.role is None or state.dealt(s.role)]
    return found


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
    """Every player ``is_wolf`` holds for, dead or alive (cached: the pack's targets ask it for each player)."""
    memo = state.phase_memo()
    found: frozenset[str] | None = memo.get("wolves")
    if found is None:
        by_card: frozenset[str] | None = state.game_memo().get("wolf_cards")
        if by_card is None:
            by_card = state.game_memo()["wolf_cards"] = frozenset(
                p for p in state.players if CHARACTERS[state.roles[p]].wolf)
        became = state.marks.get("became")
        found = memo["wolves"] = by_card.union(
            p for p, r in became.items() if r == "werewolf" and p in state.roles) if became else by_card
    return found


def pack(state: TabulaState, living_only: bool = True) -> tuple[str, ...]:
    memo = state.phase_memo()
    key = "pack" if living_only else "pack+ghosts"
    found: tuple[str, ...] | None = memo.get(key)
    if found is None:
        members = wolves(state)
        found = memo[key] = tuple(p for p in state.players if p in members and (not living_only or p in state.alive))
    return found


def holders(state: TabulaState, role: Role) -> tuple[str, ...]:
    return state.dealt(role)


def slot_holders(state: TabulaState, slot: str) -> tuple[str, ...]:
    """Living players who hold a power with this (shared) slot, in seating order."""
    memo = state.phase_memo()
    by_slot: dict[str, tuple[str, ...]] | None = memo.get("slot_holders")
    if by_slot is None:
        by_slot = memo["slot_holders"] = {}
    found = by_slot.get(slot)
    if found is None:
        game = state.game_memo()
        cards: frozenset[str] | None = game.get("slot:" + slot)
        if cards is None:  # who holds it by his card (the cards never change)
            cards = game["slot:" + slot] = frozenset(
                p for p in state.players if any(pw.slot == slot for pw in CHARACTERS[state.roles[p]].powers))
        extra = extra_holders(state)
        found = by_slot[slot] = tuple(
            p for p in state.living()
            if p in cards or (extra and any(pw.slot == slot for pw in extra.get(p, ()))))
    return found


def extra_holders(state: TabulaState) -> dict[str, tuple[Power, ...]]:
    """Who holds powers beyond his card's, asked once a phase (the hooks read ``marks``)."""
    memo = state.phase_memo()
    found: dict[str, tuple[Power, ...]] | None = memo.get("extra_powers")
    if found is None:
        found = {}
        game = state.game_memo()
        hooks: list[ExtraPowers] | None = game.get("extra_powers")
        if hooks is None:
            hooks = game["extra_powers"] = [fn for role, fn in EXTRA_POWERS if state.dealt(role)]
        for extra in hooks:
            for player, powers in extra(state):
                found[player] = (*found.get(player, ()), *powers)
        memo["extra_powers"] = found
    return found


def powers_of(state: TabulaState, player: str) -> list[Power]:
    """Every power the player holds, usable now or not."""
    found = list(CHARACTERS[state.roles[player]].powers)
    more = extra_holders(state).get(player)
    if more:
        found.extend(more)
    return found
