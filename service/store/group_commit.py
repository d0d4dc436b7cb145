"""Group commit for the webhooks: messages that arrive while a transaction runs go in the next one.

A webhook answers once its message is committed (``service.web`` says why). Committed one by one,
every message paid for its own BEGIN, COMMIT and WAL flush, a pooled connection, and a thread of
its own among forty contending for the interpreter (at 16 requests in flight, about a sixth of the
web process's CPU a move, as bench/webhook measures it). Here each web process runs one transaction
at a time in one thread; the messages that came in meanwhile wait (the event loop keeps reading
requests) and then go together, in arrival order, through ``Service.handle_inbound_many``, which
falls back to one transaction each should the batch fail. A lone message still goes at once, alone.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from starlette.concurrency import run_in_threadpool

C = TypeVar("C")
R = TypeVar("R")

LIMIT = 64
"""Messages in one transaction at most: a batch holds its games' locks until it commits, and a
command's answer waits for the whole batch."""


class GroupCommit(Generic[C, R]):
    """``await group(message)``: the result ``run_many`` gave for it, or the exception it raised.
    ``run_many`` takes a list of messages and returns one result or exception for each, in order."""

    def __init__(self, run_many: Callable[[list[C]], Sequence[R | Exception]], limit: int = LIMIT) -> None:
        self._run_many = run_many
        self._limit = limit
        self._waiting: list[tuple[C, asyncio.Future[R]]] = []
        self._running = False
        self._task: asyncio.Task[None] | None = None  # held: the loop keeps only a weak reference

    async def __call__(self, message: C) -> R:
        future: asyncio.Future[R] = asyncio.get_running_loop().create_future()
        self._waiting.append((message, future))
        if not self._running:
            self._running = True
            self._task = asyncio.get_running_loop().create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        try:
            while self._waiting:
                batch, self._waiting = self._waiting[: self._limit], self._waiting[self._limit :]
                try:
                    results = await run_in_threadpool(self._run_many, [m for m, _ in batch])
                except Exception as e:  # run_many itself failed: every message in it did
                    results = [e] * len(batch)
                for (_, future), result in zip(batch, results, strict=True):
                    if future.done():  # its request was cancelled (the client went away)
                        continue
                    if isinstance(result, Exception):
                        future.set_exception(result)
                    else:
                        future.set_result(result)
        finally:
            self._running = False
