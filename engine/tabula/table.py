"""A working copy of the state while a phase closes: the Moderator's table.

Closing a phase does many small things in order (looks, protections, kills, hooks, the
end check). They act on this mutable scratchpad, which is private to one call and turned
back into an immutable state by ``freeze``: the engine stays a pure function.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import Any

from ..rng import rng as derive_rng
from ..types import Event, Phase, Role
from . import character as ch
from .state import SCALARS, Fact, TabulaState, frozen

Shield = Callable[["Table", str, str], "str | None"]
SHIELDS: list[Shield] = []
"""Things that absorb a kill of any cause: (table, player, cause) -> what saved him (``"aura"``), or
None. A variant registers its own (the Aura cards of ``aura``); a shield that does not apply says None."""

HISTORY = "history"
"""In the marks: what happened at each close (``Table.note``), the Moderator's notebook. It leaves the
engine only once the game is over (``views``): every death with its cause, the lives saved, the looks."""


def shield(fn: Shield) -> Shield:
    SHIELDS.append(fn)
    return fn


class Table:
    def __init__(self, state: TabulaState, purpose: str) -> None:
        self.start = state
        self.state = state  # refreshed by sync() so character predicates see the table
        self.alive: set[str] = set(state.alive)
        self.dead: list[str] = list(state.dead)
        self.lynched: list[str] = list(state.lynched)
        self.welcome = state.welcome
        self.marks: dict[str, Any] = dict(state.marks)
        self.knowledge: dict[str, list[Fact]] = {}
        self.events: list[Event] = []
        self.died_now: list[tuple[str, str]] = []
        """(player, cause) of this close, in order."""
        self.notes: list[dict[str, Any]] = []
        """What happened in this close, in order, for the end's history (``HISTORY``)."""
        self.protected: set[str] = set()
        self.immune: set[str] = set()
        """Cannot be killed in this close by any cause (Baron Samedi's Zombie)."""
        self.scratch: dict[str, Any] = {}
        """For steps of one close to talk to later steps (Lara's override of the pack)."""
        self.sets: dict[str, Any] = {}
        """Fields the close decides for the state it leaves (the suspects the nominations named)."""
        self._rng: random.Random | None = None
        self._purpose = purpose

    # -- chance -----------------------------------------------------------------------------------
    @property
    def rng(self) -> random.Random:
        if self._rng is None:
            self._rng = derive_rng(self.start.seed, self.start.phase_no, self._purpose)
        return self._rng

    # -- reading ----------------------------------------------------------------------------------
    def sync(self) -> TabulaState:
        """The state as the table stands now (for the character predicates)."""
        self.state = self.freeze()
        return self.state

    def choice(self, slot: str) -> str | None:
        c = self.start.choices.get(slot)
        return c[1] if c else None

    def choices_with_prefix(self, prefix: str) -> list[tuple[str, str | None]]:
        """(actor, target) for per-actor slots like ``pack:{actor}``, in seating order."""
        players = self.start.players
        found = [(slot[len(prefix) :], c[1]) for slot, c in self.start.choices.items() if slot.startswith(prefix)]
        return sorted(found, key=lambda pc: players.index(pc[0]))

    def living(self) -> list[str]:
        return [p for p in self.start.players if p in self.alive]

    def holders(self, role: Role, living: bool = True) -> list[str]:
        dealt = self.start.dealt(role)
        return [p for p in dealt if p in self.alive] if living else list(dealt)

    # -- telling ----------------------------------------------------------------------------------
    def tell(
        self, players: str | tuple[str, ...] | list[str], key: str, channel: str | None = None, **data: Any
    ) -> None:
        """A private fact: remembered in each reader's knowledge and sent to them."""
        to = (players,) if type(players) is str else tuple(players)
        if not to:
            return
        fact: Fact = {"key": key, **data}
        if any(type(v) not in SCALARS for v in data.values()):
            fact = frozen(fact)  # stored as from_dict reads it back: lists as tuples
        for p in to:
            self.knowledge.setdefault(p, []).append(fact)
        self.events.append(Event(key, data, to, channel))

    def announce(self, key: str, **data: Any) -> None:
        self.events.append(Event(key, data))

    def note(self, what: str, *, by: Iterable[str] = (), **data: Any) -> None:
        """Write in the notebook what happened (``HISTORY``): told to nobody until the game is over.
        ``by``: who did it (the killers, the one who looked, the one who gave a tile)."""
        self.notes.append({"what": what, "by": list(by), **data})

    # -- dying ------------------------------------------------------------------------------------
    def kill(self, player: str, cause: str, by: Iterable[str] = ()) -> bool:
        """Kill a living player (``by``: who killed him, for the notebook); his character's death
        hook may change what happens."""
        if player not in self.alive:
            return False
        if player in self.immune:
            self.note("saved", player=player, cause=cause, by=by, why="zombie")
            return False
        for absorb in SHIELDS:
            why = absorb(self, player, cause)
            if why is not None:
                self.note("saved", player=player, cause=cause, by=by, why=why)
                return False
        self.alive.discard(player)
        self.dead.append(player)
        self.died_now.append((player, cause))
        self.note("killed", player=player, cause=cause, by=by)
        hook = ch.CHARACTERS[self.start.roles[player]].on_death
        if hook is not None:
            self.sync()
            hook(self, player, cause)
        return True

    def reveal(self, player: str) -> None:
        """His card is shown to everyone (a revealed Deadalive, Dorian Wolf, Hamlet)."""
        revealed = dict(self.marks.get("revealed", {}))
        revealed[player] = self.start.roles[player].value
        self.marks["revealed"] = revealed

    def revive(self, player: str, by: Iterable[str] = (), why: str = "zombie") -> None:
        """Alive again: no longer among the dead, nor among those who died in this close. In the
        notebook, a death of this close becomes a life saved (``why``: Dorian Wolf's Portrait); a
        Ghost of an earlier night is revived (Baron Samedi's Zombie)."""
        if player in self.alive:
            return
        self.alive.add(player)
        if player in self.dead:
            self.dead.remove(player)
        self.died_now = [(p, c) for p, c in self.died_now if p != player]
        died = next((n for n in reversed(self.notes) if n["what"] == "killed" and n["player"] == player), None)
        if died is None:
            self.note("revived", player=player, by=by)
        else:
            died.update(what="saved", why=why, savers=list(by))

    # -- back to a value --------------------------------------------------------------------------
    def _frozen_marks(self) -> dict[str, Any]:
        """The marks as ``from_dict`` reads them back. A mark the close did not replace is the
        frozen value it started with (steps replace a mark, never change one in place)."""
        before = self.start.marks
        return {k: v if v is before.get(k) else frozen(v) for k, v in self.marks.items()}

    def _noted(self) -> dict[str, Any]:
        """The marks with this close's notes added to the notebook, each saying when it happened."""
        marks = self._frozen_marks()
        if self.notes:
            s = self.start
            when = {"night": s.night} if s.phase is Phase.NIGHT else {"day": s.day}
            marks[HISTORY] = (*s.marks.get(HISTORY, ()), *(frozen({**when, **n}) for n in self.notes))
        return marks

    def freeze(self, **changes: Any) -> TabulaState:
        knowledge = self.start.knowledge
        if self.knowledge:
            knowledge = dict(knowledge)
            for p, facts in self.knowledge.items():
                knowledge[p] = knowledge.get(p, ()) + tuple(facts)
        return self.start.evolve(
            alive=frozenset(self.alive),
            dead=tuple(self.dead),
            lynched=tuple(self.lynched),
            welcome=self.welcome,
            marks=self._noted(),
            knowledge=knowledge,
            **{**self.sets, **changes},
        )
