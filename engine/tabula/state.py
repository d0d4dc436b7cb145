"""The state of a Lupus in Tabula game (rule sets ``tabula`` and ``aura``).

An immutable value: every change makes a new state with ``evolve``. Containers are
tuples and mappings that are never mutated once built; ``to_dict``/``from_dict`` round-trip
through JSON exactly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from ..types import Outcome, Phase, Role, RuleSet, Verb

_new = object.__new__
_set = object.__setattr__  # the dataclass is frozen: a new state's fields are set once, here

#: A night or day choice: (verb, target or None), keyed by the power's slot.
Choice = tuple[Verb, str | None]
#: One thing a player was told privately (a JSON object with at least a ``key``).
Fact = Mapping[str, Any]


@dataclass(frozen=True)
class TabulaState:
    rules: RuleSet
    seed: int
    players: tuple[str, ...]
    """The seating, clockwise."""
    roles: Mapping[str, Role]
    """The card each player was dealt (never changes; see ``marks['became']``)."""
    options: Mapping[str, Any]
    phase: Phase
    phase_no: int
    """Counts every phase from 1; a deadline names the phase it closes."""
    day: int
    night: int
    alive: frozenset[str]
    dead: tuple[str, ...]
    """In order of death."""
    lynched: tuple[str, ...]
    welcome: str | None
    """Who holds the "Welcome!" (the last one killed at night)."""
    choices: Mapping[str, Choice]
    """This phase's private choices, by slot (the last one counts)."""
    votes: tuple[tuple[str, str], ...]
    """The nominations so far, public and final: (voter, target)."""
    ballots: Mapping[str, str]
    """The secret ballot so far: voter -> suspect."""
    suspects: tuple[str, ...]
    marks: Mapping[str, Any]
    """What characters remember between phases (tokens, once-per-game uses, standing orders...)."""
    knowledge: Mapping[str, tuple[Fact, ...]]
    """What each player has been told privately, in order."""
    outcome: Outcome | None = None

    # -- helpers -------------------------------------------------------------------------------
    def evolve(self, **changes: Any) -> TabulaState:
        """A copy with some fields changed (``dataclasses.replace`` without its ``__init__``: a
        game makes one for every move)."""
        new = _new(TabulaState)
        _set(new, "__dict__", {**self.__dict__, **changes})
        return new

    def seat(self) -> dict[str, int]:
        """Each player's place at the table (to put a few players back in seating order)."""
        return {p: i for i, p in enumerate(self.players)}

    def dealt(self, role: Role) -> tuple[str, ...]:
        """The players dealt this card, dead or alive, in seating order."""
        roles = self.roles
        return tuple([p for p in self.players if roles[p] is role])

    def mark(self, key: str, default: Any = None) -> Any:
        return self.marks.get(key, default)

    def with_marks(self, **changes: Any) -> TabulaState:
        marks = dict(self.marks)
        for k, v in changes.items():
            if v is None:
                marks.pop(k, None)
            else:
                marks[k] = v
        return self.evolve(marks=marks)

    def is_alive(self, player: str) -> bool:
        return player in self.alive

    def living(self) -> tuple[str, ...]:
        """Living players in seating order."""
        alive = self.alive
        return tuple([p for p in self.players if p in alive])

    # -- JSON ------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules.value,
            "seed": self.seed,
            "players": list(self.players),
            "roles": {p: r.value for p, r in self.roles.items()},
            "options": jsonable(self.options),
            "phase": self.phase.value,
            "phase_no": self.phase_no,
            "day": self.day,
            "night": self.night,
            "alive": [p for p in self.players if p in self.alive],
            "dead": list(self.dead),
            "lynched": list(self.lynched),
            "welcome": self.welcome,
            "choices": {k: [v[0].value, v[1]] for k, v in self.choices.items()},
            "votes": [list(v) for v in self.votes],
            "ballots": dict(self.ballots),
            "suspects": list(self.suspects),
            "marks": jsonable(self.marks),
            "knowledge": {p: [jsonable(f) for f in fs] for p, fs in self.knowledge.items()},
            "outcome": self.outcome.to_json() if self.outcome else None,
        }

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> TabulaState:
        names = {f.name for f in fields(cls)}
        unknown = set(raw) - names
        if unknown:
            raise ValueError(f"unknown state fields: {sorted(unknown)}")
        return cls(
            rules=RuleSet(raw["rules"]),
            seed=int(raw["seed"]),
            players=tuple(raw["players"]),
            roles={p: Role(r) for p, r in raw["roles"].items()},
            options=frozen(raw.get("options", {})),
            phase=Phase(raw["phase"]),
            phase_no=int(raw["phase_no"]),
            day=int(raw["day"]),
            night=int(raw["night"]),
            alive=frozenset(raw["alive"]),
            dead=tuple(raw["dead"]),
            lynched=tuple(raw["lynched"]),
            welcome=raw.get("welcome"),
            choices={k: (Verb(v[0]), v[1]) for k, v in raw.get("choices", {}).items()},
            votes=tuple((v[0], v[1]) for v in raw.get("votes", [])),
            ballots=dict(raw.get("ballots", {})),
            suspects=tuple(raw.get("suspects", [])),
            marks=frozen(raw.get("marks", {})),
            knowledge={p: tuple(frozen(f) for f in fs) for p, fs in raw.get("knowledge", {}).items()},
            outcome=Outcome.from_json(raw["outcome"]) if raw.get("outcome") else None,
        )


SCALARS = frozenset({str, int, float, bool, type(None)})
"""Values ``jsonable`` and ``frozen`` leave as they are, asked first: ``isinstance`` against
``Mapping`` goes through the ABC machinery, and most values are names or numbers."""


def jsonable(value: Any) -> Any:
    """Tuples become lists, mappings dicts, sets sorted lists: what json.dumps accepts."""
    if type(value) in SCALARS:
        return value
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(jsonable(v) for v in value)
    return value


def frozen(value: Any) -> Any:
    """The inverse of ``jsonable`` as far as equality goes: lists come back as tuples."""
    if type(value) in SCALARS:
        return value
    if isinstance(value, Mapping):
        return {k: frozen(v) for k, v in value.items()}
    if isinstance(value, list):
        return tuple(frozen(v) for v in value)
    return value
