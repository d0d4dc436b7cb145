"""`lupus replay` as a player or a developer would run it."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from service.cli import app

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "first-game.yaml"
runner = CliRunner()


def test_replay_prints_where_the_game_stands() -> None:
    result = runner.invoke(app, ["replay", str(EXAMPLE)])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["status"] == "over" and out["phase"] == "over" and out["day"] == 2
    assert out["alive"] == ["eve", "fay", "gus", "hal"]
    assert out["dead"] == ["dan", "ann", "cat", "bob"]
    assert out["lynched"] == ["ann", "bob"]
    assert out["winners"] == ["cat", "dan", "eve", "fay", "gus", "hal"]


def test_replay_of_a_running_game(tmp_path: Path) -> None:
    rec = tmp_path / "g.yaml"
    rec.write_text(EXAMPLE.read_text().split("  # Day 1")[0])
    out = json.loads(runner.invoke(app, ["replay", str(rec)]).stdout)
    assert out["status"] == "running" and out["phase"] == "nominations" and out["day"] == 1
    assert out["winners"] == [] and out["dead"] == ["dan"]


def test_replay_as_a_player_shows_only_what_he_was_told(tmp_path: Path) -> None:
    out = json.loads(runner.invoke(app, ["replay", str(EXAMPLE), "--as", "cat"]).stdout)
    keys = [e["key"] for e in out["told"]]
    assert "seer.result" in keys and "werewolf.pack" not in keys
    assert out["view"]["role"] == "seer"
    dan = json.loads(runner.invoke(app, ["replay", str(EXAMPLE), "--as", "dan"]).stdout)
    assert "seer.result" not in [e["key"] for e in dan["told"]]


def test_an_illegal_move_stops_with_status_2_naming_the_move(tmp_path: Path) -> None:
    rec = tmp_path / "bad.yaml"
    rec.write_text(
        "rules: tabula\nseed: 1\nplayers: [ann, bob, cat, dan, eve, fay, gus, hal]\n"
        "roles: {ann: werewolf, bob: werewolf, cat: seer, dan: villager, eve: villager, fay: villager,"
        " gus: villager, hal: villager}\nmoves:\n  - ann: kill dan\n  - dan: see ann\n"
    )
    result = runner.invoke(app, ["replay", str(rec)])
    assert result.exit_code == 2
    assert "move 2" in result.stderr and "dan: see ann" in result.stderr and "no such power" in result.stderr


def test_malformed_records_are_refused_clearly(tmp_path: Path) -> None:
    for text in (
        "rules: tabula\nplayers: ann\n",
        "::: not yaml",
        "rules: chess\nplayers: [a]\n",
        "rules: tabula\nseed: 1\nplayers: [a, b]\nmoves: []\n",
    ):
        rec = tmp_path / "x.yaml"
        rec.write_text(text)
        result = runner.invoke(app, ["replay", str(rec)])
        assert result.exit_code == 2, text
        assert result.stderr.strip()
    result = runner.invoke(app, ["replay", str(EXAMPLE), "--as", "zed"])
    assert result.exit_code == 2
