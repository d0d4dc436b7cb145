"""The state of a Lupusburg game: an immutable value that round-trips through JSON exactly.

What lives and dies is a house (the character under it); what bets, scores and wins is a
player. Every change makes a new state with ``evolve``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from ..types import Outcome, Phase, Role, RuleSet, Verb
from .houses import houses_of, owner

#: One thing a player was told privately (a JSON object with at least a ``key``).
Fact = Mapping[str, Any]
#: A night choice: (verb, house).
Choice = tuple[Verb, str]


@dataclass(frozen=True)
class LupusburgState:
    rules: RuleSet
    seed: int
    players: tuple[str, ...]
    """The seating, clockwise."""
    cards: Mapping[str, Role]
    """The character card under each house (never moves)."""
    chests: Mapping[str, str]
    """Each player's chest: the side of the house that hides it."""
    options: Mapping[str, Any]
    phase: Phase
    phase_no: int
    day: int
    night: int
    burgomaster: str
    alive: frozenset[str]
    """Living houses."""
    dead: tuple[str, ...]
    """Houses in order of death."""
    lynched: tuple[str, ...]
    choices: Mapping[str, Choice]
    """Tonight's choices by slot (``thief``, ``werewolf``); the last one counts."""
    votes: tuple[tuple[str, str], ...]
    """The nominations so far, public and final: (voter, house), one per token."""
    suspects: tuple[str, ...]
    ballots: Mapping[str, tuple[str, ...]]
    """The secret ballot so far: voter -> his last votes, as many as he has."""
    privilege: tuple[str, str | None] | None
    """Today's privilege: (house seen, side the Burgomaster showed or None while he has not)."""
    bag: tuple[int, ...]
    """The coins in the bag (highest first)."""
    draws: Mapping[str, tuple[str, tuple[int, ...]]]
    """Bets begun: player -> (the player bet on, the coins drawn, waiting for his choice)."""
    bets: Mapping[str, tuple[str, int]]
    """Bets placed: player -> (the player bet on, the coin kept)."""
    knowledge: Mapping[str, tuple[Fact, ...]]
    """What each player has been told privately, in order."""
    outcome: Outcome | None = None
    history: tuple[Fact, ...] = ()
    """What happened at each close (``close.Close.note``), told only once the game is over."""

    # -- helpers -------------------------------------------------------------------------------
    def evolve(self, **changes: Any) -> LupusburgState:
        """A copy with some fields changed (faster than dataclasses.replace)."""
        new = object.__new__(LupusburgState)
        new.__dict__.update(self.__dict__)
        new.__dict__.update(changes)
        return new

    def living(self) -> tuple[str, ...]:
        """Living houses, in seating order (left before right)."""
        return tuple(h for p in self.players for h in houses_of(p) if h in self.alive)

    def living_of(self, player: str) -> tuple[str, ...]:
        return tuple(h for h in houses_of(player) if h in self.alive)

    def holder(self, role: Role) -> str:
        """The player who was dealt this (unique) card."""
        return next(owner(h) for h, r in self.cards.items() if r is role)

    def role_of(self, player: str) -> Role:
        """What the player is: the Werewolf or the Thief with both characters, else Townsfolk."""
        mine = {self.cards[h] for h in houses_of(player)}
        for role in (Role.WEREWOLF, Role.THIEF):
            if role in mine:
                return role
        return Role.TOWNSFOLK

    def chest_house(self, player: str) -> str:
        return f"{player}:{self.chests[player]}"

    # -- JSON ------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules.value,
            "seed": self.seed,
            "players": list(self.players),
            "cards": {h: self.cards[h].value for p in self.players for h in houses_of(p)},
            "chests": {p: self.chests[p] for p in self.players},
            "options": _jsonable(self.options),
            "phase": self.phase.value,
            "phase_no": self.phase_no,
            "day": self.day,
            "night": self.night,
            "burgomaster": self.burgomaster,
            "alive": list(self.living()),
            "dead": list(self.dead),
            "lynched": list(self.lynched),
            "choices": {k: [v.value, t] for k, (v, t) in self.choices.items()},
            "votes": [list(v) for v in self.votes],
            "suspects": list(self.suspects),
            "ballots": {p: list(v) for p, v in self.ballots.items()},
            "privilege": list(self.privilege) if self.privilege is not None else None,
            "bag": list(self.bag),
            "draws": {p: [t, list(c)] for p, (t, c) in self.draws.items()},
            "bets": {p: [t, c] for p, (t, c) in self.bets.items()},
            "knowledge": {p: [_jsonable(f) for f in fs] for p, fs in self.knowledge.items()},
            "outcome": self.outcome.to_json() if self.outcome else None,
            "history": [_jsonable(n) for n in self.history],
        }

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> LupusburgState:
        names = {f.name for f in fields(cls)}
        unknown = set(raw) - names
        if unknown:
            raise ValueError(f"unknown state fields: {sorted(unknown)}")
        priv = raw.get("privilege")
        return cls(
            rules=RuleSet(raw["rules"]),
            seed=int(raw["seed"]),
            players=tuple(raw["players"]),
            cards={h: Role(r) for h, r in raw["cards"].items()},
            chests=dict(raw["chests"]),
            options=_frozen(raw.get("options", {})),
            phase=Phase(raw["phase"]),
            phase_no=int(raw["phase_no"]),
            day=int(raw["day"]),
            night=int(raw["night"]),
            burgomaster=raw["burgomaster"],
            alive=frozenset(raw["alive"]),
            dead=tuple(raw["dead"]),
            lynched=tuple(raw["lynched"]),
            choices={k: (Verb(v[0]), v[1]) for k, v in raw.get("choices", {}).items()},
            votes=tuple((v[0], v[1]) for v in raw.get("votes", [])),
            suspects=tuple(raw.get("suspects", [])),
            ballots={p: tuple(v) for p, v in raw.get("ballots", {}).items()},
            privilege=(priv[0], priv[1]) if priv is not None else None,
            bag=tuple(int(c) for c in raw.get("bag", [])),
            draws={p: (v[0], tuple(int(c) for c in v[1])) for p, v in raw.get("draws", {}).items()},
            bets={p: (v[0], int(v[1])) for p, v in raw.get("bets", {}).items()},
            knowledge={p: tuple(_frozen(f) for f in fs) for p, fs in raw.get("knowledge", {}).items()},
            outcome=Outcome.from_json(raw["outcome"]) if raw.get("outcome") else None,
            history=tuple(_frozen(n) for n in raw.get("history", [])),
        )


_SCALARS = (str, int, float, bool, type(None))


def _jsonable(value: Any) -> Any:
    """Tuples become lists, mappings dicts, sets sorted lists: what json.dumps accepts."""
    if type(value) in _SCALARS:  # the common case first: isinstance on Mapping is slow
        return value
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(_jsonable(v) for v in value)
    return value


def _frozen(value: Any) -> Any:
    """The inverse of ``_jsonable`` as far as equality goes: lists come back as tuples."""
    if type(value) in _SCALARS:
        return value
    if isinstance(value, Mapping):
        return {k: _frozen(v) for k, v in value.items()}
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value
