"""`lupus outbox`: depth by status, and the broker's queue depth (embedded SQLite broker and Redis)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from service.cli import app
from service.ops.queue import broker_depth
from service.settings import get_settings
from tests.databases import no_redis, redis_url


def test_outbox_counts_by_status(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'cli.db'}")
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    get_settings.cache_clear()
    try:
        runner = CliRunner()
        unmigrated = runner.invoke(app, ["outbox"])
        assert unmigrated.exit_code == 1 and "lupus db upgrade" in unmigrated.output
        assert runner.invoke(app, ["db", "upgrade"]).exit_code == 0
        from service.game.app import Service

        svc = Service()
        svc.handle_inbound("test", "host", "1", "new")
        svc.handle_inbound("test", "host", "2", "help")
        result = runner.invoke(app, ["outbox"])
        assert result.exit_code == 0, result.output
        lines = dict(line.split(None, 1) for line in result.output.splitlines() if line and line[0] != "o")
        from sqlmodel import Session, select

        from service.store.models import Outbox

        with Session(svc.db) as s:
            pending = len(s.exec(select(Outbox.id).where(Outbox.status == "pending")).all())
        assert pending >= 2
        assert lines["pending"] == str(pending) and lines["sent"] == lines["failed"] == "0"
        assert "oldest pending due" in result.output
        assert "embedded (no queue yet)" in lines["broker"]
        svc.db.dispose()
    finally:
        get_settings.cache_clear()


def test_embedded_broker_depth(tmp_path: Path) -> None:
    from worker.celery_app import make_celery

    celery = make_celery(None, data_dir=tmp_path, include=[])
    celery.send_task("lupus.nothing", args=[1])
    celery.send_task("lupus.nothing", args=[2])
    assert broker_depth(None, data_dir=tmp_path) == "embedded, 2 queued"


@pytest.mark.redis
def test_redis_queue_depth() -> None:
    import redis

    url, queue = redis_url(13), f"lupus-sandbox-test-{uuid.uuid4().hex}"
    client = redis.Redis.from_url(url)
    try:
        client.ping()
    except redis.RedisError:
        no_redis(url)
    try:
        client.lpush(queue, "a", "b", "c")
        assert broker_depth(url, queue=queue) == "redis, 3 queued"
    finally:
        client.delete(queue)
        client.close()
    assert broker_depth("redis://127.0.0.1:1/0").startswith("redis unreachable")
