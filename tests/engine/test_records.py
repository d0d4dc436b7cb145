"""Every scenario record under tests/records/ plays as its expectations say."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scenario import RECORDS, check_scenario

FILES = sorted(RECORDS.rglob("*.yaml"))


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(RECORDS)) for p in FILES])
def test_scenario(path: Path) -> None:
    check_scenario(path)
