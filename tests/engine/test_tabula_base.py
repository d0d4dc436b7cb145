"""The base game's flow: nights, nominations, ballots, ties, the end, the surface."""

from __future__ import annotations

import pytest

import engine
from engine import Action, GameConfig, IllegalAction, InvalidSetup, Phase, RuleSet, Verb
from engine.record import ReplayError
from engine.tabula.state import TabulaState
from tests.scenario import Game

EIGHT = "ann=werewolf bob=werewolf cat=seer dan=villager eve=villager fay=villager gus=villager hal=villager"


def day1(g: Game) -> Game:
    return g("ann: kill dan", "bob: kill dan", "end")


def test_game_starts_at_night_one_with_cards_dealt_privately() -> None:
    g = Game(EIGHT)
    s = g.summary
    assert (s["status"], s["phase"], s["day"]) == ("running", "night", 0)
    assert g.told("dan") == ["game.started", "role.dealt", "phase.night"]
    assert {"key": "werewolf.pack", "members": ["ann", "bob"]} in g.knows("ann")


def test_pack_victim_dies_at_dawn_and_gets_welcome() -> None:
    g = day1(Game(EIGHT))
    assert g.summary["dead"] == ["dan"]
    assert g.state.welcome == "dan"
    assert g.summary["phase"] == "nominations" and g.summary["day"] == 1


def test_split_pack_is_broken_by_the_seeded_generator_reproducibly() -> None:
    victims = set()
    for seed in range(12):
        g = Game(EIGHT, seed=seed)("ann: kill dan", "bob: kill eve", "end")
        again = Game(EIGHT, seed=seed)("ann: kill dan", "bob: kill eve", "end")
        assert g.summary["dead"] == again.summary["dead"]
        victims.update(g.summary["dead"])
    assert victims == {"dan", "eve"}


def test_majority_of_living_wolves_decides() -> None:
    roles = EIGHT.replace("hal=villager", "hal=werewolf").replace("gus=villager", "gus=villager")
    roles = roles.replace("eve=villager", "eve=villager").replace("fay=villager", "fay=villager")
    g = Game(
        "ann=werewolf bob=werewolf hal=werewolf cat=seer dan=villager eve=villager fay=villager gus=villager "
        "ida=villager jon=villager kim=villager lou=villager mia=villager ned=villager oli=villager pam=villager"
    )
    g("ann: kill dan", "bob: kill dan", "hal: kill eve", "end")
    assert g.summary["dead"] == ["dan"]


def test_last_choice_counts_and_no_choice_kills_nobody() -> None:
    g = Game(EIGHT)("ann: kill dan", "ann: kill eve", "bob: kill eve", "end")
    assert g.summary["dead"] == ["eve"]
    g = Game(EIGHT)("end")
    assert g.summary["dead"] == [] and g.state.welcome is None


def test_werewolves_may_not_choose_a_werewolf_or_themselves() -> None:
    with pytest.raises(ReplayError) as e:
        Game(EIGHT)("ann: kill bob")
    assert e.value.error.key == "target.not_allowed"
    with pytest.raises(ReplayError) as e:
        Game(EIGHT)("ann: kill ann")
    assert e.value.error.key == "target.self"


def test_villager_has_no_night_power_and_nobody_votes_at_night() -> None:
    with pytest.raises(ReplayError) as e:
        Game(EIGHT)("dan: kill ann")
    assert e.value.error.key == "power.none"
    with pytest.raises(ReplayError) as e:
        Game(EIGHT)("dan: vote ann")
    assert e.value.error.key == "vote.not_now"


def test_nominations_are_public_final_and_ghosts_vote() -> None:
    g = day1(Game(EIGHT))("dan: vote ann")
    assert "day.vote" in g.told("eve")
    with pytest.raises(ReplayError) as e:
        g("dan: vote bob")
    assert e.value.error.key == "vote.already"


def test_nominations_target_living_players_only() -> None:
    with pytest.raises(ReplayError) as e:
        day1(Game(EIGHT))("eve: vote dan")
    assert e.value.error.key == "target.dead"
    with pytest.raises(ReplayError) as e:
        day1(Game(EIGHT))("eve: vote zed")
    assert e.value.error.key == "target.unknown"


def test_two_most_voted_are_suspects_ties_by_welcome_order() -> None:
    # Welcome is dan (seat 4): counting starts with eve, dan last.
    g = day1(Game(EIGHT))("ann: vote cat", "bob: vote hal", "cat: vote eve", "end")
    # cat, hal, eve have one vote each: eve comes first after dan, then fay, gus, hal, ann, bob, cat.
    assert g.state.suspects == ("eve", "hal")


