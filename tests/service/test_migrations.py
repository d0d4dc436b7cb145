"""The migrations build exactly the tables the models describe, on SQLite and PostgreSQL,
and the settings rewrite the URLs Heroku and Fly hand out."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Engine
from sqlmodel import SQLModel

from service.settings import Settings, normalize_database_url
from service.store import models  # noqa: F401


def test_migrations_match_the_models(db: Engine) -> None:
    with db.connect() as conn:
        ctx = MigrationContext.configure(conn, opts={"render_as_batch": db.dialect.name == "sqlite"})
        diff = compare_metadata(ctx, SQLModel.metadata)
    assert diff == []


def test_database_urls_from_the_platforms_are_rewritten() -> None:
    assert normalize_database_url("postgres://u:p@h:5432/d") == "postgresql+psycopg://u:p@h:5432/d"
    assert normalize_database_url("postgresql://u@h/d") == "postgresql+psycopg://u@h/d"
    assert normalize_database_url("sqlite:///var/x.db") == "sqlite:///var/x.db"
    assert Settings(DATABASE_URL="postgres://h/d").DATABASE_URL == "postgresql+psycopg://h/d"


def test_ci_fails_instead_of_skipping_the_postgresql_half(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.databases import no_postgres

    monkeypatch.delenv("LUPUS_REQUIRE_POSTGRES", raising=False)
    with pytest.raises(pytest.skip.Exception):
        no_postgres()
    monkeypatch.setenv("LUPUS_REQUIRE_POSTGRES", "1")
    with pytest.raises(pytest.fail.Exception):
        no_postgres()
    assert "LUPUS_REQUIRE_POSTGRES=1" in (Path(__file__).parents[2] / ".ci" / "run").read_text()
