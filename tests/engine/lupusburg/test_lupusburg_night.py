"""The night: the Thief's look, the Werewolf's Claw, their order, and the dawn's news."""

from __future__ import annotations

import pytest

from engine import IllegalAction, Phase, close_phase, legal_actions

from .lupusburg_helpers import find, four, keys, lynch, play


def test_thief_learns_character_and_chest_at_close_only() -> None:
    s, events = play(four(), "bob: peek cat:left")
    assert keys(events) == ["night.choice"] and events[0].to == ("bob",)
    s, events = play(s, "end")
    (result,) = find(events, "thief.result")
    assert result.to == ("bob",)
    assert dict(result.data) == {"house": "cat:left", "card": "townsfolk", "chest": True, "night": 1}
    assert s.knowledge["bob"][-1]["key"] == "thief.result"


def test_thief_sees_the_card_and_no_chest_under_the_werewolf() -> None:
    _, events = play(four(), "bob: peek ann:left", "end")
    assert dict(find(events, "thief.result")[0].data)["card"] == "werewolf"
    assert find(events, "thief.result")[0].data["chest"] is False


def test_thief_sees_a_townsfolk_card_under_the_werewolfs_other_house() -> None:
    """A look shows the card: the Werewolf's second character acts as the Werewolf but is a
    Townsfolk card (docs/RULINGS-lupusburg.md, What a look shows)."""
    _, events = play(four(), "bob: peek ann:right", "end")
    assert dict(find(events, "thief.result")[0].data) == {
        "house": "ann:right",
        "card": "townsfolk",
        "chest": True,
        "night": 1,
    }


def test_thief_last_choice_counts() -> None:
    s, events = play(four(), "bob: peek cat:left", "bob: peek dan:right")
    assert events[-1].data["changed"] is True
    _, events = play(s, "end")
    assert find(events, "thief.result")[0].data["house"] == "dan:right"


def test_thief_looks_before_the_claw() -> None:
    """The Thief looks first: he learns what was under the house the Werewolf strikes that night."""
    _, events = play(four(), "bob: peek cat:left", "ann: kill cat:left", "end")
    # He is told after the dawn (the close's texts open with it), but what he saw is the card.
    assert keys(events).index("night.dawn") < keys(events).index("thief.result")
    assert find(events, "thief.result")[0].data["house"] == "cat:left"
    assert find(events, "thief.result")[0].data["card"] == "townsfolk"
    assert find(events, "night.dawn")[0].data["dead"] == ["cat:left"]


def test_thief_killed_that_night_still_looked() -> None:
    s, _ = play(four(), "ann: kill bob:right", "end")
    s, _ = lynch(s, "dan:left")
    s, events = play(s, "bob: peek cat:left", "ann: kill bob:left", "end")
    assert find(events, "thief.result"), "he had a living character when he looked"


def test_thief_with_his_thief_card_dead_still_sneaks_out() -> None:
    """Both of his characters act as the Thief: with the Thief card gone he looks on."""
    s, _ = play(four(), "ann: kill bob:left", "end")  # bob: [thief, townsfolk]
    s, _ = lynch(s, "dan:left")
    assert s.living_of("bob") == ("bob:right",) and s.phase is Phase.NIGHT
    assert "peek cat:left" in [a.text() for a in legal_actions(s, "bob")]
    _, events = play(s, "bob: peek cat:left", "end")
    (result,) = find(events, "thief.result")
    assert result.to == ("bob",) and dict(result.data)["house"] == "cat:left"


def test_thief_cannot_peek_own_house_or_empty_house() -> None:
    s = four()
    with pytest.raises(IllegalAction) as err:
        play(s, "bob: peek bob:right")
    assert err.value.key == "target.own"
    s, _ = play(s, "ann: kill cat:left", "end")
    s, _ = lynch(s, "dan:left")
    with pytest.raises(IllegalAction) as err:
        play(s, "bob: peek cat:left")
    assert err.value.key == "target.dead"