def test_fewer_than_two_voted_for_are_filled_by_tie_order() -> None:
    g = day1(Game(EIGHT))("ann: vote cat", "end")
    assert g.state.suspects == ("cat", "eve")
    g = day1(Game(EIGHT))("end")
    assert g.state.suspects == ("eve", "fay")


def test_before_any_welcome_ties_count_from_the_first_seat() -> None:
    g = Game(EIGHT)("end", "cat: vote hal", "eve: vote gus", "end")
    assert g.state.suspects == ("gus", "hal")


def test_ballot_secret_changeable_only_living_non_suspects() -> None:
    g = day1(Game(EIGHT))("cat: vote ann", "eve: vote ann", "ann: vote eve", "end")
    assert g.state.suspects == ("ann", "eve")
    g("cat: vote eve", "cat: vote ann")
    assert "day.ballot_taken" in g.told("cat")
    assert "day.ballot_taken" not in g.told("fay")
    for bad, key in (
        ("ann: vote eve", "ballot.suspect"),
        ("dan: vote ann", "ballot.ghost"),
        ("fay: vote gus", "ballot.not_suspect"),
    ):
        with pytest.raises(ReplayError) as e:
            g(bad)
        assert e.value.error.key == key
        g.record.moves.pop()
    g("end")
    assert g.summary["lynched"] == ["ann"]


def test_ballot_tie_and_empty_ballot_go_by_tie_order() -> None:
    g = day1(Game(EIGHT))("cat: vote hal", "eve: vote fay", "end")
    assert g.state.suspects == ("fay", "hal")
    g("cat: vote hal", "eve: vote fay", "end")
    assert g.summary["lynched"] == ["fay"]
    g = day1(Game(EIGHT))("cat: vote hal", "eve: vote fay", "end", "end")
    assert g.summary["lynched"] == ["fay"]


def test_ballots_revealed_together_at_close() -> None:
    g = day1(Game(EIGHT))("cat: vote ann", "eve: vote ann", "end", "cat: vote eve", "fay: vote ann")
    assert "day.ballots" not in g.told("gus")
    g("end")
    ev = next(e for _, e in g.result.events if e.key == "day.ballots")
    assert ev.public and ev.data["ballots"] == {"cat": "eve", "fay": "ann"}


def test_werewolves_win_at_parity_after_the_night() -> None:
    g = Game(EIGHT)
    moves = [("dan", "cat"), ("eve", "fay"), ("gus", "hal")]
    g("ann: kill cat", "bob: kill cat", "end")
    # Lynch the villagers one after another while the pack eats.
    g("ann: vote dan", "bob: vote dan", "end", "ann: vote dan", "bob: vote dan", "gus: vote dan", "end")
    assert g.summary["lynched"] == ["dan"]
    g("ann: kill eve", "end")
    assert g.summary["status"] == "running"
    g("ann: vote fay", "bob: vote fay", "end", "ann: vote fay", "bob: vote fay", "end")
    s = g.summary
    assert s["status"] == "over" and s["winners"] == ["ann", "bob"] and s["team"] == "werewolves"
    assert moves  # the plan above


def test_humans_win_when_the_last_werewolf_is_lynched_ghosts_included() -> None:
    g = Game(EIGHT)("ann: kill dan", "end", "cat: vote ann", "end", "cat: vote ann", "fay: vote ann", "end")
    assert g.state.suspects == () and g.summary["lynched"] == ["ann"]
    g("bob: kill eve", "end", "cat: vote bob", "end", "cat: vote bob", "gus: vote bob", "end")
    s = g.summary
    assert s["status"] == "over" and s["team"] == "humans"
    assert s["winners"] == ["cat", "dan", "eve", "fay", "gus", "hal"]


def test_dead_players_cannot_act() -> None:
    g = Game(EIGHT)("ann: kill cat", "bob: kill cat", "end", "end", "end")
    with pytest.raises(ReplayError) as e:
        g("cat: see ann")
    assert e.value.error.key == "actor.dead"
    assert engine.legal_actions(g.state, "cat") == []


def test_game_over_refuses_moves_and_closes() -> None:
    g = Game(EIGHT)(
        "ann: kill dan",
        "end",
        "cat: vote ann",
        "end",
        "cat: vote ann",
        "fay: vote ann",
        "end",
        "bob: kill eve",
        "end",
        "cat: vote bob",
        "end",
        "cat: vote bob",
        "gus: vote bob",
        "end",
    )
    assert g.summary["status"] == "over"
    with pytest.raises(IllegalAction):
        engine.apply(g.state, Action("cat", Verb.VOTE, "fay"))
    assert engine.close_phase(g.state) == (g.state, [])


