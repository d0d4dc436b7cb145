"""Seeded random playouts with the expansion: its ten characters mixed with the base ones, the
seven themes, and the 4-7 player Aura variant. The invariants of ``tests/engine/invariants.py``
hold at every step (the game ends, the dead never act, no event tells a player a character he
may not know, states round-trip through JSON); the winners match the end conditions, Darius's
and the Werehamster's lone wins included; views do not depend on other players' secrets."""

from __future__ import annotations

import random

import pytest

import engine
from engine import GameConfig, InvalidSetup, Role, RuleSet, Team
from engine.tabula import deck
from engine.tabula.character import is_wolf, team_of
from engine.tabula.state import TabulaState
from tests.engine.invariants import Checker, views_private

EXPANSION = [
    "baron_samedi",
    "miss_purple",
    "darius",
    "werecow",
    "deadalive",
    "dorian_wolf",
    "dr_jekyll",
    "hamlet",
    "fortune_teller",
]
BASE = ["seer", "medium", "possessed", "bodyguard", "owl_man", "werehamster", "mythomaniac"]


def random_deck(n: int, rnd: random.Random) -> tuple[str, ...]:
    while True:
        wolves = ["werewolf"] * (3 if n >= 16 else rnd.choice([1, 2]))
        if rnd.random() < 0.6:
            wolves[0] = "lara"
        pool = EXPANSION + BASE
        rnd.shuffle(pool)
        cards = [c for c in pool if rnd.random() < 0.6][: n - len(wolves)]
        full = tuple(wolves + cards + ["villager"] * (n - len(wolves) - len(cards)))
        try:
            deck.validate(deck.parse_roles(full), n)
        except InvalidSetup:
            continue
        return full


def check_winners(state: engine.GameState) -> None:
    out = engine.outcome(state)
    assert out is not None
    st: TabulaState = state  # type: ignore[assignment]
    living = [p for p in st.living() if st.roles[p] is not Role.DEADALIVE]
    wolves = [p for p in living if is_wolf(st, p)]
    darius = [p for p in living if st.roles[p] is Role.DARIUS]
    hamster = [p for p in st.living() if st.roles[p] is Role.WEREHAMSTER]
    if darius and len(living) <= 2:
        assert (out.team, out.winners) == (Team.DARIUS, tuple(darius))
        return
    if hamster:
        assert (out.team, out.winners) == (Team.WEREHAMSTER, tuple(hamster))
        return
    if out.team is Team.HUMANS:
        assert not wolves
    else:
        assert out.team is Team.WEREWOLVES and wolves and len(wolves) >= len(living) - len(wolves)
    assert out.winners == tuple(p for p in st.players if team_of(st, p) is out.team)
    assert not set(darius) & set(out.winners)


def play(config: GameConfig, seed: int, lives: int = 1) -> engine.GameState:
    checker = Checker(config, seed)
    # Every day's lynching takes a life; an Aura is a second one.
    checker.max_phases = 3 * (lives * len(config.players) + 3)
    final = checker.run()
    check_winners(final)
    return final


@pytest.mark.parametrize("chunk", range(4))
def test_random_games_with_expansion_characters(chunk: int) -> None:
    for seed in range(chunk * 150, chunk * 150 + 150):
        rnd = random.Random(seed)
        n = rnd.randint(8, 20)
        players = tuple(f"p{i}" for i in range(n))
        play(GameConfig(RuleSet.TABULA, players, deck=random_deck(n, rnd)), seed)


def test_random_games_of_every_theme() -> None:
    for seed, key in enumerate(sorted(deck.THEMES) * 25):
        theme = deck.THEMES[key]
        n = random.Random(seed).randint(theme.lo, theme.hi)
        play(GameConfig(RuleSet.TABULA, tuple(f"p{i}" for i in range(n)), theme=key), seed)


@pytest.mark.parametrize("n", [4, 5, 6, 7])
def test_random_aura_games(n: int) -> None:
    teams = set()
    for seed in range(150):
        final = play(GameConfig(RuleSet.AURA, tuple(f"p{i}" for i in range(n))), seed, lives=2)
        teams.add(engine.outcome(final).team)  # type: ignore[union-attr]
    assert {Team.HUMANS, Team.WEREWOLVES} <= teams


def test_expansion_views_do_not_depend_on_other_players_secrets() -> None:
    def config(seed: int, rnd: random.Random) -> GameConfig:
        if seed % 3 == 0:
            return GameConfig(RuleSet.AURA, tuple(f"p{i}" for i in range(rnd.randint(4, 7))))
        n = rnd.randint(8, 16)
        return GameConfig(RuleSet.TABULA, tuple(f"p{i}" for i in range(n)), deck=random_deck(n, rnd))

    assert views_private(config, range(120)) > 200
