"""What one pass of the dispatcher works with, and what it writes when a platform has answered a
send: sent (most sends, settled together by ``dispatch``), held back by the platform's rate limit,
failed for a while (backoff), refused for good for this text, or for this person (unreachable).
The life of a row is told in ``dispatch``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import structlog
from sqlalchemy import Engine

from service.delivery.batching import Send
from service.delivery.limiter import Limiter
from service.delivery.rows import Report, Row, move_address, release, settle, unreachable
from service.delivery.senders import PermanentReason, Sender, SendResult, SendStatus
from service.store.status import OutboxStatus

log = structlog.get_logger("service.delivery.dispatch")
GAVE_UP = "gave up"
"""How ``last_error`` begins for a text every attempt at which met a platform that was down; any
other text failed with its reader reachable was refused by the platform."""


@dataclass
class Run:
    """What one ``dispatch.deliver`` call works with."""

    db: Engine
    senders: Mapping[str, Sender]
    limiter: Limiter
    clock: Callable[[], datetime]
    lease: float
    until: float
    max_attempts: int
    on_unreachable: Callable[[int, PermanentReason, list[int]], None] | None
    concurrency: int = 1
    last: float = 0.0  # time.monotonic() past which ``until`` is never pushed
    go_on: Callable[[], bool] | None = None  # asked whether the pass may go on past ``until``
    report: Report = field(default_factory=Report)
    inflight: set[int] = field(default_factory=set)  # begun and not yet settled


def record(run: Run, result: SendResult, send: Send, behind: list[Row], kind: str) -> bool:
    """Store one send's outcome; True if the chat may go on with its next batch."""
    db, report, rows, now = run.db, run.report, send.rows, run.clock()
    first = rows[0]
    if result.status is SendStatus.SENT:
        if send.finishes:
            settle(db, rows, status=OutboxStatus.SENT, sent_at=now)  # an "abandoned" note stays: it may be a copy
            report.sent += len(rows)
        else:
            settle(db, rows, parts_sent=send.part + 1, sent_at=None)
        if result.new_address:
            move_address(db, first.identity_id, result.new_address)
        report.messages += 1
        return True
    if result.status is SendStatus.RETRY_AFTER:
        seconds = result.retry_after or 1.0
        run.limiter.penalize(first.channel, kind, first.address, seconds)
        release(db, rows + behind, now + timedelta(seconds=seconds), f"retry after {seconds}s")
        report.deferred.update({r.id: seconds for r in rows + behind})
        return False
    if result.status is SendStatus.TRANSIENT:
        if first.token >= run.max_attempts:
            failed(run, rows, f"{GAVE_UP} after {first.token} attempts: {result.error or 'transient'}")
            release(db, behind, now)
            return False
        seconds = min(3600.0, 5.0 * 2**first.token)
        release(db, rows, now + timedelta(seconds=seconds), result.error or "transient", spend=True)
        release(db, behind, now + timedelta(seconds=seconds))
        report.deferred.update({r.id: seconds for r in rows + behind})
        return False
    reason = result.reason or PermanentReason.REJECTED
    if reason is PermanentReason.REJECTED:  # this text, not this person: the others may still go
        acts = [r for r in rows if r.action]
        if acts:  # a Ghost's mute Telegram refused: service.game.ghosts tells the hosts and stops muting
            settle(db, acts, status=OutboxStatus.FAILED, last_error=(result.error or "rejected")[:2000])
            report.failed += len(acts)
            report.refused += [r.id for r in acts]
        if texts := [r for r in rows if not r.action]:
            failed(run, texts, f"refused by the platform: {result.error or 'rejected'}")
        return True
    games = unreachable(db, first.identity_id, reason, result.error or "")
    report.failed += len(rows) + len(behind)
    report.unreachable.append((first.identity_id, reason.value, games))
    # Not an error of the service: the player blocked the bot, texted STOP, or closed his account;
    # the hosts of his games are told (``on_unreachable``) and nothing more is sent to him.
    log.warning("outbox.unreachable", identity=first.identity_id, reason=reason.value, error=result.error)
    if run.on_unreachable is not None:
        run.on_unreachable(first.identity_id, reason, games)
    return False


def failed(run: Run, rows: list[Row], why: str) -> None:
    """Texts that will never be sent, though their reader is still reachable: an error for the
    operator (the platform refused what the service wrote, or was down for hours), and the hosts
    of the game are told (``Report.lost``, ``service.game.failures``)."""
    settle(run.db, rows, status=OutboxStatus.FAILED, last_error=why[:2000])
    run.report.failed += len(rows)
    run.report.lost += [r.id for r in rows]
    for r in rows:
        log.error(
            "outbox.failed",
            id=r.id,
            key=r.dedup_key,
            channel=r.channel,
            game=r.game_id,
            chars=len(r.text),
            error=why[:300],
        )
