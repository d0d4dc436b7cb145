"""Seeded random games with every character of ``tabula`` in the deck (and the themes that hold
most of them): no event addressed to a team (a channel, or several players) reaches a dead
player, other than what the rulebooks give Ghosts (``invariants.check_team_audience``, checked
at every step with the other invariants).

The robots are steered towards the moments that matter here: the Mythomaniac points at a
Werewolf more often than chance would, and Lara turns on the pack more often, so that many
games have a Mythomaniac joining a pack one of whose Werewolves is dead."""

from __future__ import annotations

import random
from collections import Counter

import pytest

import engine
from engine import Action, GameConfig, IllegalAction, Phase, Role, RuleSet, Verb
from engine.playout import random_moves
from engine.tabula.character import CHARACTERS, is_wolf
from engine.tabula.state import TabulaState
from tests.engine.invariants import Checker

#: Every card of ``tabula`` but the Werewolves and the Villagers, the Freemasons as their pair.
SPECIALS = (
    sorted(r.value for r in CHARACTERS if r not in (Role.WEREWOLF, Role.LARA, Role.VILLAGER, Role.FREEMASON))
    + ["freemason"] * 2
)
WOLVES = ["werewolf", "werewolf", "lara"]
THEMES = ("mythomania", "different_factions_different_afterlives")


def every_character(n: int) -> tuple[str, ...]:
    return tuple(WOLVES + SPECIALS + ["villager"] * (n - len(WOLVES) - len(SPECIALS)))


def steer(state: TabulaState, moves: list[Action], rnd: random.Random) -> list[Action]:
    """The random moves, with the Mythomaniac's choice bent towards a Werewolf or a seer, and
    Lara's towards another Werewolf."""
    out = []
    for a in moves:
        draw = rnd.random()
        if a.verb is Verb.MIMIC and draw < 0.8:
            wanted = is_wolf if draw < 0.5 else (lambda s, p: s.roles[p] in (Role.SEER, Role.FORTUNE_TELLER))
        elif a.verb is Verb.KILL and state.roles[a.actor] is Role.LARA and draw < 0.4:
            wanted = is_wolf
        else:
            out.append(a)
            continue
        bent = [
            b
            for b in engine.legal_actions(state, a.actor)
            if b.verb is a.verb and b.target is not None and wanted(state, b.target)
        ]
        out.append(rnd.choice(bent) if bent else a)
    return out


def play(config: GameConfig, seed: int, seen: Counter[str]) -> None:
    checker = Checker(config, seed)
    rnd = random.Random(seed)
    start, events = engine.new_game(config, seed)
    state: TabulaState = start  # type: ignore[assignment]
    checker.step(None, state, events)
    while state.phase is not Phase.OVER:
        for action in steer(state, random_moves(state, rnd), rnd):
            try:
                after, events = engine.apply(state, action)
            except IllegalAction:
                continue
            checker.step(action, after, events)
            state = after  # type: ignore[assignment]
        before = state
        closed, events = engine.close_phase(state, state.phase_no)
        state = closed  # type: ignore[assignment]
        checker.step(None, state, events)
        for e in events:  # what the games covered, so that the test cannot pass on nothing
            if e.key == "mythomaniac.joined_pack":
                seen["joined the pack"] += 1
                if any(is_wolf(before, p) for p in before.players if p not in state.alive):
                    seen["joined a pack with a dead Werewolf"] += 1
            elif e.key == "mythomaniac.joined_seer":
                seen["joined the Seer"] += 1


@pytest.mark.parametrize("chunk", range(3))
def test_no_team_event_reaches_a_dead_player(chunk: int) -> None:
    seen: Counter[str] = Counter()
    for seed in range(chunk * 80, chunk * 80 + 80):
        rnd = random.Random(seed)
        if seed % 3:
            n = rnd.randint(len(WOLVES) + len(SPECIALS), 30)
            options = {"deadly_owl": rnd.random() < 0.5}
            config = GameConfig(
                RuleSet.TABULA, tuple(f"p{i:02d}" for i in range(n)), deck=every_character(n), options=options
            )
        else:
            n = rnd.randint(16, 28)
            config = GameConfig(RuleSet.TABULA, tuple(f"p{i:02d}" for i in range(n)), theme=rnd.choice(THEMES))
        play(config, seed, seen)
    assert seen["joined a pack with a dead Werewolf"] >= 3, seen
    assert seen["joined the Seer"] >= 3, seen
