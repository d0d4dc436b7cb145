"""A working copy of the state while a phase closes.

Closing does several small things in order (the Thief's look, the Claw, the dawn, the end
check); they act on this scratchpad, private to one call and turned back into an immutable
state by ``freeze``, so the engine stays a pure function.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..types import Event, Phase
from .state import Fact, LupusburgState, _frozen


class Close:
    def __init__(self, state: LupusburgState) -> None:
        self.start = state
        self.alive: set[str] = set(state.alive)
        self.dead: list[str] = list(state.dead)
        self.lynched: list[str] = list(state.lynched)
        self.knowledge: dict[str, list[Fact]] = {}
        self.events: list[Event] = []
        self.died_now: list[str] = []
        self.notes: list[Fact] = []
        """What happened in this close, for the end's history (``LupusburgState.history``)."""

    def tell(self, player: str, key: str, **data: Any) -> None:
        """A private fact: remembered in the player's knowledge and sent to him alone."""
        self.knowledge.setdefault(player, []).append({"key": key, **data})
        self.events.append(Event(key, data, (player,)))

    def announce(self, key: str, **data: Any) -> None:
        self.events.append(Event(key, data))

    def note(self, what: str, *, by: Iterable[str] = (), **data: Any) -> None:
        """Write in the notebook what happened: told to nobody until the game is over."""
        self.notes.append({"what": what, "by": list(by), **data})

    def kill(self, h: str, cause: str, by: Iterable[str] = ()) -> bool:
        if h not in self.alive:
            return False
        self.alive.discard(h)
        self.dead.append(h)
        self.died_now.append(h)
        self.note("killed", player=h, cause=cause, by=by)
        return True

    def freeze(self, **changes: Any) -> LupusburgState:
        s = self.start
        when = {"night": s.night} if s.phase is Phase.NIGHT else {"day": s.day}
        history = (*s.history, *(_frozen({**when, **n}) for n in self.notes))
        return told(s, self.knowledge).evolve(
            alive=frozenset(self.alive), dead=tuple(self.dead), lynched=tuple(self.lynched), history=history, **changes
        )


def told(state: LupusburgState, facts: dict[str, list[Fact]]) -> LupusburgState:
    """The state with these facts added to the players' knowledge."""
    if not facts:
        return state
    knowledge = dict(state.knowledge)
    for p, fs in facts.items():
        # Stored as from_dict would read them back (lists as tuples), so states round-trip exactly.
        knowledge[p] = knowledge.get(p, ()) + tuple(_frozen(f) for f in fs)
    return state.evolve(knowledge=knowledge)


def tell_now(state: LupusburgState, player: str, key: str, /, **data: Any) -> tuple[LupusburgState, Event]:
    """A private fact told at once (during a phase, not at its close)."""
    return told(state, {player: [{"key": key, **data}]}), Event(key, data, (player,))
