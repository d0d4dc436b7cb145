"""Seeded random playouts of the base game: thousands of games, every count and mix.

Every game ends within a bounded number of phases; dead players never act (Ghosts only
vote in the nominations); the living only fall; the winners match the end conditions;
no event tells a player a character he may not know; states round-trip through JSON;
and a player's view does not depend on other players' secrets.
"""

from __future__ import annotations

import random

import pytest

import engine
from engine import GameConfig, Phase, RuleSet, Team
from engine.playout import play_out
from engine.tabula.character import CHARACTERS, is_wolf, team_of
from engine.tabula.end import counted_living
from tests.engine.invariants import Checker

SPECIALS = ["seer", "medium", "possessed", "bodyguard", "owl_man", "werehamster", "mythomaniac"]


def random_deck(n: int, rnd: random.Random) -> tuple[str, ...]:
    wolves = ["werewolf"] * (3 if n >= 16 else 2)
    pool = list(SPECIALS)
    if rnd.random() < 0.5:
        pool.append("freemasons")
    rnd.shuffle(pool)
    cards: list[str] = []
    for s in pool:
        add = ["freemason", "freemason"] if s == "freemasons" else [s]
        if len(wolves) + len(cards) + len(add) <= n and rnd.random() < 0.7:
            cards.extend(add)
    return tuple(wolves + cards + ["villager"] * (n - len(wolves) - len(cards)))


def check_winners(state: engine.GameState) -> None:
    out = engine.outcome(state)
    assert out is not None
    st: engine.tabula.state.TabulaState = state  # type: ignore[assignment]
    living = counted_living(st)
    wolves = [p for p in living if is_wolf(st, p)]
    hamster = [p for p in st.living() if st.roles[p].value == "werehamster"]
    if out.team is Team.WEREHAMSTER:
        assert out.winners == tuple(hamster)
        return
    assert not hamster
    if out.team is Team.HUMANS:
        assert not wolves
    elif out.team is Team.WEREWOLVES:
        assert wolves and len(wolves) >= len(living) - len(wolves)
    assert out.winners == tuple(p for p in st.players if team_of(st, p) is out.team)


@pytest.mark.parametrize("chunk", range(8))
def test_random_games_keep_every_invariant(chunk: int) -> None:
    for seed in range(chunk * 200, chunk * 200 + 200):
        rnd = random.Random(seed)
        n = rnd.randint(8, 24)
        players = tuple(f"p{i}" for i in range(n))
        config = GameConfig(RuleSet.TABULA, players, deck=random_deck(n, rnd))
        final = Checker(config, seed).run()
        check_winners(final)


def swap_secrets(state: engine.tabula.state.TabulaState, viewer: str, rnd: random.Random):  # type: ignore[no-untyped-def]
    """Another state that differs only in secrets the viewer does not know."""
    known = {viewer}
    for fact in state.knowledge.get(viewer, ()):
        for v in fact.values():
            if isinstance(v, str):
                known.add(v)
            elif isinstance(v, tuple):
                known.update(x for x in v if isinstance(x, str))
    others = [p for p in state.players if p not in known]
    if len(others) < 2:
        return None
    a, b = rnd.sample(others, 2)
    roles = dict(state.roles)
    roles[a], roles[b] = roles[b], roles[a]
    # Wolves know one another: a swap must not change who is a wolf in the viewer's eyes.
    if is_wolf(state, viewer) and (CHARACTERS[roles[a]].wolf != CHARACTERS[state.roles[a]].wolf):
        return None
    knowledge = dict(state.knowledge)
    knowledge[a], knowledge[b] = state.knowledge.get(b, ()), state.knowledge.get(a, ())
    choices = {k: v for k, v in state.choices.items() if not (k.endswith(":" + a) or k.endswith(":" + b))}
    ballots = dict(state.ballots)
    for voter in (a, b):  # how they voted is secret, that they voted is not
        if voter in ballots and len(state.suspects) == 2:
            ballots[voter] = next(s for s in state.suspects if s != ballots[voter])
    return state.evolve(roles=roles, knowledge=knowledge, choices=choices, ballots=ballots)


def test_views_do_not_depend_on_other_players_secrets() -> None:
    compared = 0
    for seed in range(150):
        rnd = random.Random(seed)
        n = rnd.randint(8, 16)
        players = tuple(f"p{i}" for i in range(n))
        config = GameConfig(RuleSet.TABULA, players, deck=random_deck(n, rnd))
        states: list[engine.GameState] = []
        play_out(config, seed, random.Random(seed), on_step=lambda a, s, e, into=states: into.append(s))
        for state in rnd.sample(states, min(6, len(states))):
            if state.phase is Phase.OVER:
                continue
            for viewer in rnd.sample(list(state.players), 3):
                other = swap_secrets(state, viewer, rnd)  # type: ignore[arg-type]
                if other is None or other == state:
                    continue
                assert engine.view(state, viewer) == engine.view(other, viewer)
                assert engine.public_view(state) == engine.public_view(other)
                compared += 1
    assert compared > 300
