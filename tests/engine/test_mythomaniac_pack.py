"""The Mythomaniac who joins the pack after a Werewolf died: the news reaches the living pack
only and names only its living members, because a dead player's card stays secret until the
end and a Ghost "no longer plays as a character". Checked through the view functions (what
each player's view holds) and the events' audiences."""

from __future__ import annotations

from typing import Any, cast

import engine
from engine.types import Event
from engine.viewing import TabulaPlayerView, TabulaPublicView
from tests.scenario import Game

SIXTEEN = [
    "ann",
    "bob",
    "cat",
    "dan",
    "eve",
    "fay",
    "gus",
    "hal",
    "ivy",
    "jon",
    "kim",
    "leo",
    "max",
    "ned",
    "oli",
    "pam",
]


def table(**cards: str) -> dict[str, str]:
    """Sixteen players: Werewolves ann and bob, Lara cat, the Mythomaniac dan, the Seer eve,
    the rest Villagers unless ``cards`` says otherwise."""
    base = {"ann": "werewolf", "bob": "werewolf", "cat": "lara", "dan": "mythomaniac", "eve": "seer"}
    return {p: cards.get(p, base.get(p, "villager")) for p in SIXTEEN}


def news(g: Game, key: str = "mythomaniac.joined_pack") -> list[Event]:
    return [e for _, e in g.result.events if e.key == key]


def facts(g: Game, player: str, key: str) -> list[dict[str, Any]]:
    return [f for f in engine.view(g.state, player)["knowledge"] if f["key"] == key]


def assert_only_the_living_pack_hears(g: Game, living_pack: list[str], dead: list[str]) -> None:
    (event,) = news(g)
    assert list(event.to or ()) == living_pack and event.data["members"] == living_pack
    assert event.data["member"] == "dan"
    for p in living_pack:  # each living member's view holds the news, naming only the living
        (fact,) = facts(g, p, "mythomaniac.joined_pack")
        assert fact["members"] == living_pack
    for p in dead:
        assert p not in engine.public_view(g.state)["alive"]
        assert facts(g, p, "mythomaniac.joined_pack") == []
        assert "mythomaniac.joined_pack" not in g.told(p)
    mine = cast(TabulaPlayerView, engine.view(g.state, "dan"))
    assert mine["became"] == "werewolf"
    named = {m for f in mine["knowledge"] for m in f.get("members", ())}
    assert named == set(living_pack) and not named & set(dead)


def test_after_a_werewolf_was_lynched_only_the_living_pack_hears_of_him() -> None:
    g = Game(table(), seed=3)("ann: kill fay", "bob: kill fay", "cat: kill fay", "end").lynch("bob")
    g("dan: mimic ann", "ann: kill gus", "cat: kill gus", "end")
    assert_only_the_living_pack_hears(g, ["ann", "cat", "dan"], dead=["bob"])


def test_after_lara_slaughtered_a_werewolf_on_the_first_night() -> None:
    g = Game(table(), seed=3)("cat: kill ann", "bob: kill fay", "end")
    assert "ann" not in g.summary["alive"]
    g.lynch("gus")("dan: mimic bob", "bob: kill hal", "end")
    assert_only_the_living_pack_hears(g, ["bob", "cat", "dan"], dead=["ann"])


def test_copying_the_werewolf_lara_slaughters_that_same_night() -> None:
    # He points at ann while she is still in play; Lara's choice kills her before his phase.
    g = Game(table(), seed=3)("ann: kill fay", "bob: kill fay", "end").lynch("gus")
    g("dan: mimic ann", "cat: kill ann", "bob: kill hal", "end")
    assert "ann" not in g.summary["alive"]
    assert_only_the_living_pack_hears(g, ["bob", "cat", "dan"], dead=["ann"])


def test_a_werewolf_revived_by_baron_samedi_is_back_in_the_pack_and_told_it() -> None:
    g = Game(table(kim="baron_samedi"), seed=3)("cat: kill ann", "end").lynch("gus")
    assert cast(TabulaPublicView, engine.public_view(g.state))["welcome"] == "ann"
    g("kim: revive", "dan: mimic bob", "bob: kill hal", "end")
    assert "ann" in g.summary["alive"]
    (event,) = news(g)
    everyone = ["ann", "bob", "cat", "dan"]
    assert list(event.to or ()) == everyone and event.data["members"] == everyone


def test_a_mythomaniac_killed_before_his_phase_is_a_ghost_and_nobody_is_told() -> None:
    g = Game(table(), seed=3)("ann: kill fay", "bob: kill fay", "end").lynch("gus")
    g("dan: mimic ann", "ann: kill dan", "bob: kill dan", "cat: kill dan", "end")
    assert "dan" not in g.summary["alive"]
    assert news(g) == [] and news(g, "mythomaniac.stays_human") == []
    assert "became" not in engine.view(g.state, "dan")  # he stays what his card says
    assert all(facts(g, p, "mythomaniac.joined_pack") == [] for p in SIXTEEN)


def test_the_seer_killed_that_night_is_neither_told_nor_named() -> None:
    g = Game(table(), seed=3)("ann: kill fay", "bob: kill fay", "end").lynch("gus")
    g("dan: mimic eve", "ann: kill eve", "bob: kill eve", "cat: kill eve", "end")
    assert "eve" not in g.summary["alive"]
    (event,) = news(g, "mythomaniac.joined_seer")
    assert list(event.to or ()) == ["dan"] and event.data["members"] == ["dan"]
    assert facts(g, "eve", "mythomaniac.joined_seer") == []


def test_the_deadly_owl_man_spares_a_mythomaniac_who_just_became_a_werewolf() -> None:
    # "at once": at dawn he is a Werewolf, whom the deadly Owl-man's choice does not kill.
    g = Game(table(kim="owl_man"), seed=3, options={"deadly_owl": True})
    g("ann: kill fay", "bob: kill fay", "end").lynch("gus")
    g("dan: mimic ann", "kim: owl dan", "ann: kill hal", "end")
    assert "dan" in g.summary["alive"]
    assert_only_the_living_pack_hears(g, ["ann", "bob", "cat", "dan"], dead=[])


def test_a_mythomaniac_the_deadly_owl_man_takes_after_he_copied_the_seer_learns_nothing() -> None:
    g = Game(table(kim="owl_man"), seed=3, options={"deadly_owl": True})
    g("ann: kill fay", "bob: kill fay", "end").lynch("gus")
    g("dan: mimic eve", "kim: owl dan", "ann: kill hal", "end")
    assert "dan" not in g.summary["alive"]
    assert news(g, "mythomaniac.joined_seer") == []
    mine = cast(TabulaPlayerView, engine.view(g.state, "dan"))
    assert "became" not in mine and [f["key"] for f in mine["knowledge"]] == ["role.dealt"]
