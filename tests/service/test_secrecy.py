"""The leak checks' oracle (``secrecy.TABLE``) says what the rulebooks say, and an engine that
tells too much fails the leak check built on it."""

from __future__ import annotations

import pytest

import engine
from engine.tabula.characters import seer
from service.texts import render

from .leaks import leaks
from .secrecy import NOTHING, TABLE, Table, known, table_of
from .test_leaks import random_game

DEALT = {
    "ann": "werewolf",
    "bob": "lara",
    "cat": "seer",
    "dan": "werecow",
    "eve": "mythomaniac",
    "fay": "freemason",
    "gus": "freemason",
    "hal": "medium",
    "ivy": "villager",
    "jon": "deadalive",
    "kim": "fortune_teller",
}
PLAYERS = tuple(DEALT)


def cards(table: Table, player: str) -> set[str]:
    return known(table, player)[0] - {player}


def test_each_knows_what_his_card_lets_him_learn_and_no_more() -> None:
    table = Table(
        "tabula",
        PLAYERS,
        DEALT,
        moves=[("cat", "see", "ivy"), ("cat", "see", "ann"), ("kim", "see", "hal"), ("ivy", "vote", "ann")],
        lynched=("ivy",),
        revealed=frozenset({"jon"}),
    )
    assert cards(table, "ann") == {"bob", "jon"} and cards(table, "bob") == {"ann", "jon"}  # the pack
    assert known(table, "ann")[1] == {"ann", "bob"}  # and its night choices
    assert cards(table, "cat") == {"ivy", "ann", "jon"}  # the Seer: his looks
    assert cards(table, "kim") == {"hal", "jon"}  # the Fortune Teller: hers, not the Seer's
    assert cards(table, "dan") == {"ann", "bob", "eve", "jon"}  # the Werecow: the hands raised
    assert "dan" not in cards(table, "ann")  # ... who do not learn who she is
    assert cards(table, "fay") == {"gus", "jon"}
    assert cards(table, "hal") == {"ivy", "jon"}  # the Medium: the lynched
    for nobody in ("eve", "ivy", "jon"):  # the Deadalive's card is everyone's once he revealed it
        assert cards(table, nobody) <= {"jon"}, nobody


def test_a_card_turned_up_is_public_only_for_the_characters_who_turn_theirs() -> None:
    table = Table("tabula", PLAYERS, DEALT, revealed=frozenset({"cat", "jon"}))
    assert "jon" in cards(table, "ivy") and "cat" not in cards(table, "ivy")


@pytest.mark.parametrize(("target", "mates"), [("ann", {"ann", "bob"}), ("cat", {"cat"}), ("ivy", set())])
def test_a_mythomaniac_learns_the_channel_he_joins(target: str, mates: set[str]) -> None:
    table = Table(
        "tabula", PLAYERS, DEALT, moves=[("eve", "mimic", "hal"), ("eve", "mimic", target), ("eve", "see", "fay")]
    )
    assert cards(table, "eve") == mates | ({"fay"} if target == "cat" else set())
    for mate in mates:
        assert "eve" in cards(table, mate) and "eve" in known(table, mate)[1]
    assert "eve" not in cards(table, "kim")
    if target == "cat":  # he looks with the Seer: the Seer learns what he chose, as he would
        assert "fay" in cards(table, "cat")


def test_lupusburg_players_know_their_houses_the_thiefs_looks_and_the_privilege() -> None:
    houses = {
        "ann:left": "thief",
        "ann:right": "townsfolk",
        "bob:left": "werewolf",
        "bob:right": "townsfolk",
        "cat:left": "townsfolk",
        "cat:right": "townsfolk",
    }
    table = Table(
        "lupusburg",
        ("ann", "bob", "cat"),
        houses,
        moves=[("ann", "peek", "bob:right"), ("cat", "peek", "bob:left"), ("cat", "privilege", "ann:left")],
        shown={("ann", "cat:right")},
    )
    assert cards(table, "ann") == {"ann:left", "ann:right", "bob:right", "cat:right"}
    assert cards(table, "bob") == {"bob:left", "bob:right"}
    assert cards(table, "cat") == {"cat:left", "cat:right", "ann:left"}  # a Townsfolk does not peek


def test_the_table_names_its_sources_and_every_character_is_somewhere() -> None:
    assert all(rule.source and rule.learns for rule in TABLE)
    named = " ".join(f"{rule.character} {' '.join(NOTHING)}" for rule in TABLE).casefold()
    for role in engine.Role:
        assert role.value.replace("_", " ") in named.replace("_", " "), role


def test_an_engine_that_tells_everyone_the_vision_fails_the_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check does not take the engine's word: with every player told the Seer's vision (the
    engine's own views saying they were told), some text leaks a card."""
    monkeypatch.setattr(seer, "sharers", lambda table, slot: list(table.start.players))
    info = render.Info("K7Q", "Europe/Rome", None)
    found, looked = [], 0
    for seed in range(400):
        state, events, _, moves = random_game(seed)
        visions = [e for e in events if e.key == "seer.result"]
        if not visions:
            continue  # (the Seer looked at nobody)
        looked += 1
        table = table_of(state, moves)
        for player in state.players:
            c, m = known(table, player)
            for e in visions:
                if render.reads(e.to, player):
                    text = render.for_reader(e.key, e.data, e.to, render.Reader(player, "en"), info)
                    found += leaks(text, player, "en", dict(table.dealt), c, m)
        if looked == 5:
            break
    assert looked == 5 and found
