"""``engine.choices`` (the whole table at once) says what each player, asked alone, is told, at
every step of seeded random games in every rule set; and two moves applied to one state make two
games that know only their own move.

The engine carries no derived value from state to state (no memo, no running tally), so there
is no carried value left to hold against a fresh one: a state and its JSON round trip are the
same value.
"""

from __future__ import annotations

import random

import pytest

import engine
from engine import Action, GameConfig, IllegalAction, Phase, RuleSet, Verb
from engine.playout import random_moves

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
)  # 16 players take three Werewolves: Lara is the third


def config(deck: tuple[str, ...]) -> GameConfig:
    return GameConfig(RuleSet.TABULA, tuple(f"p{i:02d}" for i in range(len(deck))), deck=deck)


def fresh(state: engine.GameState) -> engine.GameState:
    return engine.from_json(engine.to_json(state))


def same_options(state: engine.GameState) -> None:
    """The whole table at once says what each actor, asked alone, is told, and never an empty choice."""
    asked = tuple((p, tuple(engine.legal_choices(state, p))) for p in engine.actors(state))
    assert engine.choices(state) == asked
    assert all(options for _, options in asked)
    assert all(not engine.legal_choices(state, p) for p in state.players if p not in engine.actors(state))


def test_sibling_states_keep_their_own_nominations() -> None:
    """Two votes applied to the same state make two games: each knows only its own vote."""
    state, _ = engine.new_game(config(BASE), 3)
    state, _ = engine.close_phase(state)
    assert state.phase is Phase.NOMINATIONS
    a, b, target = state.players[0], state.players[1], engine.legal_choices(state, state.players[0])[0][1][0]
    left, left_events = engine.apply(state, Action(a, Verb.VOTE, target))
    right, right_events = engine.apply(state, Action(b, Verb.VOTE, target))
    assert left_events[0].data["votes"] == right_events[0].data["votes"] == 1
    assert a not in engine.actors(left) and a in engine.actors(right)
    assert b in engine.actors(left) and b not in engine.actors(right)
    with pytest.raises(IllegalAction):
        engine.apply(left, Action(a, Verb.VOTE, target))
    both, events = engine.apply(left, Action(b, Verb.VOTE, target))
    assert events[0].data["votes"] == 2
    assert engine.apply(right, Action(a, Verb.VOTE, target))[1][0].data["votes"] == 2
    assert engine.public_view(both) == engine.public_view(fresh(both))


def test_the_whole_table_at_once_with_every_character() -> None:
    for deck in (BASE, EXPANSION):
        for seed in range(2):
            state, _ = engine.new_game(config(deck), seed)
            rnd = random.Random(seed)
            while state.phase is not Phase.OVER:
                same_options(state)
                for action in random_moves(state, rnd, eagerness=1.0):
                    try:
                        state, _ = engine.apply(state, action)
                    except IllegalAction:
                        continue
                    same_options(state)
                state, _ = engine.close_phase(state)


@pytest.mark.parametrize("rules", [RuleSet.AURA, RuleSet.LUPUSBURG])
def test_the_whole_table_at_once_in_every_rule_set(rules: RuleSet) -> None:
    """``engine.choices`` (a rule set's own, or asked player by player) agrees with ``actors``
    and ``legal_choices`` at every step of random games."""
    from engine.playout import play_out

    def check(action: Action | None, state: engine.GameState, events: list[engine.Event]) -> None:
        asked = tuple((p, tuple(found)) for p in engine.actors(state) if (found := engine.legal_choices(state, p)))
        assert engine.choices(state) == asked

    for seed in range(3):
        play_out(GameConfig(rules, tuple(f"p{i}" for i in range(6))), seed, random.Random(seed), on_step=check)