def test_stale_close_is_ignored_and_current_one_closes() -> None:
    g = Game(EIGHT)
    s = g.state
    assert engine.close_phase(s, s.phase_no + 1) == (s, [])
    assert engine.close_phase(s, s.phase_no - 1) == (s, [])
    after, events = engine.close_phase(s, s.phase_no)
    assert after.phase is Phase.NOMINATIONS and events
    assert engine.close_phase(after, s.phase_no) == (after, [])


def test_states_round_trip_through_json_exactly() -> None:
    g = day1(Game(EIGHT))("cat: vote ann", "end", "cat: vote ann")
    s = g.state
    again = engine.from_json(engine.to_json(s))
    assert again == s
    assert engine.to_json(again) == engine.to_json(s)


def test_states_are_immutable() -> None:
    s: TabulaState = Game(EIGHT).state
    with pytest.raises(AttributeError):
        s.day = 3  # type: ignore[misc]  # what the frozen dataclass forbids, tried at run time
    after, _ = engine.apply(s, Action("ann", Verb.KILL, "dan"))
    assert isinstance(after, TabulaState)
    assert s.choices == {} and after.choices


def test_default_deck_by_player_count() -> None:
    names = [f"p{i}" for i in range(24)]
    for n in (8, 12, 15, 16, 24):
        s, _ = engine.new_game(GameConfig(RuleSet.TABULA, tuple(names[:n])), 3)
        roles = list(s.roles.values())  # type: ignore[attr-defined]
        wolves = sum(r.value == "werewolf" for r in roles)
        assert wolves == (3 if n >= 16 else 2)
        assert sum(r.value == "seer" for r in roles) == 1
        assert sum(r.value == "villager" for r in roles) == n - wolves - 1


@pytest.mark.parametrize(
    ("n", "deck", "key"),
    [
        (7, None, "setup.too_few"),
        (8, ["werewolf"] * 2 + ["seer"] + ["villager"] * 6, "setup.deck_size"),
        (8, ["seer"] * 2 + ["villager"] * 6, "setup.duplicate"),
        (8, ["seer", "medium"] + ["villager"] * 6, "setup.wolves"),  # 8 players take 2 Werewolves
        (8, ["werewolf"] * 4 + ["seer"] + ["villager"] * 3, "setup.wolves"),
        (9, ["werewolf"] * 2 + ["freemason", "seer"] + ["villager"] * 5, "setup.freemasons"),
        (8, ["werewolf"] * 2 + ["thief"] + ["villager"] * 5, "setup.foreign_role"),
        (8, ["werewolf"] * 2 + ["wizard"] + ["villager"] * 5, "setup.unknown_role"),
    ],
)
def test_decks_that_do_not_fit_are_refused_with_a_reason(n: int, deck: list[str] | None, key: str) -> None:
    names = tuple(f"p{i}" for i in range(n))
    with pytest.raises(InvalidSetup) as e:
        engine.new_game(GameConfig(RuleSet.TABULA, names, deck=tuple(deck) if deck else None), 1)
    assert e.value.key == key and e.value.reason


def test_bad_player_names_are_refused() -> None:
    base = ("ann", "bob", "cat", "dan", "eve", "fay", "gus")
    for bad in ("ann", "ANN", "two words", "a:b", "#x", ""):
        with pytest.raises(InvalidSetup):
            engine.new_game(GameConfig(RuleSet.TABULA, (*base, bad)), 1)


def test_dealing_is_seeded() -> None:
    names = tuple(f"p{i}" for i in range(12))
    a, _ = engine.new_game(GameConfig(RuleSet.TABULA, names), 5)
    b, _ = engine.new_game(GameConfig(RuleSet.TABULA, names), 5)
    assert a == b
    decks = {
        tuple(engine.new_game(GameConfig(RuleSet.TABULA, names), s)[0].roles.values())  # type: ignore
        for s in range(10)
    }
    assert len(decks) > 1


def test_legal_actions_list_targets_and_actors() -> None:
    s = Game(EIGHT).state
    assert {a.text() for a in engine.legal_actions(s, "ann")} == {
        f"kill {p}" for p in ("cat", "dan", "eve", "fay", "gus", "hal")
    }
    assert set(engine.actors(s)) == {"ann", "bob", "cat"}
    assert engine.legal_actions(s, "nobody") == []
