"""Every game record in tests/records/lupusburg/ replays to what its ``expect`` says, and tells
nobody a character he may not know."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from engine import summary
from engine.lupusburg.state import LupusburgState
from engine.record import load_record, steps

from .lupusburg_helpers import RECORDS, check_secrecy

ALL = sorted(RECORDS.glob("*.yaml"))
#: Records played to their end; the others stop at a refused move (``expect_error``), which
#: tests/engine/test_records.py checks.
FILES = [p for p in ALL if "expect" in yaml.safe_load(p.read_text(encoding="utf-8"))]


def test_there_are_records() -> None:
    assert len(FILES) >= 3
    for p in ALL:
        raw = yaml.safe_load(p.read_text(encoding="utf-8"))
        assert ("expect" in raw) != ("expect_error" in raw), f"{p.name}: expect or expect_error, one of them"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_record_replays_as_expected(path: Path) -> None:
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


def test_rulebook_example_votes_available_in_the_second_ballot() -> None:
    """ "Andrew 1 vote, Bea 1 vote for her unsuspected character, Carl 2 votes, David 0 votes and
    Emma 1 vote": each living character that is not a suspect gives its owner one vote."""
    from engine.lupusburg.voting import ballot_votes
    from engine.types import Phase

    text = (RECORDS / "rulebook-voting-example.yaml").read_text(encoding="utf-8")
    ballots = [
        s for _, _, s, _ in steps(load_record(text)) if isinstance(s, LupusburgState) and s.phase is Phase.BALLOT
    ]
    day2 = next(s for s in ballots if s.day == 2)
    assert day2.burgomaster == "andrew" and day2.suspects == ("bea:left", "david:left")
    assert {p: ballot_votes(day2, p) for p in day2.players} == {"andrew": 1, "bea": 1, "carl": 2, "david": 0, "emma": 1}


def test_lupus_replay_prints_houses_players_and_scores() -> None:
    """`lupus replay` on a Lupusburg record: alive and dead as houses, winners as players, scores."""
    import json

    from typer.testing import CliRunner

    from service.cli import app

    result = CliRunner().invoke(app, ["replay", str(RECORDS / "full-scored-game.yaml")])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["status"] == "over" and out["phase"] == "over" and out["day"] == 3
    assert out["alive"] == ["andrew:right", "bea:right", "carl:right", "emma:left"]
    assert out["dead"][0] == "andrew:left" and out["lynched"][-1] == "david:left"
    assert out["winners"] == ["bea"]
    assert out["scores"] == {"andrew": 4, "bea": 4, "carl": 4, "david": 0, "emma": 3}
    running = json.loads(CliRunner().invoke(app, ["replay", str(RECORDS / "rulebook-voting-example.yaml")]).stdout)
    assert running["status"] == "running" and running["winners"] == [] and "scores" not in running
    told = json.loads(
        CliRunner().invoke(app, ["replay", str(RECORDS / "rulebook-voting-example.yaml"), "--as", "emma"]).stdout
    )
    assert "privilege.seen" in [e["key"] for e in told["told"]]
    assert told["view"]["role"] == "townsfolk"
