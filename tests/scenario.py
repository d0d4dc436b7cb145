"""Scenario helpers: play game records (the tests' scenario format) and check expectations.

A scenario file is a game record plus optional keys the engine ignores::

    expect: {status: over, winners: [...]}        # a subset of `lupus replay`'s output
    expect_error: {position: 3, key: target.self}  # the replay stops at this move
    expect_knowledge: {cat: [{key: seer.result, target: ann, were: true}]}
    expect_not_told: {dan: [seer.result]}          # event keys that must not reach a player
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from engine import summary, view
from engine.record import GameRecord, Move, Replay, ReplayError, parse_record, replay

RECORDS = Path(__file__).parent / "records"


def record_from(text_or_mapping: str | Mapping[str, Any]) -> GameRecord:
    raw = yaml.safe_load(text_or_mapping) if isinstance(text_or_mapping, str) else text_or_mapping
    return parse_record(raw)


def play(text_or_mapping: str | Mapping[str, Any]) -> Replay:
    return replay(record_from(text_or_mapping))


def subset(expected: Any, actual: Any) -> bool:
    if isinstance(expected, Mapping):
        return isinstance(actual, Mapping) and all(k in actual and subset(v, actual[k]) for k, v in expected.items())
    return bool(expected == actual)


def check_scenario(path: Path) -> None:
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    record = parse_record(raw)
    if "expect_error" in raw:
        want = raw["expect_error"]
        try:
            replay(record)
        except ReplayError as e:
            assert e.position == want["position"], f"{path.name}: stopped at {e.position}: {e}"
            if "key" in want:
                assert e.error.key == want["key"], f"{path.name}: {e.error.key} != {want['key']}: {e}"
            return
        raise AssertionError(f"{path.name}: expected an illegal move at {want['position']}")
    result = replay(record)
    got = summary(result.state)
    if "expect" in raw:
        assert subset(raw["expect"], got), f"{path.name}: expected {raw['expect']}\n got {got}"
    for player, facts in (raw.get("expect_knowledge") or {}).items():
        known = view(result.state, player)["knowledge"]
        for fact in facts:
            assert any(subset(fact, k) for k in known), f"{path.name}: {player} never learned {fact}; knows {known}"
    for player, keys in (raw.get("expect_not_told") or {}).items():
        told = {e.key for e in result.told(player)}
        assert not (told & set(keys)), f"{path.name}: {player} was told {told & set(keys)}"


class Game:
    """A game driven move by move from a test: ``g = Game(roles); g("ann: kill dan", "end")``."""

    def __init__(self, roles: str | dict[str, Any], seed: int = 1, options: dict[str, Any] | None = None,
                 rules: str = "tabula") -> None:
        if isinstance(roles, str):
            pairs = [w.split("=") for w in roles.split()]
            roles = {p: r for p, r in pairs}
        self.record = record_from({"rules": rules, "seed": seed, "players": list(roles), "roles": roles,
                                   "options": options or {}, "moves": []})
        self.result = replay(self.record)

    def __call__(self, *moves: str) -> Game:
        for m in moves:
            if m.strip() == "end":
                self.record.moves.append(Move(None, "end"))
            else:
                actor, text = m.split(":", 1)
                self.record.moves.append(Move(actor.strip(), text.strip()))
        self.result = replay(self.record)
        return self

    @property
    def state(self) -> Any:
        return self.result.state

    @property
    def summary(self) -> dict[str, Any]:
        return summary(self.state)

    def knows(self, player: str) -> list[dict[str, Any]]:
        return list(view(self.state, player)["knowledge"])

    def told(self, player: str) -> list[str]:
        return [e.key for e in self.result.told(player)]

    def lynch(self, victim: str) -> Game:
        """A whole day in which everyone votes for ``victim``."""
        st = self.state
        self(*[f"{p}: vote {victim}" for p in st.players])
        self("end")
        st = self.state
        voters = [p for p in st.players if p in st.alive and p not in st.suspects]
        self(*[f"{p}: vote {victim}" for p in voters])
        return self("end")
