"""The database connections a web or worker process pools are replaced before a proxy on the way
closes them: Fly's proxy drains a connection within 10 minutes, PgBouncer and Heroku's router have
their own limits, and a connection found closed costs a command its first try."""

from __future__ import annotations

from service.settings import Settings
from service.web import Web

FLY_DRAINS_WITHIN = 600  # seconds (deploy/README.md cites it)


def test_pooled_connections_are_recycled_within_what_the_proxy_keeps_open() -> None:
    default = Settings(_env_file=None)  # type: ignore[call-arg]
    assert 0 < default.DB_POOL_RECYCLE_SECONDS < FLY_DRAINS_WITHIN
    cfg = Settings(
        _env_file=None,
        DATABASE_URL="postgresql+psycopg://lupus@127.0.0.1:9/lupus",  # type: ignore[call-arg]
        DB_POOL_RECYCLE_SECONDS=240,
    )
    assert cfg.db_pool("worker")["pool_recycle"] == 240  # the worker's engine (worker.runtime)
    web = Web(cfg, None)
    try:
        assert web.service.db.pool._recycle == 240  # made without connecting
    finally:
        web.service.db.dispose()
