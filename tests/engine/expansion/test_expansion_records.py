"""Every scenario in tests/records/expansion: one per character, per rulebook note, per Aura rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from .records import RECORDS, check

FILES = sorted(RECORDS.glob("*.yaml"))


def test_there_are_scenarios() -> None:
    assert len(FILES) >= 30


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario(path: Path) -> None:
    check(path)
