"""`lupus replay` of an ``aura`` record prints the same keys as for ``tabula``, running or over."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from service.cli import app

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
AURA, TABULA = EXAMPLES / "aura-game.yaml", EXAMPLES / "first-game.yaml"
runner = CliRunner()


def replayed(path: Path, *args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["replay", str(path), *args])
    assert result.exit_code == 0, result.output
    out: dict[str, Any] = json.loads(result.stdout)
    return out


def cut(path: Path, marker: str, into: Path) -> Path:
    into.write_text(path.read_text().split(marker)[0])
    return into


def test_aura_replay_prints_the_tabula_keys_at_the_end() -> None:
    aura, tabula = replayed(AURA), replayed(TABULA)
    assert set(aura) == set(tabula)
    assert aura["status"] == "over" and aura["team"] == "humans" and aura["winners"] == ["dan", "eve"]
    assert aura["lynched"] == ["ann", "ann"] and aura["dead"] == ["ann"]


def test_aura_replay_prints_the_tabula_keys_while_running(tmp_path: Path) -> None:
    aura = replayed(cut(AURA, "  # Day 1", tmp_path / "a.yaml"))
    tabula = replayed(cut(TABULA, "  # Day 1", tmp_path / "t.yaml"))
    assert set(aura) == set(tabula)
    assert aura["status"] == "running" and aura["phase"] == "nominations" and aura["day"] == 1
    assert aura["alive"] == ["ann", "bob", "cat", "dan", "eve"] and aura["winners"] == []


def test_aura_replay_as_a_player() -> None:
    eve = replayed(AURA, "--as", "eve")
    assert eve["view"]["role"] == "miss_purple"
    told = [e for e in eve["told"] if e["key"] == "miss_purple.aura"]
    assert told and told[0]["data"] == {"aura": "wicked", "night": 2}
    assert "werewolf.pack" not in [e["key"] for e in eve["told"]]
