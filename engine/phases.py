"""Game flow as data, in the manner of boardgame.io's phases.

Each rule set declares one table, a ``PhaseRule`` for each kind of phase (``tabula/phases.py``,
``lupusburg/phases.py``): who acts in it, what may be typed, what closes it, how it is resolved,
whether the end of the game is checked after it, and which phase comes next and what that one
starts with. The table is meant to be read beside the rulebook; the driver below is the only
code that walks it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from .types import Event, Phase, Verb


class _State(Protocol):
    @property
    def phase(self) -> Phase: ...
    @property
    def phase_no(self) -> int: ...
    def evolve(self, **changes: Any) -> Any: ...


S = TypeVar("S", bound=_State)
S_co = TypeVar("S_co", bound=_State, covariant=True)


class Working(Protocol[S_co]):
    """The scratchpad a close works on (``tabula``'s ``Table``, ``lupusburg``'s ``Close``): the
    events told so far, and the state it stands for once frozen."""

    events: list[Event]

    def freeze(self, **changes: Any) -> S_co: ...


Play = Callable[[S, str, "str | None"], "tuple[S, list[Event]]"]
"""A move: (state, actor, target) to the new state and its events, or ``IllegalAction``."""
Offer = Callable[[S, str], Iterable[object]]
"""What a player may name with a move now (nothing: he may not make it)."""


@dataclass(frozen=True)
class Move(Generic[S]):
    play: Play[S]
    targets: Offer[S] | None = None
    """``None`` when the rule set offers the move some other way (``tabula``'s day votes are
    offered with the characters' powers)."""


@dataclass(frozen=True)
class PhaseRule(Generic[S]):
    phase: Phase
    who: str
    """Who acts, in the rulebook's words."""
    moves: Mapping[Verb, Move[S]]
    """What may be typed in this phase, in the order it is offered (``tabula`` adds the
    characters' powers, which say themselves in which phases they act)."""
    closes: str
    """What closes the phase, in words."""
    close: Callable[[S], Working[S]]
    """Resolves the phase at its close: its deaths, looks and announcements."""
    next: Phase
    """The phase that follows, unless the game has ended."""
    begin: Callable[[S], tuple[dict[str, Any], list[Event]]]
    """What this phase starts with, given the state the previous one left (its phase number
    already counted): the fields it sets, and its announcement."""
    ends_game: bool = False
    """Whether the end of the game is checked once this phase is resolved."""
    opens: str | None = None
    """The event its close opens with, whatever step told it (the dawn, with the night's deaths):
    the rulebook's dawn tells the deaths first, then what the dead's cards did, then the day."""


End = Callable[[S], "tuple[S, list[Event]] | None"]
"""The game's end, if this state ends it: the final state and its events."""


def close_phase(phases: Mapping[Phase, PhaseRule[S]], state: S, end: End[S]) -> tuple[S, list[Event]]:
    """Resolve the current phase, then end the game or begin the next phase."""
    rule = phases[state.phase]
    work = rule.close(state)
    after = work.freeze(phase_no=state.phase_no + 1)
    told = opening_first(work.events, rule.opens)
    if rule.ends_game:
        ended = end(after)
        if ended is not None:
            done, more = ended
            return done, told + more
    fields, announced = phases[rule.next].begin(after)
    new: S = after.evolve(phase=rule.next, **fields)
    return new, told + announced


def opening_first(events: list[Event], opens: str | None) -> list[Event]:
    """A close's events in the order its readers learn them: the one it opens with (``PhaseRule.opens``)
    first, then the rest in the order its steps told them (a step runs before the dawn is known:
    Baron Samedi's Zombie, Dorian Wolf's Portrait, the looks)."""
    return sorted(events, key=lambda e: e.key != opens) if opens is not None else events
