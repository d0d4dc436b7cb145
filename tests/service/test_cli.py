from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from service.cli import app
from service.settings import get_settings


def test_db_upgrade_and_games(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'cli.db'}")
    get_settings.cache_clear()
    try:
        runner = CliRunner()
        result = runner.invoke(app, ["db", "upgrade"])
        assert result.exit_code == 0, result.output
        assert (tmp_path / "cli.db").exists()
        from service.app import Service

        svc = Service()
        svc.handle_inbound("test", "host", "1", "new")
        result = runner.invoke(app, ["games"])
        assert result.exit_code == 0 and "lobby" in result.output
        svc.db.dispose()
    finally:
        get_settings.cache_clear()
