"""What crosses from the engine to the service has the shape the engine declares: the views
(``engine/viewing.py``) and every event's data (``engine/payloads.py``), at every step of seeded
random games in every rule set and of every game record that plays to its end. mypy holds the
readers to the declared shapes; this holds the engine to them at run time, and keeps them JSON.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

import engine
from engine import Event, GameConfig, RuleSet
from engine.payloads import PAYLOADS
from engine.playout import play_out
from engine.record import ReplayError, load_record, steps
from engine.viewing import LupusburgPlayerView, LupusburgPublicView, TabulaPlayerView, TabulaPublicView

RECORDS = Path(__file__).resolve().parents[1] / "records"

#: Keys every public view has, in every phase (the rest: only in some phases or rule sets).
ALWAYS = {
    "rules",
    "status",
    "phase",
    "phase_no",
    "day",
    "night",
    "players",
    "alive",
    "dead",
    "lynched",
    "speakers",
    "winners",
}
ALWAYS_BY_RULES = {
    RuleSet.TABULA: {"welcome", "revealed", "tokens"},
    RuleSet.AURA: {"welcome", "revealed", "tokens", "auras", "aura_pile"},
    RuleSet.LUPUSBURG: {"burgomaster", "seals_used", "privilege"},
}
VIEWS: dict[RuleSet, tuple[Any, Any]] = {
    RuleSet.TABULA: (TabulaPublicView, TabulaPlayerView),
    RuleSet.AURA: (TabulaPublicView, TabulaPlayerView),
    RuleSet.LUPUSBURG: (LupusburgPublicView, LupusburgPlayerView),
}

BASE = (
    "werewolf",
    "werewolf",
    "werewolf",
    "seer",
    "medium",
    "possessed",
    "bodyguard",
    "owl_man",
    "freemason",
    "freemason",
    "werehamster",
    "mythomaniac",
) + ("villager",) * 12
EXPANSION = (
    "werewolf",
    "werewolf",
    "seer",
    "mythomaniac",
    "hamlet",
    "dorian_wolf",
    "baron_samedi",
    "dr_jekyll",
    "deadalive",
    "fortune_teller",
    "werehamster",
    "owl_man",
    "bodyguard",
    "medium",
    "lara",
    "villager",
)
WICKED = (
    "werewolf",
    "werewolf",
    "werecow",
    "darius",
    "miss_purple",
    "fortune_teller",
    "mythomaniac",
    "hamlet",
    "seer",
    "villager",
    "villager",
    "villager",
)


def declared(shape: Any) -> set[str]:
    return set(shape.__required_keys__) | set(shape.__optional_keys__)


def fits(data: Mapping[str, Any], shape: Any, always: set[str] | None = None) -> list[str]:
    """What is wrong with ``data`` as ``shape`` (nothing: it fits)."""
    keys = set(data)
    needed = set(shape.__required_keys__) if always is None else always
    wrong = [f"unknown key {k!r}" for k in sorted(keys - declared(shape))]
    wrong += [f"missing key {k!r}" for k in sorted(needed - keys)]
    return wrong


def check_event(event: Event) -> None:
    shape = PAYLOADS.get(event.key)
    assert shape is not None, f"{event.key} is not declared in engine/payloads.py"
    assert not fits(event.data, shape), (event.key, fits(event.data, shape), dict(event.data))
    assert json.loads(json.dumps(event.to_json())) == event.to_json()


def check_views(state: engine.GameState) -> None:
    public_shape, player_shape = VIEWS[state.rules]
    always = ALWAYS | ALWAYS_BY_RULES[state.rules]
    pv = engine.public_view(state)
    assert not fits(pv, public_shape, always), fits(pv, public_shape, always)
    assert json.loads(json.dumps(pv)) == pv
    for p in state.players:
        view = engine.view(state, p)
        assert not fits(view, player_shape), fits(view, player_shape)
        assert view["public"] == pv
        json.dumps(view)  # JSON, though a Lupusburg fact may hold a tuple where JSON reads back a list


def games() -> Iterator[tuple[str, GameConfig, int]]:
    for name, deck in (("base", BASE), ("expansion", EXPANSION), ("wicked", WICKED)):
        for seed in range(2):
            yield name, GameConfig(RuleSet.TABULA, tuple(f"p{i:02d}" for i in range(len(deck))), deck=deck), seed
    for n in (4, 5, 6, 7):
        yield f"aura{n}", GameConfig(RuleSet.AURA, tuple(f"p{i}" for i in range(n))), n
    for n in (4, 6, 8):
        yield f"lupusburg{n}", GameConfig(RuleSet.LUPUSBURG, tuple(f"p{i}" for i in range(n))), n


@pytest.mark.parametrize(("name", "config", "seed"), list(games()), ids=lambda x: x if isinstance(x, str) else "")
def test_random_games_keep_to_the_declared_shapes(name: str, config: GameConfig, seed: int) -> None:
    def check(action: engine.Action | None, state: engine.GameState, events: list[Event]) -> None:
        for e in events:
            check_event(e)
        check_views(state)

    play_out(config, seed, random.Random(seed), on_step=check)


def test_every_record_keeps_to_the_declared_shapes() -> None:
    seen: set[str] = set()
    for path in sorted(RECORDS.rglob("*.yaml")):
        try:
            record = load_record(path)
        except Exception:  # a record that tests a refused setup or a bad move says so itself
            continue
        try:
            for _, _, state, events in steps(record):
                for e in events:
                    check_event(e)
                    seen.add(e.key)
                check_views(state)
        except (ReplayError, engine.LupusError):
            continue
    assert seen <= set(PAYLOADS) and len(seen) > 40
