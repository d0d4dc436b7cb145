"""Values the engine derives once and carries along (each phase's legal choices and audiences,
the running tally of nominations) agree with values derived afresh from the same state.

A JSON round trip carries no derived value, so the state it gives back derives everything
again: at every step of seeded random games, with the base deck and with the expansion's
characters (tokens passed, a Mythomaniac's copied powers, ghosts who act), both must allow the
same moves, refuse the same moves the same way, and lead to equal states and events.
"""

from __future__ import annotations

import random

import pytest

import engine
from engine import Action, GameConfig, IllegalAction, Phase, RuleSet, Verb
from engine.playout import random_moves

BASE = ("werewolf", "werewolf", "werewolf", "seer", "medium", "possessed", "bodyguard", "owl_man",
        "freemason", "freemason", "werehamster", "mythomaniac") + ("villager",) * 12
EXPANSION = ("werewolf", "werewolf", "seer", "mythomaniac", "hamlet", "dorian_wolf", "baron_samedi",
             "dr_jekyll", "deadalive", "fortune_teller", "werehamster", "owl_man", "bodyguard", "medium",
             "lara", "villager")  # 16 players take three Werewolves: Lara is the third


def config(deck: tuple[str, ...]) -> GameConfig:
    return GameConfig(RuleSet.TABULA, tuple(f"p{i:02d}" for i in range(len(deck))), deck=deck)


def fresh(state: engine.GameState) -> engine.GameState:
    return engine.from_json(engine.to_json(state))


def outcome_of(state: engine.GameState, action: Action) -> tuple[object, ...]:
    try:
        after, events = engine.apply(state, action)
    except IllegalAction as e:
        return ("refused", e.key)
    return ("applied", after, [ev.to_json() for ev in events])


def same_options(state: engine.GameState) -> None:
    again = fresh(state)
    assert engine.actors(state) == engine.actors(again)
    for p in state.players:
        assert engine.legal_choices(state, p) == engine.legal_choices(again, p)
    # The whole table at once says what each actor, asked alone, is told.
    asked = tuple((p, tuple(engine.legal_choices(state, p))) for p in engine.actors(state))
    assert engine.choices(state) == engine.choices(again) == asked
    assert all(options for _, options in asked)


@pytest.mark.parametrize("deck", [BASE, EXPANSION], ids=["base", "expansion"])
@pytest.mark.parametrize("seed", range(4))
def test_carried_values_agree_with_fresh_ones(deck: tuple[str, ...], seed: int) -> None:
    state, _ = engine.new_game(config(deck), seed)
    rnd = random.Random(seed)
    stranger = Action(state.players[0], Verb.VOTE, "nobody")
    while state.phase is not Phase.OVER:
        same_options(state)
        for action in [*random_moves(state, rnd, eagerness=1.0), stranger]:
            carried = outcome_of(state, action)
            assert carried == outcome_of(fresh(state), action)
            if carried[0] == "applied":
                state = carried[1]  # type: ignore[assignment]
                same_options(state)
        closed, events = engine.close_phase(state)
        again, again_events = engine.close_phase(fresh(state))
        assert closed == again
        assert [e.to_json() for e in events] == [e.to_json() for e in again_events]
        state = closed


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
