"""The day before the votes: the Burgomaster's privilege and the bets."""

from __future__ import annotations

from collections import Counter

import pytest

from engine import IllegalAction, legal_actions, view
from engine.lupusburg.setup import COINS
from engine.lupusburg.state import LupusburgState

from .lupusburg_helpers import find, four, keys, lynch, play


def day1(**options: object) -> LupusburgState:
    s, _ = play(four(**options), "end")
    return s


def coins_conserved(s: LupusburgState) -> bool:
    held = [c for _, cs in s.draws.values() for c in cs] + [c for _, c in s.bets.values()]
    return Counter(s.bag) + Counter(held) == Counter(COINS)


# -- the privilege ----------------------------------------------------------------------------------
def test_privilege_sees_then_shows_one_of_his_own() -> None:
    s, events = play(day1(), "ann: privilege cat:left")
    used, seen, must = events
    assert used.key == "privilege.used" and used.public
    assert dict(used.data) == {"burgomaster": "ann", "house": "cat:left", "player": "cat"}
    assert seen.key == "privilege.seen" and seen.to == ("ann",)
    assert dict(seen.data) == {"house": "cat:left", "card": "townsfolk", "player": "cat"}
    # He is told at once that he must now show one of his own, not left to find it among his choices.
    assert must.key == "privilege.must_show" and must.to == ("ann",) and dict(must.data) == {"player": "cat"}
    assert "privilege.must_show" not in [f["key"] for f in view(s, "ann")["knowledge"]], "not a fact to repeat"
    shows = [a.text() for a in legal_actions(s, "ann") if a.verb.value == "show"]
    assert shows == ["show left", "show right"]
    s, events = play(s, "ann: show right")
    shown, showed, answered = events
    assert shown.key == "privilege.shown" and shown.to == ("cat",)
    assert dict(shown.data) == {
        "burgomaster": "ann",
        "house": "ann:right",
        "card": "townsfolk",
        "seen": "cat:left",
        "random": False,
    }
    # The Burgomaster is told what he showed (his own card), as a fact his ``role`` repeats.
    assert showed.key == "privilege.showed" and showed.to == ("ann",)
    assert dict(showed.data) == {"player": "cat", "side": "right", "card": "townsfolk", "random": False}
    assert answered.public and dict(answered.data) == {"burgomaster": "ann", "player": "cat"}
    assert view(s, "cat")["knowledge"][-1]["house"] == "ann:right"
    assert view(s, "ann")["knowledge"][-1]["key"] == "privilege.showed"


def test_werewolf_burgomaster_may_show_his_werewolf_card() -> None:
    _, events = play(day1(), "ann: privilege dan:left", "ann: show 1")
    assert find(events, "privilege.shown")[0].data["card"] == "werewolf"


def test_show_accepts_own_house_but_not_another() -> None:
    s, _ = play(day1(), "ann: privilege dan:left", "ann: show ann:right")
    assert s.privilege == ("dan:left", "right")
    with pytest.raises(IllegalAction) as err:
        play(day1(), "ann: privilege dan:left", "ann: show dan:right")
    assert err.value.key == "show.not_yours"
    with pytest.raises(IllegalAction) as err:
        play(day1(), "ann: privilege dan:left", "ann: show middle")
    assert err.value.key == "show.bad_side"


def test_privilege_rules() -> None:
    s = day1()
    cases = [
        ("bob: privilege cat:left", "privilege.not_burgomaster"),
        ("ann: privilege ann:right", "target.own"),
        ("ann: privilege cat", "target.not_house"),
        ("ann: show left", "show.no_privilege"),
    ]
    for move, key in cases:
        with pytest.raises(IllegalAction) as err:
            play(s, move)
        assert err.value.key == key
    s2, _ = play(s, "ann: privilege cat:left")
    for move, key in [("ann: privilege dan:left", "privilege.used"), ("bob: show left", "privilege.not_burgomaster")]:
        with pytest.raises(IllegalAction) as err:
            play(s2, move)
        assert err.value.key == key
    s3, _ = play(s2, "ann: show left")
    with pytest.raises(IllegalAction) as err:
        play(s3, "ann: show right")
    assert err.value.key == "show.already"


def test_privilege_on_a_dead_character_refused() -> None:
    s, _ = play(four(), "ann: kill cat:left", "end")
    with pytest.raises(IllegalAction) as err:
        play(s, "ann: privilege cat:left")
    assert err.value.key == "target.dead"


def test_unanswered_privilege_shown_at_random_when_nominations_close() -> None:
    sides = set()
    for seed in range(12):
        s, _ = play(four(seed=seed), "end", "ann: privilege cat:left")
        s, events = play(s, "end")
        (shown,) = find(events, "privilege.shown")
        assert shown.to == ("cat",) and shown.data["random"]
        (showed,) = find(events, "privilege.showed")
        assert showed.to == ("ann",) and showed.data["random"], "he is told the bot chose for him"
        assert f"ann:{showed.data['side']}" == shown.data["house"]
        sides.add(shown.data["house"])
    assert sides == {"ann:left", "ann:right"}


