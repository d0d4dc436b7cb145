"""What waits in the worker's queue, for ``lupus outbox``: Redis's list, or the embedded broker's
SQLite file (read-only)."""

from __future__ import annotations

from pathlib import Path

from service.ops.preflight import reason
from service.settings import redis_tls_options


def broker_depth(redis_url: str | None, queue: str = "lupus", data_dir: Path = Path("var")) -> str:
    """Messages waiting in the worker's queue, as a line for people: Redis, or the embedded broker."""
    if redis_url:
        import redis

        client = redis.Redis.from_url(
            redis_url, socket_timeout=3, socket_connect_timeout=3, **redis_tls_options(redis_url)
        )
        try:
            return f"redis, {client.llen(queue)} queued"
        except redis.RedisError as e:
            return f"redis unreachable ({reason(e)})"
        finally:
            client.close()
    import sqlite3

    path = data_dir / "celery.db"
    if not path.exists():
        return "embedded (no queue yet)"
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
            (n,) = conn.execute(
                "SELECT count(*) FROM kombu_message m JOIN kombu_queue q ON m.queue_id = q.id "
                "WHERE q.name = ? AND m.visible",
                (queue,),
            ).fetchone()
    except sqlite3.Error as e:
        return f"embedded, unreadable ({e})"
    return f"embedded, {n} queued"
