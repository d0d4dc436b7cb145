"""The state of a Lupus in Tabula game (rule sets ``tabula`` and ``aura``).

An immutable value: every change makes a new state with ``evolve``. Containers are
tuples and mappings that are never mutated once built; ``to_dict``/``from_dict`` round-trip
through JSON exactly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from ..types import Outcome, Phase, Role, RuleSet, Verb

_new = object.__new__
_set = object.__setattr__  # the dataclass is frozen: a new state's fields are set once, here

#: The fields that change within a phase (votes, choices, what a player is told); everything
#: else changes only when a phase closes, or through a standing order that also sets ``marks``.
IN_PHASE = frozenset({"choices", "votes", "ballots", "knowledge"})

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

    # Derived values, in slots every state has (see ``__post_init__``); read as attributes,
    # written through ``__dict__`` (the state is frozen; they are not fields).
    _game: ClassVar[dict[str, Any] | None]
    _phase: ClassVar[dict[str, Any] | None]
    _cache: ClassVar[dict[str, Any] | None]

    def __post_init__(self) -> None:
        # Every state's attributes in one layout, the fields in order and then the derived
        # values' slots (``_game``, ``_phase``, ``_cache``), which are set or emptied but never
        # removed: copies keep the layout, and Python's attribute caches, keyed by where an
        # attribute sits, hold for every state (a state whose layout differs misses them).
        d = dict(self.__dict__)
        d["_game"] = d["_phase"] = d["_cache"] = None
        _set(self, "__dict__", d)

    # -- helpers -------------------------------------------------------------------------------
    def evolve(self, **changes: Any) -> TabulaState:
        """A copy with some fields changed (faster than dataclasses.replace).

        Derived values go with it only as far as they still hold: ``_cache`` (derived from
        anything) never, ``_phase`` (derived from everything but the in-phase fields) when
        only in-phase fields change, as they do for every vote and choice of a phase."""
        d = self.__dict__.copy()
        d.update(changes)
        d["_cache"] = None
        if not changes.keys() <= IN_PHASE:
            d["_phase"] = None
            if "players" in changes or "roles" in changes:
                d["_game"] = None
        new = _new(TabulaState)
        _set(new, "__dict__", d)
        return new

    def in_phase(self, name: str, value: Any, cache: dict[str, Any] | None = None) -> TabulaState:
        """``evolve`` of one ``IN_PHASE`` field (a vote, a choice), the phase's derived values
        kept, with values derived incrementally for the new state (``cache``)."""
        d = self.__dict__.copy()
        d[name] = value
        d["_cache"] = cache
        new = _new(TabulaState)
        _set(new, "__dict__", d)
        return new

    def cached(self, name: str, compute: Any) -> Any:
        """A value derived from this state, computed once (states never change)."""
        cache: dict[str, Any] | None = self._cache
        if cache is None:
            cache = self.__dict__["_cache"] = {}
        if name not in cache:
            cache[name] = compute(self)
        return cache[name]

    def phase_memo(self) -> dict[str, Any]:
        """Values derived from the fields that stay put within a phase (not ``IN_PHASE``),
        shared by the states of one phase. Whoever fills it derives only from those fields."""
        memo: dict[str, Any] | None = self._phase
        if memo is None:
            memo = self.__dict__["_phase"] = {}
        return memo

    def game_memo(self) -> dict[str, Any]:
        """Values derived from the seating and the cards alone, which never change in a game."""
        memo: dict[str, Any] | None = self._game
        if memo is None:
            memo = self.__dict__["_game"] = {}
        return memo

    def seat(self) -> dict[str, int]:
        """Each player's place at the table (to put a few players back in seating order)."""
        memo = self.game_memo()
        seat: dict[str, int] | None = memo.get("seat")
        if seat is None:
            seat = memo["seat"] = {p: i for i, p in enumerate(self.players)}
        return seat

    def dealt(self, role: Role) -> tuple[str, ...]:
        """The players dealt this card, dead or alive, in seating order."""
        memo = self.game_memo()
        by_role: dict[Role, tuple[str, ...]] | None = memo.get("dealt")
        if by_role is None:
            found: dict[Role, list[str]] = {}
            for p in self.players:
                found.setdefault(self.roles[p], []).append(p)
            by_role = memo["dealt"] = {r: tuple(ps) for r, ps in found.items()}
        return by_role.get(role, ())

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
        """Living players in seating order (kept for the phase: it is asked for all the time)."""
        memo = self._phase
        if memo is None:
            memo = self.phase_memo()
        living: tuple[str, ...] | None = memo.get("living")
        if living is None:
            alive = self.alive
            living = memo["living"] = tuple([p for p in self.players if p in alive])
        return living

    def voted(self) -> frozenset[str]:
        """Who has cast a nomination today."""
        voted: frozenset[str] = self.cached("voted", lambda s: frozenset(v for v, _ in s.votes))
        return voted

    def running(self) -> dict[str, Any]:
        """Today's nominations as a vote needs them, passed on from vote to vote: ``tally``
        (votes by target), ``mask`` (who has voted, one bit a seat) and ``bits`` (each
        player's bit, for the game)."""
        cache: dict[str, Any] | None = self._cache
        if cache is not None and "mask" in cache:
            return cache
        bits: dict[str, int] | None = self.game_memo().get("bits")
        if bits is None:
            bits = self.game_memo()["bits"] = {p: 1 << i for i, p in enumerate(self.players)}
        mask = 0
        tally: dict[str, int] = {}
        for v, t in self.votes:
            mask |= bits[v]
            tally[t] = tally.get(t, 0) + 1
        found = {"mask": mask, "tally": tally, "bits": bits}
        if cache is None:
            self.__dict__["_cache"] = found
        else:
            cache.update(found)
        return found

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


def jsonable(value: Any) -> Any:
    """Tuples become lists, mappings dicts, sets sorted lists: what json.dumps accepts."""
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(jsonable(v) for v in value)
    return value


def frozen(value: Any) -> Any:
    """The inverse of ``jsonable`` as far as equality goes: lists come back as tuples."""
    if isinstance(value, Mapping):
        return {k: frozen(v) for k, v in value.items()}
    if isinstance(value, list):
        return tuple(frozen(v) for v in value)
    return value
