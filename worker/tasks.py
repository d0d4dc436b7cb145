"""The worker's tasks: each takes ids or nothing, calls one domain function, and is idempotent
(a phase closes only if its number is still current; a row is sent only if it can be claimed).
No task is scheduled further ahead than MAX_COUNTDOWN seconds: longer waits live in the database.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import structlog
from celery import Task

from service.delivery.dispatch import deliver
from service.delivery.senders import PermanentReason
from service.game.failures import tell_hosts_lost, tell_hosts_mute_refused
from service.game.reminders import remind, tell_hosts_unreachable
from worker import runtime
from worker.app import app
from worker.celery_app import RetryLater
from worker.pump import pump
from worker.sweeps import enqueue_due

MAX_COUNTDOWN = 30.0
SWEEP_MARGIN = 1.0  # seconds: a sweep looks this far past the next one (beat is not exact)
# Seconds of sending per pass: the pump (`worker.pump`) runs pass after pass while texts are due, and
# each stops early if the worker is stopping; a task run in its caller's process (eager: tests, the
# sandbox) sends for this long itself. What a pass leaves goes with the next: the one it enqueues for
# the rows the limiter held back, or the outbox sweep.
DISPATCH_BUDGET = 3.0
# Seconds a pump's pass may go on, a second at a time, while the worker is not stopping: each stop and
# start of a pass leaves a few tenths of a second of the bot's slots unused (bench/capacity).
DISPATCH_MOST = 30.0
log = structlog.get_logger("lupus.worker")


@app.task(name="lupus.close_phase")
def close_phase(game_id: int, phase_no: int, at: float | None = None) -> bool:
    # `at`: the deadline (POSIX seconds) the sweep enqueued it for, which names its lease
    # (worker.leases). Run before it (a countdown cut short, another machine's clock): again when due.
    if at is not None and (early := at - runtime.clock().timestamp()) > 0:
        raise RetryLater(min(early, MAX_COUNTDOWN), "before its deadline")
    with structlog.contextvars.bound_contextvars(game=game_id, phase_no=phase_no):
        closed = runtime.service().close_phase(game_id, phase_no)
        # One line per close for the operator (`phase.stale`: closed already, moved, paused or over).
        log.info("phase.closed" if closed else "phase.stale", game=game_id, phase_no=phase_no)
        return closed


@app.task(name="lupus.sweep_deadlines")
def sweep_deadlines() -> int:
    # Fans the closes out to every worker process (see worker.sweeps), over one broker connection;
    # what falls due before the next sweep waits in the worker for its deadline.
    ahead = min(MAX_COUNTDOWN, runtime.settings().SWEEP_SECONDS + SWEEP_MARGIN)

    with app.producer_or_acquire() as producer:

        def enqueue(game_id: int, phase_no: int, deadline: datetime) -> None:
            wait = (deadline - runtime.clock()).total_seconds()
            close_phase.apply_async(
                args=[game_id, phase_no, deadline.timestamp()], countdown=wait if wait > 0 else None, producer=producer
            )

        return enqueue_due(
            runtime.service(),
            runtime.marks(),
            enqueue,
            ahead=ahead,
            mark_seconds=runtime.settings().CLOSE_RETRY_SECONDS,
        )


def _unreachable(identity_id: int, reason: PermanentReason, games: list[int]) -> None:
    tell_hosts_unreachable(runtime.service(), identity_id, reason.value, games)


def _pass(ids: list[int] | None, go_on: Callable[[], bool]) -> bool:
    """One pass of sending (``ids`` first, then whatever else is due); whether it did anything."""
    svc, d, cfg = runtime.service(), runtime.delivery(), runtime.settings()
    # `fill`: behind a backlog, a pass asked for a few rows goes on with what else is due.
    report = deliver(
        svc.db,
        d.senders,
        d.limiter,
        clock=svc.clock,
        ids=ids,
        budget=DISPATCH_BUDGET,
        lease=cfg.DISPATCH_LEASE_SECONDS,
        fill=True,
        most=DISPATCH_MOST,
        go_on=go_on,
        max_attempts=cfg.OUTBOX_MAX_ATTEMPTS,
        on_unreachable=_unreachable,
    )
    if report.refused:  # Telegram refused to mute a Ghost: the hosts are told once, muting stops
        tell_hosts_mute_refused(svc, report.refused)
    if report.lost:  # texts that will never reach a reader still reachable: his game's hosts are told
        tell_hosts_lost(svc, report.lost)
    wait = report.soonest()
    if wait is not None and wait <= MAX_COUNTDOWN:
        dispatch.apply_async(args=[sorted(report.deferred)], countdown=wait)
    return bool(report.messages or report.sent)


def _dispatch(ids: list[int] | None, eager: bool) -> None:
    if eager:  # run in the caller's process (tests, the sandbox): send here and now
        _pass(ids, lambda: False)
        return
    runtime.service(), runtime.delivery()  # made here, not by two threads at once
    pump(_pass).ask(ids)


@app.task(name="lupus.dispatch", bind=True)
def dispatch(self: Task, ids: list[int]) -> None:
    _dispatch([int(i) for i in ids], bool(self.request.is_eager))


@app.task(name="lupus.sweep_outbox", bind=True)
def sweep_outbox(self: Task) -> None:
    _dispatch(None, bool(self.request.is_eager))


@app.task(name="lupus.reminders")
def reminders() -> int:
    return remind(runtime.service())
