"""The expansion's rules that are best asked of the engine directly: the themes for every
player count of their ranges, the Aura variant's decks, the end with its lone winners."""

from __future__ import annotations

from collections import Counter
from typing import cast

import pytest

import engine
from engine import GameConfig, InvalidSetup, Role, RuleSet, Team
from engine.tabula import deck, end
from engine.tabula.aura_rules import FOUR_OF, SETS
from engine.tabula.character import CHARACTERS
from engine.tabula.state import TabulaState
from engine.viewing import TabulaPublicView
from tests.scenario import Game

R = Role
RANGES = {
    "the_few_and_the_special": (7, 8),
    "the_night_shift": (8, 13),
    "the_evil_and_the_cure": (9, 23),
    "the_lovers_of_mystery": (12, 16),
    "nights_of_blood": (12, 23),
    "different_factions_different_afterlives": (9, 28),
    "mythomania": (16, 30),
}


def players(n: int) -> tuple[str, ...]:
    return tuple(f"p{i:02d}" for i in range(n))


def tabula_game(config: GameConfig, seed: int) -> tuple[TabulaState, list[engine.Event]]:
    """``engine.new_game`` of a ``tabula`` or ``aura`` game, its state typed as what it is."""
    state, events = engine.new_game(config, seed)
    assert isinstance(state, TabulaState)
    return state, events


def test_the_seven_themes_are_registered_by_snake_case_name() -> None:
    assert set(deck.THEMES) == set(RANGES)
    for key, (lo, hi) in RANGES.items():
        assert (deck.THEMES[key].lo, deck.THEMES[key].hi) == (lo, hi)


@pytest.mark.parametrize("key", sorted(RANGES))
def test_theme_dealt_for_every_count_of_its_range(key: str) -> None:
    lo, hi = RANGES[key]
    for n in range(lo, hi + 1):
        for seed in (1, 2):
            state, events = tabula_game(GameConfig(RuleSet.TABULA, players(n), theme=key), seed)
            cards = list(state.roles.values())
            assert len(cards) == n
            deck.validate(cards, n, minimum=lo, theme=key)  # its own Werewolf count
            assert events[0].data["deck"] == dict(sorted(Counter(r.value for r in cards).items()))
            assert state.options["theme"] == key
            again, _ = tabula_game(GameConfig(RuleSet.TABULA, players(n), theme=key), seed)
            assert again.roles == state.roles


@pytest.mark.parametrize("key", sorted(RANGES))
def test_theme_refuses_counts_outside_its_range(key: str) -> None:
    lo, hi = RANGES[key]
    for n in (lo - 1, hi + 1):
        with pytest.raises(InvalidSetup) as e:
            engine.new_game(GameConfig(RuleSet.TABULA, players(n), theme=key), 1)
        assert e.value.key == "setup.theme_range"
        assert f"{lo} to {hi} players" in e.value.reason and f"there are {n}" in e.value.reason


def test_theme_by_printed_name_and_unknown_theme() -> None:
    assert len(deck.theme_deck("Different Factions, Different Afterlives", 9, 1)) == 9
    assert len(deck.theme_deck("The Few and the Special!", 7, 1)) == 7
    with pytest.raises(InvalidSetup) as e:
        deck.theme_deck("nights of love", 12, 1)
    assert e.value.key == "setup.unknown_theme" and "mythomania" in e.value.reason


def cards(key: str, n: int, seed: int = 1) -> Counter[Role]:
    return Counter(deck.theme_deck(key, n, seed))


def test_either_or_choices_come_from_the_seed() -> None:
    seen = {
        frozenset(
            r
            for r in cards("the_few_and_the_special", 8, s)
            if r in (R.SEER, R.FORTUNE_TELLER, R.MISS_PURPLE, R.MEDIUM)
        )
        for s in range(40)
    }
    assert {R.SEER, R.FORTUNE_TELLER} <= set().union(*seen)
    assert {R.MISS_PURPLE, R.MEDIUM} <= set().union(*seen)
    assert all(len(s) == 2 for s in seen)


