"""Each base character, as the rulebook and the rulings say."""

from __future__ import annotations

import pytest

import engine
from engine.record import ReplayError
from tests.scenario import Game

V = "villager"


def roles(*special: str, n: int = 8) -> str:
    """Seats p0.. with the given roles first, villagers after."""
    cards = list(special) + [V] * (n - len(special))
    return " ".join(f"p{i}={r}" for i, r in enumerate(cards))


def err(g: Game, move: str) -> str:
    with pytest.raises(ReplayError) as e:
        g(move)
    g.record.moves.pop()
    return e.value.error.key


# -- Seer ------------------------------------------------------------------------------------------
def test_seer_learns_at_close_whether_a_werewolf() -> None:
    g = Game(roles("werewolf", "werewolf", "seer"))("p2: see p0")
    assert not any(f["key"] == "seer.result" for f in g.knows("p2"))  # never earlier than the close
    g("end")
    assert {"key": "seer.result", "target": "p0", "were": True, "night": 1} in g.knows("p2")
    g = Game(roles("werewolf", "werewolf", "seer"))("p2: see p5", "end")
    assert {"key": "seer.result", "target": "p5", "were": False, "night": 1} in g.knows("p2")


def test_seer_changes_mind_last_choice_counts_not_on_himself() -> None:
    g = Game(roles("werewolf", "werewolf", "seer"))("p2: see p5", "p2: see p1", "end")
    assert [f["target"] for f in g.knows("p2") if f["key"] == "seer.result"] == ["p1"]
    assert err(Game(roles("werewolf", "werewolf", "seer")), "p2: see p2") == "target.self"


def test_seer_killed_gets_no_more_looks_but_night_still_runs() -> None:
    g = Game(roles("werewolf", "werewolf", "seer"))("p0: kill p2", "p1: kill p2", "p2: see p0", "end")
    assert "p2" in g.summary["dead"]
    # The result of the last look still reaches him: he looked before the pack struck.
    assert any(f["key"] == "seer.result" for f in g.knows("p2"))
    g("end", "end")  # nominations, ballot
    assert g.summary["phase"] == "night"
    assert err(g, "p2: see p0") == "actor.dead"


# -- Medium ----------------------------------------------------------------------------------------
def test_medium_from_the_second_night_about_the_last_lynched() -> None:
    g = Game(roles("werewolf", "werewolf", "seer", "medium", n=9))("end")
    assert not any(f["key"] == "medium.result" for f in g.knows("p3"))
    g("p4: vote p0", "end", "p4: vote p0", "p5: vote p0", "end")
    assert g.summary["lynched"] == ["p0"]
    g("end")
    assert {"key": "medium.result", "target": "p0", "were": True, "night": 2} in g.knows("p3")


def test_medium_with_nobody_lynched_has_no_answer() -> None:
    g = Game(roles("werewolf", "werewolf", "seer", "medium", n=9))
    g("end", "end", "end")  # night 1, empty nominations, empty ballot: someone is still lynched
    assert len(g.summary["lynched"]) == 1
    g = Game(roles("werewolf", "werewolf", "seer", "medium", n=9))("end")
    assert g.state.lynched == ()
    g("end")
    assert not any(f["key"] == "medium.result" for f in g.knows("p3"))


# -- Possessed -------------------------------------------------------------------------------------
def test_possessed_reads_human_and_wins_with_the_pack() -> None:
    g = Game(roles("werewolf", "werewolf", "seer", "possessed", n=10))("p2: see p3", "end")
    assert {"key": "seer.result", "target": "p3", "were": False, "night": 1} in g.knows("p2")
    assert not any(f["key"] == "werewolf.pack" for f in g.knows("p3"))  # he does not know them
    g = Game(roles("werewolf", "werewolf", "seer", "possessed", n=10))
    for victim, lynched in (("p2", "p4"), ("p5", "p6"), ("p7", "p8")):
        g(f"p0: kill {victim}", "end")
        if g.summary["status"] == "running":
            g.lynch(lynched)
        if g.summary["status"] == "over":
            break
    s = g.summary
    assert s["status"] == "over" and s["team"] == "werewolves"
    assert s["winners"] == ["p0", "p1", "p3"]


