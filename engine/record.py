"""Game records: the export, replay, bug-report and test-scenario format.

A record is YAML (JSON is YAML too)::

    rules: tabula
    seed: 7
    players: [ann, bob, cat, dan, eve, fay, gus, hal]   # the seating, clockwise
    roles: {ann: werewolf, ...}                         # optional: else dealt from the seed
    theme: nights_of_blood                              # optional, instead of roles
    options: {}
    moves:
      - ann: kill dan      # what the player would type
      - end                # the current phase closes: its deadline passed
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from . import apply, close_phase, new_game, parse_target
from .errors import LupusError
from .notation import parse_move
from .ruleset import GameState
from .types import Event, GameConfig, RuleSet

END = "end"


@dataclass(frozen=True)
class Move:
    """One line of a record: a player's move, or ``end`` (actor None)."""

    actor: str | None
    text: str

    def to_yaml(self) -> Any:
        return END if self.actor is None else {self.actor: self.text}

    def __str__(self) -> str:
        return END if self.actor is None else f"{self.actor}: {self.text}"


@dataclass
class GameRecord:
    rules: RuleSet
    seed: int
    players: list[str]
    roles: dict[str, Any] | None = None
    theme: str | None = None
    deck: list[str] | None = None
    options: dict[str, Any] = field(default_factory=dict)
    moves: list[Move] = field(default_factory=list)

    def config(self) -> GameConfig:
        return GameConfig(
            self.rules,
            tuple(self.players),
            self.roles,
            tuple(self.deck) if self.deck else None,
            self.theme,
            self.options,
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rules": self.rules.value, "seed": self.seed, "players": list(self.players)}
        if self.roles is not None:
            out["roles"] = self.roles
        if self.theme is not None:
            out["theme"] = self.theme
        if self.deck is not None:
            out["deck"] = self.deck
        out["options"] = self.options
        out["moves"] = [m.to_yaml() for m in self.moves]
        return out

    def dumps(self) -> str:
        return yaml.safe_dump(self.to_dict(), sort_keys=False, allow_unicode=True, default_flow_style=None)


class RecordError(ValueError):
    """The record itself is malformed (not a move that is illegal)."""


def parse_record(raw: Mapping[str, Any]) -> GameRecord:
    if not isinstance(raw, Mapping):
        raise RecordError("a game record is a mapping with rules, seed, players and moves")
    try:
        rules = RuleSet(str(raw.get("rules", "tabula")))
    except ValueError:
        raise RecordError(f"unknown rules {raw.get('rules')!r}") from None
    players = raw.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise RecordError("players must be a list of names")
    moves = []
    for i, m in enumerate(raw.get("moves") or [], start=1):
        if isinstance(m, str) and m.strip().lower() == END:
            moves.append(Move(None, END))
        elif isinstance(m, Mapping) and len(m) == 1:
            ((actor, text),) = m.items()
            moves.append(Move(str(actor), str(text)))
        else:
            raise RecordError(f"move {i}: expected 'end' or 'player: command', got {m!r}")
    seed = raw.get("seed", 0)
    if not isinstance(seed, int):
        raise RecordError("seed must be a whole number")
    return GameRecord(
        rules=rules,
        seed=seed,
        players=list(players),
        roles=raw.get("roles"),
        theme=raw.get("theme"),
        deck=raw.get("deck"),
        options=dict(raw.get("options") or {}),
        moves=moves,
    )


def load_record(source: str | Path) -> GameRecord:
    text = Path(source).read_text(encoding="utf-8") if isinstance(source, Path) else source
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise RecordError(f"not valid YAML: {e}") from None
    return parse_record(raw)


class ReplayError(Exception):
    def __init__(self, position: int, move: Move, error: LupusError) -> None:
        super().__init__(f"move {position} ({move}): {error.reason}")
        self.position = position
        self.move = move
        self.error = error


@dataclass
class Replay:
    state: GameState
    events: list[tuple[int, Event]]
    """Every event, with the position of the move that caused it (0: the deal)."""

    def told(self, player: str) -> list[Event]:
        return [e for _, e in self.events if e.for_player(player)]


def steps(record: GameRecord) -> Iterator[tuple[int, Move | None, GameState, list[Event]]]:
    """Play a record move by move: (position, move, state after, events). Raises ReplayError."""
    state, events = new_game(record.config(), record.seed)
    yield 0, None, state, events
    for pos, move in enumerate(record.moves, start=1):
        try:
            if move.actor is None:
                state, events = close_phase(state, state.phase_no)
            else:
                action = parse_move(move.actor, move.text)
                if action.target is not None:
                    action = type(action)(action.actor, action.verb, parse_target(state, action.target))
                state, events = apply(state, action)
        except LupusError as e:
            raise ReplayError(pos, move, e) from None
        yield pos, move, state, events


def replay(record: GameRecord) -> Replay:
    log: list[tuple[int, Event]] = []
    state: GameState | None = None
    for pos, _, after, events in steps(record):
        log.extend((pos, e) for e in events)
        state = after
    assert state is not None
    return Replay(state, log)
