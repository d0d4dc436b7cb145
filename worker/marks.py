"""Short-lived marks, so a sweep does not enqueue the same work again while it is still queued.

`first(keys, seconds)` says, for each key, whether this caller is the first (then false for everyone
until the mark expires). With Redis, a `SET NX PX` per key, all in one round trip, for the whole
deployment; without it (the embedded broker: one machine), a mark per
process, which at worst lets two processes enqueue the same idempotent task once each. A mark only
saves work: when it expires while its task is lost (a Redis restart empties the queue, a worker
killed mid-task waits out the visibility timeout), the next sweep finds the game still due and
enqueues it again, so a deadline is never lost, only late by the mark's life. A worker holding a
close shortens its mark to a lease it renews (`renew`, from `worker.leases`), so a worker killed
holding one lets it go within seconds. A worker that starts drops every mark (`forget`, from
`worker.app`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any, Protocol


class Marks(Protocol):
    def first(self, keys: Sequence[str], seconds: float) -> list[bool]: ...

    def renew(self, keys: Sequence[str], seconds: float) -> None:
        """Set each key's mark to expire `seconds` from now (made again if it was gone)."""
        ...

    def forget(self) -> int:
        """Drop every mark (the next caller of each key is first again); returns how many there were."""
        ...


class MemoryMarks:
    def __init__(self) -> None:
        self._until: dict[str, float] = {}
        self._lock = threading.Lock()

    def first(self, keys: Sequence[str], seconds: float) -> list[bool]:
        now = time.monotonic()
        out = []
        with self._lock:
            if len(self._until) > 10_000:  # forget the expired ones now and then
                self._until = {k: t for k, t in self._until.items() if t > now}
            for key in keys:
                new = self._until.get(key, 0.0) <= now
                if new:
                    self._until[key] = now + seconds
                out.append(new)
        return out

    def renew(self, keys: Sequence[str], seconds: float) -> None:
        until = time.monotonic() + seconds
        with self._lock:
            self._until.update(dict.fromkeys(keys, until))

    def forget(self) -> int:
        with self._lock:
            now = time.monotonic()
            held = sum(t > now for t in self._until.values())
            self._until = {}
        return held


class RedisMarks:
    PREFIX = "lupus:mark:"

    def __init__(self, client: Any) -> None:
        self._redis = client

    def first(self, keys: Sequence[str], seconds: float) -> list[bool]:
        if not keys:
            return []
        pipe = self._redis.pipeline(transaction=False)
        for key in keys:
            pipe.set(self.PREFIX + key, 1, nx=True, px=max(1, int(seconds * 1000)))
        return [bool(r) for r in pipe.execute()]

    def renew(self, keys: Sequence[str], seconds: float) -> None:
        if not keys:
            return
        pipe = self._redis.pipeline(transaction=False)
        for key in keys:
            pipe.set(self.PREFIX + key, 1, px=max(1, int(seconds * 1000)))
        pipe.execute()

    def forget(self) -> int:
        keys = list(self._redis.scan_iter(match=self.PREFIX + "*", count=1000))
        for i in range(0, len(keys), 1000):
            self._redis.unlink(*keys[i : i + 1000])
        return len(keys)


def make_marks(redis_url: str | None, redis_options: Mapping[str, Any] | None = None) -> Marks:
    if not redis_url:
        return MemoryMarks()
    import redis

    return RedisMarks(redis.Redis.from_url(redis_url, **dict(redis_options or {})))
