"""A close's events in the order of the rulebook's dawn: the deaths first, then what the dead's
cards did (a Portrait, a Skull, the Deadalive), then the day (``PhaseRule.opens``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import LupusError
from engine.record import ReplayError, steps
from tests.scenario import RECORDS, record_from

FILES = sorted(RECORDS.rglob("*.yaml"))


def _closes(path: Path) -> list[list[str]]:
    """The event keys of each night's close in a record that plays to its end (or to its error)."""
    found: list[list[str]] = []
    try:
        for _pos, move, _state, events in steps(record_from(path.read_text())):
            keys = [e.key for e in events]
            if move is not None and move.actor is None and "night.dawn" in keys:
                found.append(keys)
    except (LupusError, ReplayError):  # a record that expects an error: its closes before it count
        pass
    return found


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(RECORDS)) for p in FILES])
def test_every_night_close_opens_with_the_dawn(path: Path) -> None:
    for keys in _closes(path):
        assert keys[0] == "night.dawn", keys


def test_the_revived_are_told_after_the_nights_deaths() -> None:
    (_, revived) = _closes(RECORDS / "expansion" / "baron_samedi_revives.yaml")
    assert revived.index("night.dawn") < revived.index("baron_samedi.revived"), revived


def test_dorian_wolfs_portrait_is_told_after_the_death_it_caused() -> None:
    closes = _closes(RECORDS / "expansion" / "dorian_wolf_saved_by_his_portrait.yaml")
    keys = next(k for k in closes if "dorian_wolf.revealed" in k)
    assert keys.index("night.dawn") < keys.index("dorian_wolf.revealed"), keys
