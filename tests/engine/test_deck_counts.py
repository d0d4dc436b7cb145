"""Decks fit the player count: the base game's Werewolves ("with 8 players ... 2 Werewolves; ...
with 16 or more players, add the third Werewolf"), Lara counting as one of them, and each
theme's own count, as its text in Lady Werewolf's Revenge prints it, at every size it allows."""

from __future__ import annotations

import dataclasses

import pytest

import engine
from engine import GameConfig, InvalidSetup, RuleSet
from engine.tabula import deck

#: Each theme's Werewolves (Lara among them) by player count, read off its text again here
#: (not from ``themes.py``): (first count, last count, Werewolves).
BY_TEXT: dict[str, list[tuple[int, int, int]]] = {
    # "Lara, 1 Werewolf (from LIT)"
    "the_few_and_the_special": [(7, 8, 2)],
    # "1 Werewolf (from this expansion), 1 Werewolf (from LIT)"
    "the_night_shift": [(8, 13, 2)],
    # "Lara, 1 Werewolf (from LIT) [with 8-15 players] or 2 Werewolves (from LIT) [with 16+]"
    "the_evil_and_the_cure": [(9, 15, 2), (16, 23, 3)],
    # "1 Werewolf (from this expansion), 1 Werewolf (from LIT) [with 8-15] or 2 (from LIT) [with 16]"
    "the_lovers_of_mystery": [(12, 15, 2), (16, 16, 3)],
    # "1 Werewolf (from this expansion), 1 Werewolf (from LIT) [with 8-15] or 2 (from LIT) [with 16+]"
    "nights_of_blood": [(12, 15, 2), (16, 23, 3)],
    # "Lara, 1 Werewolf (from LIT) [with 9-24] or 2 (from LIT) [with 25+], 1 Werewolf (from this
    # expansion) [with 16+]"
    "different_factions_different_afterlives": [(9, 15, 2), (16, 24, 3), (25, 28, 4)],
    # "Lara, 1 Werewolf (from this expansion), 1 Werewolf (from LIT) [with 16-24] or 2 (from LIT) [with 25+]"
    "mythomania": [(16, 24, 3), (25, 30, 4)],
}


def names(n: int) -> tuple[str, ...]:
    return tuple(f"p{i:02d}" for i in range(n))


def wolves_in(cards: dict[str, int]) -> int:
    return cards.get("werewolf", 0) + cards.get("lara", 0)


@pytest.mark.parametrize("key", sorted(BY_TEXT))
def test_each_theme_deals_the_werewolves_its_text_counts_at_every_size(key: str) -> None:
    t = deck.THEMES[key]
    sizes = [n for lo, hi, _ in BY_TEXT[key] for n in range(lo, hi + 1)]
    assert sizes == list(range(t.lo, t.hi + 1))  # the table covers the theme's whole range
    for lo, hi, want in BY_TEXT[key]:
        for n in range(lo, hi + 1):
            assert t.wolves(n) == want, (key, n)
            for seed in (1, 2, 3):
                assert wolves_in(engine.dealt_deck(RuleSet.TABULA, n, theme=key, seed=seed)["deck"]) == want


def test_a_theme_whose_cards_disagree_with_its_text_is_refused_not_dealt(monkeypatch: pytest.MonkeyPatch) -> None:
    t = deck.THEMES["nights_of_blood"]
    monkeypatch.setitem(deck.THEMES, "nights_of_blood", dataclasses.replace(t, wolves=lambda n: 3))
    with pytest.raises(InvalidSetup) as e:
        engine.new_game(GameConfig(RuleSet.TABULA, names(12), theme="nights_of_blood"), 1)
    assert e.value.key == "setup.theme_wolves" and e.value.params == {
        "theme": "nights_of_blood",
        "count": 3,
        "players": 12,
        "have": 2,
    }


@pytest.mark.parametrize("n", range(8, 31))
def test_the_base_game_takes_two_werewolves_then_three_from_sixteen(n: int) -> None:
    want = 2 if n < 16 else 3
    assert wolves_in(engine.dealt_deck(RuleSet.TABULA, n)["deck"]) == want
    for have in (0, 1, want - 1, want + 1, 4):
        if have == want:
            continue
        cards = ["werewolf"] * have + ["seer"] + ["villager"] * (n - have - 1)
        with pytest.raises(InvalidSetup) as e:
            engine.new_game(GameConfig(RuleSet.TABULA, names(n), deck=tuple(cards)), 1)
        assert e.value.key == "setup.wolves"
        assert e.value.params == {"count": want, "players": n, "have": have}
        assert f"with {n} players the deck takes {want} Werewolves" in e.value.reason


