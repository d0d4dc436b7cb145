"""The worker's dispatch tasks in process, on a clock that flows and jumps: what the order and merging
tests run instead of Celery. Each command's new outbox ids become a task at once (``after_commit``),
a task that held rows back enqueues them again with its countdown (as ``worker.tasks`` does), and
beat's outbox sweep runs every ``OUTBOX_SWEEP_SECONDS``. Tasks run one at a time in the order they
fell due, as one worker process runs them; ``busy`` is that worker taken up by something else for a
while, after which what fell due meanwhile runs in a row."""

from __future__ import annotations

import heapq
import itertools
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta

from service.delivery.dispatch import Report, deliver
from service.delivery.limiter import MemoryLimiter, Policy
from service.delivery.senders import Sender
from tests.worker.conftest import Clock, Table


class FlowingClock(Clock):
    """Real time plus what the test skips (``jump``: both clocks), and the game's clock (``now``)
    further ahead by what the test moves it (a deadline passing in seconds, as the worker tests'
    clock does): the limiter and the tasks' countdowns keep to ``seconds``, as in the worker,
    where they are real time whatever the game's clock says."""

    def __init__(self) -> None:
        self.start = time.monotonic()
        self.skipped = 0.0
        self.game_lead = 0.0

    def seconds(self) -> float:
        return time.monotonic() + self.skipped

    @property
    def now(self) -> datetime:
        return datetime(2026, 3, 2, 9, 0, tzinfo=UTC) + timedelta(seconds=self.seconds() - self.start + self.game_lead)

    @now.setter
    def now(self, when: datetime) -> None:
        self.game_lead += max(0.0, (when - self.now).total_seconds())

    def __call__(self) -> datetime:
        return self.now

    def jump(self, seconds: float) -> None:
        self.skipped += max(0.0, seconds)


class Tasks:
    def __init__(self, table: Table, senders: Mapping[str, Sender], policy: Policy, sweep_every: float = 15.0) -> None:
        assert isinstance(table.clock, FlowingClock)
        self.table, self.senders, self.clock = table, senders, table.clock
        self.limiter = MemoryLimiter(policy, clock=self.clock.seconds)
        self.sweep_every = sweep_every
        self._seq = itertools.count()
        self._queue: list[tuple[float, int, list[int] | None]] = []
        self._next_sweep = self.clock.seconds() + sweep_every
        self.reports: list[Report] = []
        table.svc.after_commit = self.enqueue

    def enqueue(self, ids: Sequence[int] | None, countdown: float = 0.0) -> None:
        heapq.heappush(
            self._queue, (self.clock.seconds() + countdown, next(self._seq), None if ids is None else sorted(ids))
        )

    def due(self) -> None:
        """Run what is due now, in the order it fell due (and the sweep, when its time has come)."""
        while self._next_sweep <= self.clock.seconds():
            heapq.heappush(self._queue, (self._next_sweep, next(self._seq), None))
            self._next_sweep += self.sweep_every
        while self._queue and self._queue[0][0] <= self.clock.seconds():
            _, _, ids = heapq.heappop(self._queue)
            self.once(ids)

    def busy(self, seconds: float) -> None:
        """The worker does something else for ``seconds``: what falls due meanwhile waits."""
        self.clock.jump(seconds)

    def run(self, limit: float = 600.0, *, until_drained: bool = True) -> float:
        """Run the tasks as they fall due, skipping the time between them, until the outbox holds
        nothing to send (or, not ``until_drained``, for ``limit`` seconds); returns the seconds
        that passed."""
        started = self.clock.seconds()
        while True:
            self.due()
            if until_drained and not self.table.rows("pending") and not self.table.rows("sending"):
                return self.clock.seconds() - started
            nxt = min(self._queue[0][0] if self._queue else self._next_sweep, self._next_sweep)
            if nxt - started > limit:
                assert not until_drained, "the outbox never drained"
                return self.clock.seconds() - started
            self.clock.jump(nxt - self.clock.seconds())

    def once(self, ids: list[int] | None) -> Report:
        """One ``lupus.dispatch`` task (``ids`` None: the outbox sweep), as ``worker.tasks`` runs it."""
        report = deliver(self.table.db, self.senders, self.limiter, clock=self.clock, ids=ids, budget=5.0)
        self.reports.append(report)
        if (wait := report.soonest()) is not None and wait <= 30:
            self.enqueue(sorted(report.deferred), wait)
        return report