# -- Bodyguard -------------------------------------------------------------------------------------
def test_bodyguard_from_the_second_night_not_himself() -> None:
    g = Game(roles("werewolf", "werewolf", "seer", "bodyguard", n=11))
    assert err(g, "p3: protect p4") == "power.not_now"
    g("end").lynch("p9")
    assert err(g, "p3: protect p3") == "target.self"


def test_bodyguard_saves_the_pack_victim_nobody_dies() -> None:
    g = Game(roles("werewolf", "werewolf", "seer", "bodyguard", n=11))("end").lynch("p5")
    g("p3: protect p6", "p0: kill p6", "p1: kill p6", "end")
    assert "p6" in g.summary["alive"]
    assert g.state.welcome is None or g.state.welcome != "p6"


def test_bodyguard_may_protect_the_same_player_again() -> None:
    g = Game(roles("werewolf", "werewolf", "seer", "bodyguard", n=11))("end").lynch("p5")
    g("p3: protect p6", "end").lynch("p7")
    g("p3: protect p6", "p0: kill p6", "end")
    assert "p6" in g.summary["alive"]


# -- Owl-man ---------------------------------------------------------------------------------------
def test_owl_choice_replaces_the_second_suspect() -> None:
    g = Game(roles("werewolf", "werewolf", "seer", "owl_man", n=12))("p3: owl p9", "end")
    g("p0: vote p5", "p1: vote p5", "p2: vote p6", "end")
    assert g.state.suspects == ("p5", "p9")
    assert "owl_man.named" in g.told("p4")


def test_owl_choice_already_a_suspect_changes_nothing() -> None:
    g = Game(roles("werewolf", "werewolf", "seer", "owl_man", n=12))("p3: owl p6", "end")
    g("p0: vote p5", "p1: vote p5", "p2: vote p6", "end")
    assert g.state.suspects == ("p5", "p6")


def test_owl_choice_lasts_one_day() -> None:
    g = Game(roles("werewolf", "werewolf", "seer", "owl_man", n=12))("p3: owl p9", "end", "end", "end", "end")
    g("p0: vote p5", "p1: vote p5", "p2: vote p6", "end")
    assert g.state.suspects == ("p5", "p6")


def test_owl_is_harmless_with_twenty_players_deadly_with_twentyone() -> None:
    g = Game(roles("werewolf", "werewolf", "werewolf", "seer", "owl_man", n=20))("p4: owl p9", "end")
    assert g.summary["dead"] == []
    g = Game(roles("werewolf", "werewolf", "werewolf", "seer", "owl_man", n=21))("p4: owl p9", "end")
    assert g.summary["dead"] == ["p9"]
    assert g.state.suspects == ()


def test_deadly_owl_spares_werewolves_and_the_werehamster() -> None:
    base = roles("werewolf", "werewolf", "werewolf", "seer", "owl_man", "werehamster", n=21)
    assert Game(base)("p4: owl p0", "end").summary["dead"] == []
    assert Game(base)("p4: owl p5", "end").summary["dead"] == []


def test_two_deaths_welcome_goes_to_one_of_them_at_random() -> None:
    base = roles("werewolf", "werewolf", "werewolf", "seer", "owl_man", n=21)
    holders = set()
    for seed in range(16):
        g = Game(base, seed=seed)("p4: owl p9", "p0: kill p10", "end")
        assert sorted(g.summary["dead"]) == ["p10", "p9"]
        holders.add(g.state.welcome)
    assert holders == {"p9", "p10"}


def test_deadly_owl_option_for_themes() -> None:
    g = Game(roles("werewolf", "werewolf", "seer", "owl_man", n=12), options={"deadly_owl": True})
    assert g("p3: owl p9", "end").summary["dead"] == ["p9"]


# -- Freemasons ------------------------------------------------------------------------------------
def test_freemasons_know_each_other_from_the_start() -> None:
    g = Game(roles("werewolf", "werewolf", "seer", "freemason", "freemason", n=13))
    fact = {"key": "freemason.lodge", "members": ["p3", "p4"]}
    assert fact in g.knows("p3") and fact in g.knows("p4")
    assert not any(f["key"] == "freemason.lodge" for f in g.knows("p5"))