def test_privilege_once_a_day_and_passes_with_the_burgomaster() -> None:
    s, _ = play(day1(), "ann: privilege cat:left", "ann: show left")
    s, events = lynch(s, "dan:left")
    assert find(events, "burgomaster.passed")[0].data == {"burgomaster": "bob", "from": "ann"}
    s, _ = play(s, "end")
    assert s.burgomaster == "bob" and s.privilege is None
    s, _ = play(s, "bob: privilege cat:right")
    with pytest.raises(IllegalAction):
        play(s, "ann: privilege cat:right")


# -- bets -------------------------------------------------------------------------------------------
def test_bet_draws_three_keeps_one_returns_the_rest() -> None:
    s, events = play(day1(), "cat: bet ann")
    (drawn,) = events
    assert drawn.key == "bet.drawn" and drawn.to == ("cat",)
    coins = drawn.data["coins"]
    assert len(coins) == 3 and len(s.bag) == 5 and coins_conserved(s)
    s, events = play(s, f"cat: coin {coins[1]}")
    placed, sealed = events
    assert placed.to == ("cat",) and dict(placed.data) == {"target": "ann", "coin": coins[1], "random": False}
    assert sealed.public and dict(sealed.data) == {"player": "cat"}, "who bet on whom stays secret"
    assert s.bets == {"cat": ("ann", coins[1])} and len(s.bag) == 7 and coins_conserved(s)


def test_coin_must_be_one_drawn() -> None:
    s, events = play(day1(), "cat: bet ann")
    drawn = events[0].data["coins"]
    missing = next(c for c in (8, 7, 6, 5, 4, 3, 2) if c not in drawn)
    with pytest.raises(IllegalAction) as err:
        play(s, f"cat: coin {missing}")
    assert err.value.key == "coin.not_drawn"
    with pytest.raises(IllegalAction) as err:
        play(s, "cat: coin seven")
    assert err.value.key == "coin.not_number"
    with pytest.raises(IllegalAction) as err:
        play(s, "cat: bet bob")
    assert err.value.key == "bet.choose_coin"


def test_bet_once_per_game() -> None:
    s, events = play(day1(), "cat: bet ann")
    s, _ = play(s, f"cat: coin {events[0].data['coins'][0]}")
    for move, key in [("cat: bet bob", "bet.already"), ("cat: coin 2", "bet.already")]:
        with pytest.raises(IllegalAction) as err:
            play(s, move)
        assert err.value.key == key
    s, _ = lynch(s, "dan:left")
    s, _ = play(s, "end")
    assert not [a for a in legal_actions(s, "cat") if a.verb.value in ("bet", "coin")]


def test_bet_target_is_another_player() -> None:
    s = day1()
    for move, key in [
        ("cat: bet cat", "bet.self"),
        ("cat: bet ann:left", "bet.not_player"),
        ("cat: bet zed", "target.unknown"),
        ("cat: coin 8", "coin.no_draw"),
    ]:
        with pytest.raises(IllegalAction) as err:
            play(s, move)
        assert err.value.key == key


def test_player_without_living_characters_may_bet() -> None:
    s, _ = play(four(), "ann: kill dan:left", "end")
    s, _ = lynch(s, "dan:right")
    s, _ = play(s, "end", "dan: bet ann")
    assert "dan" in s.draws


def test_unchosen_coin_kept_at_random_at_close() -> None:
    s, events = play(day1(), "cat: bet ann")
    drawn = events[0].data["coins"]
    s, events = play(s, "end")
    (placed,) = find(events, "bet.placed")
    assert placed.to == ("cat",) and placed.data["coin"] in drawn and placed.data["random"]
    assert s.bets["cat"] == ("ann", placed.data["coin"]) and not s.draws and coins_conserved(s)


def test_fewer_than_three_left_draws_all_and_bag_waits_for_choices() -> None:
    s = day1()
    s, _ = play(s, "bob: bet ann", "cat: bet ann")
    assert len(s.bag) == 2
    s, events = play(s, "dan: bet ann")
    assert len(events[0].data["coins"]) == 2 and s.bag == ()
    with pytest.raises(IllegalAction) as err:
        play(s, "ann: bet bob")
    assert err.value.key == "bet.bag_empty"
    s, _ = play(s, f"dan: coin {s.draws['dan'][1][0]}")
    s, events = play(s, "ann: bet bob")
    assert len(events[0].data["coins"]) == 1 and coins_conserved(s)


def test_bets_only_during_nominations() -> None:
    s, _ = play(day1(), "end")  # the ballot
    for move in ("cat: bet ann", "ann: privilege cat:left"):
        with pytest.raises(IllegalAction) as err:
            play(s, move)
        assert err.value.key == "day.only"


def test_draw_depends_on_the_seed_only() -> None:
    a, ea = play(day1(), "cat: bet ann")
    b, eb = play(day1(), "cat: bet ann")
    assert ea == eb and a == b
    assert keys(ea) == ["bet.drawn"]


def test_burgomaster_without_living_characters_may_use_privilege_and_show_a_dead_one() -> None:
    s, _ = play(four(burgomaster="bob"), "ann: kill cat:left", "end")
    s, _ = lynch(s, "cat:right")  # cat's last character; the Burgomaster passes to cat all the same
    s, _ = play(s, "end")
    assert s.burgomaster == "cat" and not s.living_of("cat")
    s, events = play(s, "cat: privilege bob:left", "cat: show right")
    assert find(events, "privilege.seen")[0].data == {"house": "bob:left", "card": "thief", "player": "bob"}
    assert find(events, "privilege.shown")[0].data["house"] == "cat:right"
