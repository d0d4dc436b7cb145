"""Scenario helpers: play game records (the tests' scenario format) and check expectations.

A scenario file is a game record plus optional keys the engine ignores::

    expect: {status: over, winners: [...]}        # a subset of `lupus replay`'s output
    expect_error: {position: 3, key: target.self}  # the replay stops at this move
    expect_knowledge: {cat: [{key: seer.result, target: ann, were: true}]}
    expect_not_told: {dan: [seer.result]}          # event keys that must not reach a player
    expect_events:                                 # each must have happened (data: those keys equal)
      - {key: night.dawn, to: null, data: {dead: [dan]}}   # to: the exact audience (null: public)
      - {key: aura.lost, at: 5}                    # at / after: caused by move 5 / by a later move
    expect_absent: [{key: dorian_wolf.revealed}]   # none of these may have happened
    expect_views: {ann: {role: lara}, public: {tokens: {}}}   # engine.view / public_view, keys
                                                   # (dotted paths allowed) exactly equal

``expect_error`` at position 0 means the game cannot even be set up (``InvalidSetup``); its
``reason``, if given, must be part of the readable reason. Its ``text``, if given, is what a
player reads of the error in each language it names (the service's catalogs)::

    expect_error: {position: 0, key: setup.wolves, text: {en: "...", it: "...", es: "..."}}
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from engine import public_view, summary, view
from engine.errors import LupusError
from engine.record import GameRecord, Move, Replay, ReplayError, parse_record, replay
from engine.types import Event

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


def plain(value: Any) -> Any:
    return json.loads(json.dumps(value))


def dig(obj: Any, path: str) -> Any:
    for part in path.split("."):
        obj = obj[part]
    return obj


def event_like(event: Event, pos: int, want: Mapping[str, Any]) -> bool:
    if event.key != want["key"]:
        return False
    if "to" in want and (list(event.to) if event.to is not None else None) != want["to"]:
        return False
    if pos <= want.get("after", -1) or pos != want.get("at", pos):
        return False
    data = plain(dict(event.data))
    return all(k in data and data[k] == plain(v) for k, v in (want.get("data") or {}).items())


def error_texts(path: Path, want: Mapping[str, Any], error: LupusError) -> None:
    """The error as each reader reads it, in the languages ``want['text']`` names."""
    from service.texts.errors import error_text

    for lang, text in (want.get("text") or {}).items():
        assert error_text(lang, error) == text, f"{path.name} ({lang}): {error_text(lang, error)!r}"


def check_scenario(path: Path) -> None:
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    record = parse_record(raw)
    if "expect_error" in raw:
        want = raw["expect_error"]
        try:
            replay(record)
        except LupusError as e:  # the game could not be set up
            assert want["position"] == 0, f"{path.name}: the setup failed: {e}"
            assert e.key == want.get("key", e.key), f"{path.name}: {e.key} != {want['key']}: {e}"
            assert want.get("reason", "") in e.reason, f"{path.name}: {e.reason}"
            error_texts(path, want, e)
            return
        except ReplayError as e:
            assert e.position == want["position"], f"{path.name}: stopped at {e.position}: {e}"
            if "key" in want:
                assert e.error.key == want["key"], f"{path.name}: {e.error.key} != {want['key']}: {e}"
            assert want.get("reason", "") in e.error.reason, f"{path.name}: {e.error.reason}"
            error_texts(path, want, e.error)
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
    for want in raw.get("expect_events") or []:
        assert any(event_like(e, pos, want) for pos, e in result.events), (
            f"{path.name}: no event like {want}; got\n" + "\n".join(str(e.to_json()) for _, e in result.events)
        )
    for want in raw.get("expect_absent") or []:
        hits = [e.to_json() for pos, e in result.events if event_like(e, pos, want)]
        assert not hits, f"{path.name}: unexpected {hits}"
    for player, fields in (raw.get("expect_views") or {}).items():
        seen = plain(public_view(result.state) if player == "public" else view(result.state, player))
        for k, v in fields.items():
            assert dig(seen, k) == plain(v), f"{path.name}: view of {player}: {k} is {dig(seen, k)!r}"
    for player, keys in (raw.get("expect_not_told") or {}).items():
        told = {e.key for e in result.told(player)}
        assert not (told & set(keys)), f"{path.name}: {player} was told {told & set(keys)}"


class Game:
    """A game driven move by move from a test: ``g = Game(roles); g("ann: kill dan", "end")``."""

    def __init__(
        self, roles: str | dict[str, Any], seed: int = 1, options: dict[str, Any] | None = None, rules: str = "tabula"
    ) -> None:
        if isinstance(roles, str):
            pairs = [w.split("=") for w in roles.split()]
            roles = {p: r for p, r in pairs}
        self.record = record_from(
            {
                "rules": rules,
                "seed": seed,
                "players": list(roles),
                "roles": roles,
                "options": options or {},
                "moves": [],
            }
        )
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