def test_thief_without_living_characters_does_not_open_his_eyes() -> None:
    s = four()
    s, _ = play(s, "ann: kill bob:left", "end")
    s, _ = lynch(s, "bob:right")
    assert s.phase is Phase.NIGHT
    assert legal_actions(s, "bob") == []
    with pytest.raises(IllegalAction) as err:
        play(s, "bob: peek cat:right")
    assert err.value.key == "actor.dead"


def test_only_the_thief_peeks_and_only_the_werewolf_kills() -> None:
    for move, key in [
        ("cat: peek dan:left", "power.none"),
        ("cat: kill dan:left", "power.none"),
        ("bob: kill dan:left", "power.none"),
        ("ann: peek dan:left", "power.none"),
    ]:
        with pytest.raises(IllegalAction) as err:
            play(four(), move)
        assert err.value.key == key


def test_claw_kills_and_dawn_names_player_and_house_not_character() -> None:
    s, events = play(four(), "ann: kill dan:right", "end")
    (dawn,) = find(events, "night.dawn")
    assert dawn.public and dict(dawn.data) == {"night": 1, "dead": ["dan:right"], "players": ["dan"]}
    assert "dan:right" not in s.alive and s.dead == ("dan:right",)
    assert s.phase is Phase.NOMINATIONS and s.day == 1


def test_no_claw_no_death() -> None:
    s, events = play(four(), "end")
    assert find(events, "night.dawn")[0].data["dead"] == [] and len(s.alive) == 8


def test_werewolf_last_choice_counts() -> None:
    s, events = play(four(), "ann: kill cat:left", "ann: kill dan:right")
    assert events[-1].to == ("ann",) and events[-1].data["changed"] is True
    s, events = play(s, "end")
    assert find(events, "night.dawn")[0].data["dead"] == ["dan:right"] and "cat:left" in s.alive


def test_werewolf_may_strike_his_own_house_only_while_both_live() -> None:
    s, _ = play(four(), "ann: kill ann:right", "end")
    assert s.living_of("ann") == ("ann:left",)
    s, _ = lynch(s, "cat:left")
    assert s.phase is Phase.NIGHT and "ann:left" in s.alive
    assert "kill ann:left" not in [a.text() for a in legal_actions(s, "ann")]
    with pytest.raises(IllegalAction) as err:
        play(s, "ann: kill ann:left")
    assert err.value.key == "target.own_last"


def test_werewolf_with_townsfolk_card_still_hunts() -> None:
    """Both of his characters act as the Werewolf: with the Werewolf card dead he hunts on."""
    s, _ = play(four(), "ann: kill ann:left", "end")
    s, _ = lynch(s, "dan:left")
    assert s.living_of("ann") == ("ann:right",) and s.phase is Phase.NIGHT
    s, events = play(s, "ann: kill cat:right", "end")
    assert find(events, "night.dawn")[0].data["dead"] == ["cat:right"]


def test_night_targets_must_be_houses() -> None:
    with pytest.raises(IllegalAction) as err:
        play(four(), "ann: kill cat")
    assert err.value.key == "target.not_house" and "cat:left" in err.value.reason
    with pytest.raises(IllegalAction) as err:
        play(four(), "ann: kill zed:left")
    assert err.value.key == "target.unknown"
    with pytest.raises(IllegalAction) as err:
        play(four(), "ann: kill cat:middle")
    assert err.value.key == "target.unknown"


def test_houses_may_be_typed_by_number_and_any_case() -> None:
    s, _ = play(four(), "ann: kill CAT:2")
    assert s.choices["werewolf"][1] == "cat:right"


def test_night_does_not_close_early_and_stale_close_is_ignored() -> None:
    s, _ = play(four(), "ann: kill cat:left", "bob: peek dan:left")
    assert s.phase is Phase.NIGHT
    same, events = close_phase(s, s.phase_no + 1)
    assert same is s and events == []


def test_day_moves_refused_at_night() -> None:
    for move in ("ann: vote cat:left", "ann: privilege cat:left", "cat: bet ann", "cat: coin 2"):
        with pytest.raises(IllegalAction) as err:
            play(four(), move)
        assert err.value.key in ("vote.not_now", "day.only")