def test_bracketed_conditions() -> None:
    few7 = cards("the_few_and_the_special", 7)
    assert few7[R.VILLAGER] == 0 and few7[R.MISS_PURPLE] + few7[R.MEDIUM] == 0
    shift = {n: cards("the_night_shift", n) for n in (8, 9, 12)}
    assert shift[8][R.MISS_PURPLE] == 0 and shift[9][R.MISS_PURPLE] == 1
    assert shift[9][R.DEADALIVE] == 0 and shift[12][R.DEADALIVE] == shift[12][R.OWL_MAN] == 1
    assert shift[8][R.VILLAGER] == 4
    evil = {n: cards("the_evil_and_the_cure", n) for n in (9, 10, 12, 15, 16)}
    assert evil[9][R.POSSESSED] == 0 and evil[10][R.POSSESSED] == 1
    assert evil[10][R.DR_JEKYLL] == 0 and evil[12][R.DR_JEKYLL] == 1
    assert evil[15][R.WEREWOLF] == 1 and evil[16][R.WEREWOLF] == 2 and evil[16][R.LARA] == 1
    lovers = {n: cards("the_lovers_of_mystery", n) for n in range(12, 17)}
    assert [lovers[n][R.HAMLET] for n in range(12, 17)] == [1, 0, 1, 1, 1]
    assert [lovers[n][R.DARIUS] for n in range(12, 17)] == [1, 1, 1, 0, 0]
    assert [lovers[n][R.WEREHAMSTER] for n in range(12, 17)] == [0, 0, 0, 1, 1]
    assert [lovers[n][R.FREEMASON] for n in range(12, 17)] == [0, 2, 2, 2, 2]
    assert [lovers[n][R.DEADALIVE] for n in range(12, 17)] == [0, 0, 0, 1, 1]
    assert [lovers[n][R.WEREWOLF] for n in range(12, 17)] == [2, 2, 2, 2, 3]
    assert all(lovers[n][R.VILLAGER] == 0 for n in lovers)
    blood = cards("nights_of_blood", 16)
    assert blood[R.WEREWOLF] == 3 and blood[R.OWL_MAN] == 1 and blood[R.VILLAGER] == 16 - 9
    factions = {n: cards("different_factions_different_afterlives", n) for n in (9, 14, 15, 16, 19, 20, 24, 25)}
    assert factions[14][R.DARIUS] == 1 and factions[15][R.WEREHAMSTER] == 1 and factions[15][R.DARIUS] == 0
    assert factions[15][R.MYTHOMANIAC] == 0 and factions[16][R.MYTHOMANIAC] == 1
    assert [factions[n][R.WEREWOLF] for n in (9, 15, 16, 24, 25)] == [1, 1, 2, 2, 3]
    assert factions[19][R.OWL_MAN] == 0 and factions[20][R.OWL_MAN] == 1
    myth = {n: cards("mythomania", n) for n in (16, 24, 25, 30)}
    assert [myth[n][R.WEREWOLF] for n in (16, 24, 25, 30)] == [2, 2, 3, 3]
    assert myth[16][R.VILLAGER] == 1 and myth[30][R.VILLAGER] == 14


def options(key: str, n: int) -> dict[str, object]:
    state, _ = tabula_game(GameConfig(RuleSet.TABULA, players(n), theme=key), 1)
    return dict(state.options)


def test_themes_set_the_deadly_owl_man() -> None:
    assert options("nights_of_blood", 12)["deadly_owl"] is True
    assert options("different_factions_different_afterlives", 19)["deadly_owl"] is False
    assert options("different_factions_different_afterlives", 20)["deadly_owl"] is True
    assert options("mythomania", 19)["deadly_owl"] is False
    assert options("mythomania", 20)["deadly_owl"] is True
    assert "deadly_owl" not in options("the_night_shift", 12)
    state, _ = tabula_game(
        GameConfig(RuleSet.TABULA, players(12), theme="nights_of_blood", options={"deadly_owl": False}), 1
    )
    assert state.options["deadly_owl"] is False  # the host's own option wins


def test_a_deck_may_mix_expansion_and_base_characters() -> None:
    mix = [
        "werewolf",
        "lara",
        "seer",
        "fortune_teller",
        "werecow",
        "darius",
        "baron_samedi",
        "hamlet",
        "dr_jekyll",
        "bodyguard",
        "owl_man",
        "villager",
    ]
    state, _ = tabula_game(GameConfig(RuleSet.TABULA, players(12), deck=tuple(mix)), 3)
    assert sorted(r.value for r in state.roles.values()) == sorted(mix)
    with pytest.raises(InvalidSetup) as e:
        engine.new_game(GameConfig(RuleSet.TABULA, players(12), deck=tuple([*mix[:-1], "lara"])), 3)
    assert e.value.key == "setup.duplicate"


