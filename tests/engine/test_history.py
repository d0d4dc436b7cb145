"""The Moderator's notebook (``Table.note``): what happened at each close, every death with its cause
and its killers, the lives saved and by whom, the looks as their makers were told them, the last
choice only; it leaves the engine only once the game is over."""

from __future__ import annotations

from typing import Any

import engine
from engine import Phase
from engine.record import replay
from tests.engine.lupusburg.lupusburg_helpers import four, play
from tests.scenario import RECORDS, record_from

TWELVE = "[ann, bob, cat, dan, eve, fay, gus, hal, ivy, jon, kim, leo]"


def _history(record: str) -> list[dict[str, Any]]:
    state = replay(record_from(record)).state
    return list(engine.moderator_view(state)["history"])


def _game(roles: str, *moves: str) -> str:
    lines = "\n".join(f"  - {m}" for m in moves)
    return f"rules: tabula\nseed: 3\nplayers: {TWELVE}\nroles: {{{roles}}}\nmoves:\n{lines}\n"


BASE = (
    "ann: werewolf, bob: werewolf, cat: seer, dan: villager, eve: bodyguard, fay: villager, gus: villager, "
    "hal: villager, ivy: villager, jon: villager, kim: villager, leo: villager"
)


def test_a_changed_choice_is_noted_once_as_the_one_that_counted() -> None:
    noted = _history(
        _game(BASE, "ann: kill fay", "bob: kill hal", "ann: kill hal", "cat: see dan", "cat: see ann", "end")
    )
    assert noted == [
        {"night": 1, "what": "look", "by": ["cat"], "target": "ann", "as_card": "seer", "were": True},
        {"night": 1, "what": "killed", "by": ["ann", "bob"], "player": "hal", "cause": "werewolves"},
    ]


def test_the_bodyguard_saving_the_packs_victim_is_noted_and_nobody_died() -> None:
    moves = ["ann: kill fay", "end", "dan: vote gus", "end", "end", "ann: kill hal", "eve: protect hal", "end"]
    noted = [n for n in _history(_game(BASE, *moves)) if n.get("night") == 2]
    assert noted == [
        {
            "night": 2,
            "what": "saved",
            "by": ["ann"],
            "player": "hal",
            "cause": "werewolves",
            "why": "protected",
            "savers": ["eve"],
        }
    ]


def test_the_lynching_is_noted_with_its_day() -> None:
    moves = ["ann: kill fay", "end", "dan: vote gus", "end", "end"]
    assert _history(_game(BASE, *moves))[-1] == {
        "day": 1,
        "what": "killed",
        "by": [],
        "player": "gus",
        "cause": "lynched",
    }


def test_dorian_wolfs_portrait_saves_him_and_kills_its_holder() -> None:
    noted = _history((RECORDS / "expansion" / "dorian_wolf_saved_by_his_portrait.yaml").read_text())
    assert [n["what"] for n in noted] == ["portrait", "saved", "killed"]
    assert noted[0] == {"night": 1, "what": "portrait", "by": ["dan"], "target": "eve"}
    assert noted[1] == {
        "night": 1,
        "what": "saved",
        "by": ["ann"],
        "player": "dan",
        "cause": "werewolves",
        "why": "portrait",
        "savers": [],
    }
    assert noted[2] == {"night": 1, "what": "killed", "by": ["dan"], "player": "eve", "cause": "portrait"}


def test_hamlets_skull_takes_its_holder_with_him() -> None:
    noted = _history((RECORDS / "expansion" / "hamlet_takes_the_skull_holder_with_him.yaml").read_text())
    night2 = [n for n in noted if n.get("night") == 2]
    assert night2 == [
        {"night": 2, "what": "killed", "by": ["ann"], "player": "dan", "cause": "werewolves"},
        {"night": 2, "what": "killed", "by": ["dan"], "player": "hal", "cause": "skull"},
    ]


def test_the_werehamster_seen_dies_of_the_look() -> None:
    noted = _history((RECORDS / "expansion" / "fortune_teller_kills_the_werehamster.yaml").read_text())
    assert {"night": 1, "what": "killed", "by": ["eve"], "player": "fay", "cause": "seen"} in noted


def test_mr_hyde_kills_and_baron_samedi_revives_whom() -> None:
    noted = _history((RECORDS / "expansion" / "dr_jekyll_bodyguard_does_not_stop_him.yaml").read_text())
    assert {"night": 2, "what": "killed", "by": ["dan"], "player": "fay", "cause": "potion"} in noted
    noted = _history((RECORDS / "expansion" / "baron_samedi_revives.yaml").read_text())
    assert {"night": 2, "what": "revived", "by": ["eve"], "player": "dan"} in noted


def test_the_notebook_is_told_only_once_the_game_is_over() -> None:
    moves = ["ann: kill fay", "end"]
    state = replay(record_from(_game(BASE, *moves))).state
    assert engine.moderator_view(state)["history"]
    assert "history" not in engine.public_view(state)
    assert "history" not in engine.view(state, "ann")["public"]
    over = replay(record_from((RECORDS / "tabula" / "example_humans_win.yaml").read_text())).state
    assert over.phase is Phase.OVER and engine.public_view(over)["history"]


def test_lupusburg_notes_the_werewolfs_claw_and_the_thiefs_look() -> None:
    state, _ = play(four(), "bob: peek cat:left", "ann: kill cat:left", "end")
    assert engine.moderator_view(state)["history"] == [
        {
            "night": 1,
            "what": "look",
            "by": ["bob"],
            "target": "cat:left",
            "as_card": "thief",
            "card": "townsfolk",
            "chest": True,
        },
        {"night": 1, "what": "killed", "by": ["ann"], "player": "cat:left", "cause": "werewolf"},
    ]
    assert "history" not in engine.public_view(state)