@pytest.mark.parametrize("n", [8, 15, 16, 24])
def test_lara_is_one_of_the_werewolves(n: int) -> None:
    want = 2 if n < 16 else 3
    fits = ["lara"] + ["werewolf"] * (want - 1) + ["seer"]
    engine.new_game(GameConfig(RuleSet.TABULA, names(n), deck=tuple(fits + ["villager"] * (n - len(fits)))), 1)
    extra = ["lara"] + ["werewolf"] * want + ["seer"]
    with pytest.raises(InvalidSetup) as e:
        engine.new_game(GameConfig(RuleSet.TABULA, names(n), deck=tuple(extra + ["villager"] * (n - len(extra)))), 1)
    assert e.value.params["have"] == want + 1
    # Not Werewolves for the count: the Werecow, the Mythomaniac, Dorian Wolf.
    others = ["werewolf"] * want + ["seer", "werecow", "mythomaniac", "dorian_wolf"]
    engine.new_game(GameConfig(RuleSet.TABULA, names(n), deck=tuple(others + ["villager"] * (n - len(others)))), 1)


def test_a_hosts_characters_are_completed_with_the_werewolves_the_count_takes() -> None:
    assert engine.complete_deck(["seer", "medium"], 9) == ["werewolf", "werewolf", "seer", "medium"] + ["villager"] * 5
    assert engine.complete_deck(["lara", "seer"], 16).count("werewolf") == 2
    assert engine.complete_deck(["werewolf", "seer"], 8).count("werewolf") == 2  # named ones count among them
    # The Seer belongs to the base deck ("5 Villagers, 2 Werewolves and 1 Seer"): naming other
    # characters adds them to it, it does not take him out.
    assert (
        engine.complete_deck(["medium", "bodyguard"], 9)
        == ["werewolf", "werewolf", "seer", "medium", "bodyguard"] + ["villager"] * 4
    )
    assert engine.complete_deck(["seer", "medium"], 9).count("seer") == 1
    too_many = engine.complete_deck(["werewolf", "werewolf", "werewolf", "seer"], 15)
    assert too_many.count("werewolf") == 3 and len(too_many) == 15  # kept, for new_game to refuse
    with pytest.raises(InvalidSetup) as e:
        engine.new_game(GameConfig(RuleSet.TABULA, names(15), deck=tuple(too_many)), 1)
    assert e.value.params == {"count": 2, "players": 15, "have": 3}


def test_the_aura_variant_and_lupusburg_keep_their_fixed_decks() -> None:
    assert engine.dealt_deck(RuleSet.AURA, 7)["deck"] == {
        "darius": 1,
        "dr_jekyll": 1,
        "fortune_teller": 1,
        "hamlet": 1,
        "lara": 1,
        "miss_purple": 1,
        "werewolf": 1,
    }
    with pytest.raises(InvalidSetup) as e:
        engine.dealt_deck(RuleSet.AURA, 5, deck=["werewolf", "werewolf", "darius", "fortune_teller", "miss_purple"])
    assert e.value.key == "setup.aura_deck"
    with pytest.raises(InvalidSetup) as e:
        engine.dealt_deck(RuleSet.AURA, 6, theme="the_night_shift")
    assert e.value.key == "setup.aura_theme"
    assert engine.dealt_deck(RuleSet.LUPUSBURG, 6)["deck"] == {"thief": 1, "townsfolk": 10, "werewolf": 1}
    with pytest.raises(InvalidSetup) as e:
        engine.dealt_deck(RuleSet.LUPUSBURG, 6, deck=["werewolf", "werewolf"] + ["townsfolk"] * 10)
    assert e.value.key == "setup.fixed_deck"
    assert engine.player_range(RuleSet.AURA) == (4, 7) and engine.player_range(RuleSet.LUPUSBURG) == (4, 8)
    assert engine.player_range(RuleSet.TABULA) == (8, 30)
    assert engine.player_range(RuleSet.TABULA, "the_few_and_the_special") == (7, 8)
