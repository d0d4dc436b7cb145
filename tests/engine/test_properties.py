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
from engine import GameConfig, RuleSet, Team
from engine.tabula.character import is_wolf, team_of
from engine.tabula.end import counted_living
from tests.engine.invariants import Checker, views_private

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


def test_views_do_not_depend_on_other_players_secrets() -> None:
    def config(seed: int, rnd: random.Random) -> GameConfig:
        n = rnd.randint(8, 16)
        return GameConfig(RuleSet.TABULA, tuple(f"p{i}" for i in range(n)), deck=random_deck(n, rnd))

    assert views_private(config, range(150)) > 300
