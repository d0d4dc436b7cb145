"""Seeded random playouts for every player count: every game ends within a bound, every state
is consistent and round-trips through JSON, scores add up, bad moves change nothing, and no
event or view tells a player a character he may not know."""

from __future__ import annotations

import random
from collections import Counter
from typing import cast

import pytest

from engine import IllegalAction, Team, apply, from_json, to_json, view
from engine.lupusburg.houses import all_houses, houses_of, owner
from engine.lupusburg.setup import COINS
from engine.lupusburg.state import LupusburgState
from engine.lupusburg.voting import ballot_votes, tokens_left
from engine.notation import parse_move
from engine.types import Phase, Role
from engine.viewing import LupusburgPlayerView

from .lupusburg_helpers import check_secrecy, random_game

GAMES_PER_COUNT = 50


def check_state(s: LupusburgState) -> None:
    houses = set(all_houses(s.players))
    assert s.alive | set(s.dead) == houses and not s.alive & set(s.dead) and len(set(s.dead)) == len(s.dead)
    assert set(s.lynched) <= set(s.dead)
    held = [c for _, cs in s.draws.values() for c in cs] + [c for _, c in s.bets.values()]
    assert Counter(s.bag) + Counter(held) == Counter(COINS), "coins neither made nor lost"
    assert not set(s.draws) & set(s.bets)
    assert all(t in s.players and t != p for p, (t, _) in s.bets.items())
    assert all(tokens_left(s, p) >= 0 for p in s.players)
    if s.phase is Phase.BALLOT:
        assert len(s.suspects) == 2 and set(s.suspects) <= s.alive
        assert all(len(v) <= ballot_votes(s, p) for p, v in s.ballots.items())
    assert (s.phase is Phase.OVER) == (s.outcome is not None)
    raw = to_json(s)
    back = from_json(raw)
    assert back == s and to_json(back) == raw


def check_scores(s: LupusburgState) -> None:
    out = s.outcome
    assert out is not None and out.scores is not None and set(out.scores) == set(s.players)
    wolf = next(p for p in s.players if s.role_of(p) is Role.WEREWOLF)
    mine = len(s.living_of(wolf))
    if out.team is Team.WEREWOLF:
        assert out.winners == (wolf,) and mine >= len(s.alive) - mine
        assert out.scores == {p: (len(s.players) if p == wolf else 0) for p in s.players}
        return
    assert mine == 0 and out.team is Team.TOWNSFOLK
    for p in s.players:
        if p == wolf:
            expected = 0
        else:
            seal = 1 if p not in s.bets else (s.bets[p][1] if s.bets[p][0] == wolf else 0)
            expected = 2 * len(s.living_of(p)) + (1 if s.chest_house(p) in s.alive else 0) + seal
        assert out.scores[p] == expected, p
    best = max(v for p, v in out.scores.items() if p != wolf)
    (winner,) = out.winners
    assert winner != wolf and out.scores[winner] == best


BAD_MOVES = [
    "kill nobody:left",
    "peek zed",
    "vote",
    "vote ann:middle",
    "vote ann:3",
    "privilege x:y:z",
    "show up",
    "bet ann:left",
    "coin 99",
    "coin many",
    "see ann",
    "protect bob",
]


def try_bad_move(rnd: random.Random, s: LupusburgState) -> None:
    actor = rnd.choice(s.players)
    move = rnd.choice(BAD_MOVES)
    before = to_json(s)
    try:
        action = parse_move(actor, move)
        apply(s, action)
    except IllegalAction as e:
        assert e.key and e.reason
    else:
        raise AssertionError(f"{actor}: {move} was accepted")
    assert to_json(s) == before


@pytest.mark.parametrize("n", range(4, 9))
def test_random_playouts(n: int) -> None:
    rnd = random.Random(n)
    endings: Counter[Team] = Counter()
    for seed in range(GAMES_PER_COUNT):
        final = None
        for before, events, after in random_game(n, seed):
            check_secrecy(before, events)
            check_state(after)
            if rnd.random() < 0.05 and after.phase is not Phase.OVER:
                try_bad_move(rnd, after)
            final = after
        assert final is not None
        # Each day lynches a character: the game is over after at most 2n nights and days.
        assert final.phase_no <= 6 * n + 1
        check_scores(final)
        assert final.outcome is not None
        endings[final.outcome.team] += 1
    assert set(endings) == {Team.WEREWOLF, Team.TOWNSFOLK}, "both endings happen"


def twin(s: LupusburgState, viewer: str, x: str, y: str) -> LupusburgState:
    """The same game as the viewer sees it, with the others' secrets changed: x's and y's characters
    and chests swapped, others' night choices, bets, coins drawn and knowledge altered."""
    cards = dict(s.cards)
    for hx, hy in zip(houses_of(x), houses_of(y), strict=True):
        cards[hx], cards[hy] = s.cards[hy], s.cards[hx]
    chests = {**s.chests, x: s.chests[y], y: s.chests[x]}
    mine = {Role.WEREWOLF: "werewolf", Role.THIEF: "thief"}.get(s.role_of(viewer))
    choices = {k: (v[0], s.living()[0]) for k, v in s.choices.items() if k != mine}
    choices.update({k: v for k, v in s.choices.items() if k == mine})
    bets = {p: (b if p == viewer else (viewer, 2)) for p, b in s.bets.items()}
    draws = {p: (d if p == viewer else (viewer, tuple(sorted(d[1])))) for p, d in s.draws.items()}
    knowledge = {p: (f if p == viewer else ()) for p, f in s.knowledge.items()}
    return s.evolve(cards=cards, chests=chests, choices=choices, bets=bets, draws=draws, knowledge=knowledge)


def mentions(facts: object, player: str) -> bool:
    return f"{player}:" in repr(facts) or repr(facts).count(f"'{player}'") > 0


@pytest.mark.parametrize("n", [4, 6, 8])
def test_views_do_not_depend_on_secrets_a_player_was_not_told(n: int) -> None:
    checked = 0
    for seed in range(15):
        for _, _, s in random_game(n, seed):
            if s.phase is Phase.OVER:
                break
            for viewer in s.players:
                known = s.knowledge.get(viewer, ())
                others = [p for p in s.players if p != viewer and not mentions(known, p)]
                if len(others) < 2:
                    continue
                # Swap the Werewolf's or the Thief's player with a Townsfolk when the viewer may not know.
                special = [p for p in others if s.role_of(p) is not Role.TOWNSFOLK]
                x = special[0] if special else others[0]
                y = next(p for p in others if p != x)
                t = twin(s, viewer, x, y)
                assert view(t, viewer) == view(s, viewer), (viewer, x, y)
                checked += 1
    assert checked > 100


def test_view_shows_own_characters_only() -> None:
    for _, _, s in random_game(6, 3):
        if s.phase is Phase.OVER:
            break
        for p in s.players:
            v = cast(LupusburgPlayerView, view(s, p))
            assert {side: h["card"] for side, h in v["houses"].items()} == {
                "left": s.cards[f"{p}:left"].value,
                "right": s.cards[f"{p}:right"].value,
            }
            text = repr(v["public"])
            assert "werewolf" not in text and "thief" not in text and "townsfolk" not in text
            for fact in v["knowledge"]:
                if "house" in fact and "card" in fact:
                    assert fact["key"] in ("thief.result", "privilege.seen", "privilege.shown")
                    assert owner(fact["house"]) != p