# -- the Aura variant's decks -----------------------------------------------------------------------
def test_aura_four_players_three_of_four_at_random_and_hidden() -> None:
    seen = set()
    for seed in range(40):
        state, events = tabula_game(GameConfig(RuleSet.AURA, players(4)), seed)
        counts: Counter[Role] = Counter(state.roles.values())
        assert counts[R.WEREWOLF] == 1 and sum(counts[r] for r in FOUR_OF) == 3 and len(counts) == 4
        seen.add(frozenset(counts))
        started = events[0]
        assert started.data["deck"] == {"werewolf": 1}
        assert started.data["three_of"] == [r.value for r in FOUR_OF]
    assert len(seen) == 4


@pytest.mark.parametrize("n", [5, 6, 7])
def test_aura_fixed_sets(n: int) -> None:
    state, events = tabula_game(GameConfig(RuleSet.AURA, players(n)), 9)
    assert sorted(state.roles.values()) == sorted(SETS[n])
    assert events[0].data["deck"] == dict(sorted(Counter(r.value for r in SETS[n]).items()))
    for p in state.players:
        nature = "wicked" if CHARACTERS[state.roles[p]].wicked else "innocent"
        assert state.marks["aura"][p] == nature
        assert {"key": "aura.dealt", "aura": nature} in [dict(f) for f in state.knowledge[p]]
    pv = cast(TabulaPublicView, engine.public_view(state))
    assert pv["auras"] == list(state.players) and pv["aura_pile"] == 0
    assert "aura" not in str(engine.public_view(state).get("tokens"))


@pytest.mark.parametrize("n", [3, 8])
def test_aura_refuses_other_counts(n: int) -> None:
    with pytest.raises(InvalidSetup) as e:
        engine.new_game(GameConfig(RuleSet.AURA, players(n)), 1)
    assert e.value.key == "setup.aura_count"


def test_aura_four_players_deck_checked() -> None:
    ok = {"a": "werewolf", "b": "werecow", "c": "darius", "d": "miss_purple"}
    engine.new_game(GameConfig(RuleSet.AURA, tuple(ok), roles=ok), 1)
    for bad in ({**ok, "d": "werecow"}, {**ok, "a": "lara"}, {**ok, "d": "hamlet"}):
        with pytest.raises(InvalidSetup) as e:
            engine.new_game(GameConfig(RuleSet.AURA, tuple(bad), roles=bad), 1)
        assert e.value.key == "setup.aura_deck"


def test_aura_state_round_trips_through_json() -> None:
    g = Game(
        {"ann": "werewolf", "bob": "werecow", "cat": "darius", "dan": "fortune_teller", "eve": "miss_purple"},
        rules="aura",
    )("ann: kill dan", "end")
    assert engine.from_json(engine.to_json(g.state)) == g.state


# -- the end ----------------------------------------------------------------------------------------
def ended(
    roles: dict[str, str], alive: list[str], rules: RuleSet = RuleSet.TABULA, marks: dict[str, object] | None = None
) -> tuple[Team, tuple[str, ...], str] | None:
    n = len(roles)
    filler = {f"x{i}": "villager" for i in range(max(0, 8 - n))} if rules is RuleSet.TABULA else {}
    allroles = {**roles, **filler}
    state, _ = engine.new_game(GameConfig(rules, tuple(allroles), roles=allroles), 1)
    assert isinstance(state, TabulaState)
    state = state.evolve(alive=frozenset(alive), marks={**state.marks, **(marks or {})})
    out = end.check(state)
    return None if out is None else (out.team, out.winners, out.reason)


BASE = {"w1": "werewolf", "w2": "werewolf", "s": "seer", "v1": "villager", "v2": "villager"}


def test_werecow_is_no_werewolf_for_the_count_but_wins_with_them() -> None:
    roles = {**BASE, "cow": "werecow", "p": "possessed"}
    assert ended(roles, ["w1", "cow", "v1"]) is None  # one Werewolf against two
    team, winners, _ = ended(roles, ["w1", "cow"]) or (None, (), "")
    assert team is Team.WEREWOLVES and set(winners) == {"w1", "w2", "cow", "p"}


