"""The migrations build exactly the tables the models describe, on SQLite and PostgreSQL,
and the settings rewrite the URLs Heroku and Fly hand out."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Engine
from sqlmodel import SQLModel

from service import models  # noqa: F401
from service.settings import Settings, normalize_database_url


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
