"""Rows in flight keep their lease while their sends run: the dispatcher waits for a round's sends a
third of the lease at a time and renews the lease of the rows still in flight in between. So a
lease can be seconds long (a dead worker's rows go again seconds after its death) however long a
live worker's send takes (a sender gives up after 30 s). See docs/decisions/0260."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future, wait
from typing import TypeVar

T = TypeVar("T")


def results(futures: Sequence[Future[T]], renew: Callable[[], None], every: float) -> list[T]:
    """Each future's result, in order, calling ``renew`` each time ``every`` seconds pass with some
    still running."""
    pending = set(futures)
    while pending:
        _, pending = wait(pending, timeout=every)
        if pending:
            renew()
    return [f.result() for f in futures]
