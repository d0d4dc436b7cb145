"""The end: the Werewolf alone at parity, or his last character gone and the score table."""

from __future__ import annotations

from typing import cast

import pytest

from engine import Event, IllegalAction, Phase, Team, outcome, public_view, summary
from engine.lupusburg import scoring
from engine.lupusburg.state import LupusburgState
from engine.viewing import LupusburgPublicView

from .lupusburg_helpers import find, four, game, lynch, play


def test_werewolf_wins_at_parity_after_a_night() -> None:
    s, _ = play(four(), "end")  # no claw the first night: 2 against 6
    s, _ = lynch(s, "cat:left")
    s, _ = play(s, "ann: kill cat:right", "end")
    s, _ = lynch(s, "dan:left")
    s, events = play(s, "ann: kill dan:right", "end")
    assert s.phase is Phase.OVER and len(s.living_of("ann")) == 2 and len(s.alive) == 4
    assert s.burgomaster == "cat", "a game that ends at night ends with that night's Burgomaster"
    out = outcome(s)
    assert out is not None and out.team is Team.WEREWOLF and out.winners == ("ann",)
    assert out.reason == "end.werewolf_parity"
    # A winning Werewolf scores the number of players.
    assert out.scores == {"ann": 4, "bob": 0, "cat": 0, "dan": 0}
    over = find(events, "game.over")[0]
    assert over.public and over.data["roles"]["ann"] == ["werewolf", "townsfolk"]
    assert keys_after(events, "night.dawn") == ["game.over"], "no day starts"


def keys_after(events: list[Event], key: str) -> list[str]:
    i = [e.key for e in events].index(key)
    return [e.key for e in events[i + 1 :]]


def test_one_against_one_is_parity() -> None:
    s, _ = play(four(), "ann: kill ann:right", "end")
    s, _ = lynch(s, "cat:left")
    s, _ = play(s, "ann: kill cat:right", "end")
    s, _ = lynch(s, "dan:left")
    s, _ = play(s, "ann: kill dan:right", "end")
    assert s.phase is Phase.NOMINATIONS and len(s.alive) == 3  # 1 against 2
    s, _ = lynch(s, "bob:left")
    assert s.phase is Phase.OVER and outcome(s).team is Team.WEREWOLF  # type: ignore[union-attr]


def test_lynching_the_last_werewolf_character_ends_before_the_pass() -> None:
    s, _ = play(four(), "ann: kill ann:right", "end")
    s, events = lynch(s, "ann:left")
    assert s.phase is Phase.OVER and s.burgomaster == "ann"
    assert not find(events, "burgomaster.passed")
    out = outcome(s)
    assert out is not None and out.team is Team.TOWNSFOLK and out.reason == "end.werewolf_dead"
    # Everyone else: 2 characters (4), chest saved (1), seal unused (1) = 6; ties from the Burgomaster.
    assert out.scores == {"ann": 0, "bob": 6, "cat": 6, "dan": 6}
    assert out.winners == ("bob",), "ann (the Burgomaster) cannot win: bob comes next"


def test_nothing_playable_after_the_end() -> None:
    s, _ = play(four(), "ann: kill ann:right", "end")
    s, _ = lynch(s, "ann:left")
    with pytest.raises(IllegalAction) as err:
        play(s, "bob: vote cat:left")
    assert err.value.key == "game.over"
    same, events = play(s, "end")
    assert same == s and events == []


def with_(s: LupusburgState, **changes: object) -> LupusburgState:
    return s.evolve(**changes)


def test_score_sources() -> None:
    """2 per living character, 1 for a chest whose house lives, the coin for a right bet, 0 for a
    wrong one, 1 for an unused seal; the losing Werewolf scores nothing."""
    s = four()  # chests: ann right, bob right, cat left, dan right
    alive = frozenset({"bob:left", "cat:right", "dan:left", "dan:right"})
    s = with_(s, alive=alive, bets={"bob": ("ann", 7), "cat": ("dan", 8), "ann": ("cat", 2)})
    table = scoring.details(s, Team.TOWNSFOLK)
    assert table["bob"] == {"characters": 2, "chest": 0, "seal": 7, "werewolf": 0, "total": 9}
    assert table["cat"] == {"characters": 2, "chest": 0, "seal": 0, "werewolf": 0, "total": 2}
    assert table["dan"] == {"characters": 4, "chest": 1, "seal": 1, "werewolf": 0, "total": 6}
    assert table["ann"]["total"] == 0
    out = scoring.check(s)
    assert out is not None and out.winners == ("bob",)
    assert out.scores == {"ann": 0, "bob": 9, "cat": 2, "dan": 6}


def test_player_without_living_characters_may_win() -> None:
    s = four(burgomaster="cat")
    s = with_(s, alive=frozenset({"bob:left", "cat:left", "cat:right"}), bets={"dan": ("ann", 8)})
    out = scoring.check(s)
    assert out is not None and out.winners == ("dan",)
    assert out.scores == {"ann": 0, "bob": 3, "cat": 6, "dan": 8}


def test_score_tie_counts_from_the_burgomaster_himself() -> None:
    s = with_(four(burgomaster="dan"), alive=frozenset({"bob:right", "cat:left", "dan:right"}))
    out = scoring.check(s)
    assert out is not None and out.scores == {"ann": 0, "bob": 4, "cat": 4, "dan": 4}
    assert out.winners == ("dan",)


def test_summary_and_public_view_reveal_everything_at_the_end() -> None:
    s, _ = play(four(), "ann: kill ann:right", "end", "cat: bet ann")
    s, _ = play(s, f"cat: coin {s.draws['cat'][1][0]}")
    s, _ = lynch(s, "ann:left")
    got = summary(s)
    assert got["status"] == "over" and got["winners"] == [outcome(s).winners[0]]  # type: ignore[union-attr]
    assert got["scores"]["cat"] == 4 + 1 + s.bets["cat"][1]
    assert got["roles"]["bob"] == ["thief", "townsfolk"]
    pv = cast(LupusburgPublicView, public_view(s))
    assert pv["bets"]["cat"] == {"target": "ann", "coin": s.bets["cat"][1]}
    assert pv["chests"] == {"ann": "right", "bob": "right", "cat": "left", "dan": "right"}
    assert pv["score_table"]["cat"]["total"] == got["scores"]["cat"]


def test_game_over_event_names_winner_and_all_scores() -> None:
    s = game(seed=4)
    wolf = next(p for p in s.players if s.role_of(p).value == "werewolf")
    first, second = s.living_of(wolf)
    s, _ = play(s, f"{wolf}: kill {second}", "end")
    s, events = lynch(s, first)
    (over,) = find(events, "game.over")
    assert over.data["team"] == "townsfolk" and set(over.data["scores"]) == set(s.players)
    assert over.data["scores"][wolf] == 0