def test_deadalive_never_counts_as_living() -> None:
    roles = {**BASE, "dead": "deadalive"}
    team, winners, _ = ended(roles, ["w1", "dead", "v1"]) or (None, (), "")
    assert team is Team.WEREWOLVES and "dead" not in winners
    assert ended(roles, ["w1", "v1", "v2"]) is None


def test_werehamster_alive_wins_alone_either_way() -> None:
    roles = {**BASE, "h": "werehamster"}
    assert ended(roles, ["h", "s", "v1"]) == (Team.WEREHAMSTER, ("h",), "end.werehamster_alive")
    assert ended(roles, ["w1", "h"]) == (Team.WEREHAMSTER, ("h",), "end.werehamster_alive")
    assert ended(roles, ["w1", "s"])[0] is Team.WEREWOLVES  # type: ignore[index]


def test_darius_alone_or_with_one_other() -> None:
    roles = {**BASE, "d": "darius"}
    assert ended(roles, ["d"]) == (Team.DARIUS, ("d",), "end.darius_alone")
    assert ended(roles, ["d", "w1"]) == (Team.DARIUS, ("d",), "end.darius_alone")
    assert ended(roles, ["d", "v1"]) == (Team.DARIUS, ("d",), "end.darius_alone")
    team, winners, _ = ended(roles, ["d", "v1", "s"]) or (None, (), "")
    assert team is Team.HUMANS and "d" not in winners
    team, winners, _ = ended(roles, ["v1", "s"]) or (None, (), "")
    assert team is Team.HUMANS and "d" in winners  # dead, he wins with the Humans
    team, winners, _ = ended(roles, ["w1", "w2", "d", "v1"]) or (None, (), "")
    assert team is Team.WEREWOLVES and "d" not in winners


def test_darius_with_the_deadalive_is_still_alone() -> None:
    roles = {**BASE, "d": "darius", "dead": "deadalive"}
    assert ended(roles, ["d", "w1", "dead"]) == (Team.DARIUS, ("d",), "end.darius_alone")


def test_darius_takes_the_game_from_the_werehamster_when_only_they_live() -> None:
    roles = {**BASE, "d": "darius", "h": "werehamster"}
    assert ended(roles, ["d", "h"]) == (Team.DARIUS, ("d",), "end.darius_alone")
    assert ended(roles, ["d", "h", "v1"])[0] is Team.WEREHAMSTER  # type: ignore[index]


AURA5 = {"w": "werewolf", "cow": "werecow", "d": "darius", "ft": "fortune_teller", "mp": "miss_purple"}


def test_aura_end_conditions() -> None:
    assert ended(AURA5, ["w", "cow", "ft", "mp"], RuleSet.AURA) is None
    team, winners, _ = ended(AURA5, ["w", "ft"], RuleSet.AURA) or (None, (), "")
    assert team is Team.WEREWOLVES and set(winners) == {"w", "cow"}
    team, winners, _ = ended(AURA5, ["cow", "ft", "mp"], RuleSet.AURA) or (None, (), "")
    assert team is Team.HUMANS and set(winners) == {"ft", "mp", "d"}
    assert ended(AURA5, ["w", "d"], RuleSet.AURA) == (Team.DARIUS, ("d",), "end.darius_alone")


def test_welcome_goes_at_random_to_one_of_several_dead() -> None:
    roles = (
        "ann=werewolf bob=werewolf cat=seer dan=dr_jekyll eve=villager fay=villager gus=villager hal=villager "
        "ivy=villager jon=villager kim=villager leo=villager"
    )
    welcomes = set()
    for seed in range(16):
        g = Game(roles, seed=seed)("end").lynch("gus")("dan: potion fay", "ann: kill hal", "end")
        assert g.summary["dead"][-2:] == ["fay", "hal"]
        welcomes.add(g.state.welcome)
    assert welcomes == {"fay", "hal"}


def test_the_aura_example_game_plays_to_the_humans_win() -> None:
    from pathlib import Path

    from engine.record import load_record, replay

    example = Path(__file__).resolve().parents[3] / "examples" / "aura-game.yaml"
    result = replay(load_record(example))
    assert engine.summary(result.state)["winners"] == ["dan", "eve"]
    assert engine.summary(result.state)["lynched"] == ["ann", "ann"]
