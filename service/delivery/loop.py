"""A long-lived asyncio event loop in a background thread, for synchronous callers.

python-telegram-bot is asynchronous and a `Bot` (with its httpx connection pool) belongs to the
loop it was initialized on. A synchronous Celery worker therefore keeps one loop per process, in a
thread, and submits coroutines to it, instead of `asyncio.run` per message (a new loop, a new pool
and a new TLS handshake every time). After a fork (Celery's prefork pool) the thread does not exist
in the child: `BackgroundLoop.for_this_process` notices the new pid and starts a fresh one.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import threading
from collections.abc import Coroutine
from typing import Any, ClassVar, TypeVar

T = TypeVar("T")


class BackgroundLoop:
    def __init__(self, name: str = "lupus-loop") -> None:
        self.pid = os.getpid()
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    @property
    def alive(self) -> bool:
        return self.pid == os.getpid() and self._thread.is_alive() and not self.loop.is_closed()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run `coro` on the loop and wait for its result; on timeout it is cancelled and
        `TimeoutError` raised. Never call this from the loop's own thread."""
        if threading.current_thread() is self._thread:
            coro.close()
            raise RuntimeError("BackgroundLoop.run called from its own thread")
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise TimeoutError(f"no answer within {timeout} s") from None

    def stop(self, timeout: float = 5.0) -> None:
        """Cancel what still runs on the loop, then end the thread."""
        if not self.alive:
            return

        async def drain() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        with contextlib.suppress(TimeoutError, RuntimeError):
            self.run(drain(), timeout)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout)
        if not self._thread.is_alive():
            self.loop.close()

    _current: ClassVar[BackgroundLoop | None] = None
    _lock: ClassVar[threading.Lock] = threading.Lock()

    @classmethod
    def _after_fork(cls) -> None:
        # The child has no loop thread, and a lock held by another parent thread at fork time would
        # stay held for ever.
        cls._current = None
        cls._lock = threading.Lock()

    @classmethod
    def for_this_process(cls) -> BackgroundLoop:
        """The process-wide loop, started on first use and again after a fork."""
        with cls._lock:
            if cls._current is None or not cls._current.alive:
                cls._current = cls()
            return cls._current


os.register_at_fork(after_in_child=BackgroundLoop._after_fork)
