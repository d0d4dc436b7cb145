from __future__ import annotations

from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from typer.testing import CliRunner

from service.cli import app
from service.settings import get_settings
from service.texts.i18n import zone_name

from .conftest import Harness
from .play import open_game, start


def test_db_upgrade_and_games(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'cli.db'}")
    get_settings.cache_clear()
    try:
        runner = CliRunner()
        result = runner.invoke(app, ["db", "upgrade"])
        assert result.exit_code == 0, result.output
        assert (tmp_path / "cli.db").exists()
        from service.game.app import Service

        svc = Service()
        svc.handle_inbound("test", "host", "1", "new")
        result = runner.invoke(app, ["games"])
        assert result.exit_code == 0 and "lobby" in result.output
        svc.db.dispose()
    finally:
        get_settings.cache_clear()


def test_games_lists_each_game_with_its_phase_and_deadline(h: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    h.say("lee", "new")
    lobby = h.game().code
    running = open_game(h)
    start(h)
    game = h.game(running)
    assert game.deadline is not None
    monkeypatch.setenv("DATABASE_URL", str(h.db.url.render_as_string(hide_password=False)))
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(app, ["games"])
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 0, result.output
    lines = {line.split()[0]: line.split() for line in result.output.splitlines()}
    assert lines[lobby][1:5] == ["lobby", "phase", "0", "-"], lines[lobby]
    # The deadline in the game's own time zone, which is named, and the zone itself (UTC before).
    zone = ZoneInfo(game.timezone)
    local = game.deadline.astimezone(zone)
    assert lines[running][1:6] == ["running", "phase", str(game.phase_no), "night", local.strftime("%Y-%m-%d")], lines[
        running
    ]
    assert lines[running][6:9] == [local.strftime("%H:%M"), zone_name(game.deadline, zone), game.timezone]
    assert lines[running][9:11] == ["8", "players"], lines[running]