# -- Werehamster -----------------------------------------------------------------------------------
def test_werehamster_cannot_be_slaughtered() -> None:
    g = Game(roles("werewolf", "werewolf", "seer", "werehamster", n=15))("p0: kill p3", "p1: kill p3", "end")
    assert g.summary["dead"] == [] and g.state.welcome is None


def test_werehamster_dies_when_the_seer_looks_together_with_the_victim() -> None:
    g = Game(roles("werewolf", "werewolf", "seer", "werehamster", n=15))("p2: see p3", "p0: kill p5", "end")
    assert sorted(g.summary["dead"]) == ["p3", "p5"]
    assert {"key": "seer.result", "target": "p3", "were": False, "night": 1} in g.knows("p2")


def test_werehamster_reads_human_to_the_medium() -> None:
    g = Game(roles("werewolf", "werewolf", "seer", "werehamster", "medium", n=15))
    g("end", "p5: vote p3", "end", "p5: vote p3", "end", "end")
    assert {"key": "medium.result", "target": "p3", "were": False, "night": 2} in g.knows("p4")


# -- Mythomaniac -----------------------------------------------------------------------------------
def myth_game() -> Game:
    return Game(roles("werewolf", "werewolf", "werewolf", "seer", "mythomaniac", n=16))


def test_mythomaniac_only_on_the_second_night() -> None:
    g = myth_game()
    assert err(g, "p4: mimic p0") == "power.not_now"
    g("end").lynch("p9")
    assert "p4" in g.summary["alive"]
    g("p4: mimic p0")


def test_mythomaniac_choosing_a_werewolf_joins_the_pack() -> None:
    g = myth_game()("end").lynch("p9")("p4: mimic p0", "p3: see p4", "end")
    assert g.state.marks["became"] == {"p4": "werewolf"}
    pack_fact = [f for f in g.knows("p0") if f["key"] == "mythomaniac.joined_pack"]
    assert pack_fact and pack_fact[0]["member"] == "p4"
    # The Seer looked before he changed: human that night, Were from then on.
    assert {"key": "seer.result", "target": "p4", "were": False, "night": 2} in g.knows("p3")
    g.lynch("p10")
    assert {a.text() for a in engine.legal_actions(g.state, "p4")} >= {"kill p5"}
    g("p3: see p4", "p4: kill p6", "end")
    assert {"key": "seer.result", "target": "p4", "were": True, "night": 3} in g.knows("p3")
    assert "p6" in g.summary["dead"]


def test_mythomaniac_choosing_the_seer_shares_the_look() -> None:
    g = myth_game()("end").lynch("p9")("p4: mimic p3", "end").lynch("p10")
    assert g.state.marks["became"] == {"p4": "seer"}
    assert any(f["key"] == "mythomaniac.joined_seer" for f in g.knows("p3"))
    g("p3: see p0", "p4: see p1", "end")  # one shared look: the last choice counts
    looks = [f["target"] for f in g.knows("p3") if f["key"] == "seer.result"]
    assert looks == ["p1"]
    assert [f["target"] for f in g.knows("p4") if f["key"] == "seer.result"] == ["p1"]


def test_mythomaniac_choosing_anyone_else_stays_human() -> None:
    g = myth_game()("end").lynch("p9")("p4: mimic p7", "end")
    assert "became" not in g.state.marks
    assert any(f["key"] == "mythomaniac.stays_human" for f in g.knows("p4"))


def test_mythomaniac_turned_werewolf_counts_for_parity() -> None:
    g = Game(roles("werewolf", "werewolf", "werewolf", "seer", "mythomaniac", n=16))
    g("end").lynch("p9")("p4: mimic p0", "end")
    st = g.state
    from engine.tabula import end

    assert len([p for p in end.counted_living(st) if p in ("p0", "p1", "p2", "p4")]) == 4
    assert engine.outcome(st) is None
