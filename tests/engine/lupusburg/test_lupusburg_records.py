"""Every game record in tests/records/lupusburg/ replays to what its ``expect`` says, and tells
nobody a character he may not know."""

from __future__ import annotations

import pytest
import yaml
from lupusburg_helpers import RECORDS, check_secrecy

from engine import summary
from engine.lupusburg.state import LupusburgState
from engine.record import load_record, steps

FILES = sorted(RECORDS.glob("*.yaml"))


def test_there_are_records() -> None:
    assert len(FILES) >= 3


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_record_replays_as_expected(path) -> None:  # type: ignore[no-untyped-def]
    text = path.read_text(encoding="utf-8")
    expect = yaml.safe_load(text)["expect"]
    before = None
    state = None
    for _, _, state, events in steps(load_record(text)):
        assert isinstance(state, LupusburgState)
        check_secrecy(before or state, events)
        before = state
    assert state is not None
    got = summary(state)
    assert {k: got.get(k) for k in expect} == expect
