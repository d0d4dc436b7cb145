"""Sending the outbox within every platform's limits, for the whole deployment.

One call claims due rows, sends them through the process's senders under the shared limiter, and
records how each went. It never waits on a platform: a chat the limiter or the platform holds back
is set aside (in memory for a fraction of a second, else in the database with ``not_before``) while
other chats go on.

A row's life: ``pending`` -> (claim) ``sending`` -> ``sent`` | back to ``pending`` later | ``failed``.

- Claim: ``pending`` and due, or ``sending`` whose lease has run out (``not_before`` doubles as the
  lease's end while a row is ``sending``, and ``sent_at`` holds when the send began by the wall
  clock, so that a jump of the game's clock never makes a send in flight look abandoned).
  ``SELECT ... FOR UPDATE SKIP LOCKED`` on PostgreSQL, so
  workers claiming at once take different rows; SQLite has one writer at a time anyway. The claim
  bumps ``attempts``, and every later write is a compare-and-set on (status, attempts): a worker
  whose lease ran out cannot overwrite what the next one did.
- Exactly once, and where it cannot be: Telegram and Twilio keep no client key, so a worker that
  dies after the platform accepted a text but before ``sent`` was written leaves a row in ``sending``
  that is sent again when its lease ends. That second send is the only one: a row found abandoned a
  second time is marked ``failed`` (``last_error`` says why) rather than risk a third copy. So: at
  most one extra copy, and only after a crash in that window; ``dedup_key`` in the logs and in
  Twilio's status callback lets an operator see it.
- Per chat, in order: a row is not claimed while an earlier row for the same person is waiting
  (deferred or being sent), and when one row is deferred, those behind it are deferred with it.
- A group's queued texts on Telegram go out merged into one message (20 a minute is little).
- Outcomes: a 429 / RetryAfter penalizes the chat in the limiter and defers it; a transient error
  retries with exponential backoff until ``max_attempts``; a permanent one (blocked, STOP, error
  21610, no such chat) marks the person unreachable or opted out, fails what is queued for him and
  tells the host of each game concerned.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import structlog
from sqlalchemy import Engine, and_, exists, or_, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from service.db import is_sqlite, transaction
from service.delivery.batching import TELEGRAM_MAX, merge
from service.delivery.limiter import Limiter
from service.delivery.senders import Button, Keyboard, PermanentReason, Sender, SendResult, SendStatus
from service.models import Identity, Outbox, utcnow

log = structlog.get_logger(__name__)
ABANDONED = "abandoned while sending"
SHORT_WAIT = 0.25  # seconds: a chat held back less than this waits in memory, not in the database


@dataclass
class Row:
    id: int
    token: int  # the attempts count the claim set: the compare-and-set key
    identity_id: int
    channel: str
    address: str
    text: str
    buttons: Keyboard | None
    dedup_key: str
    game_id: int | None


@dataclass
class Report:
    sent: int = 0
    messages: int = 0  # what reached the platforms (merged group texts count once)
    failed: int = 0
    deferred: dict[int, float] = field(default_factory=dict)  # row id -> seconds from now
    unreachable: list[tuple[int, str, list[int]]] = field(default_factory=list)  # (identity, reason, games)
    unsettled: set[int] = field(default_factory=set)  # row ids sent whose "sent" could not be written

    def soonest(self) -> float | None:
        return min(self.deferred.values(), default=None)


def chat_kind(channel: str, address: str) -> str:
    """Telegram groups have negative chat ids; everything else is one person."""
    return "group" if channel == "telegram" and address.startswith("-") else "private"


def _keyboard(raw: Any) -> Keyboard | None:
    """The outbox's ``buttons`` column (rows of {text, data|url}), read defensively."""
    if not raw:
        return None
    try:
        return [[Button(b["text"], b.get("data"), b.get("url")) for b in row] for row in raw]
    except (TypeError, KeyError, ValueError):
        log.warning("outbox.bad_buttons", buttons=repr(raw)[:200])
        return None


def claim(db: Engine, now: datetime, channels: Sequence[str], *, ids: Sequence[int] | None = None,
          limit: int = 200, lease: float = 120) -> list[Row]:
    """Take due rows for sending (see the module docstring), oldest first."""
    earlier = aliased(Outbox)
    blocked_behind = exists().where(
        col(earlier.identity_id) == col(Outbox.identity_id), col(earlier.id) < col(Outbox.id),
        col(earlier.status).in_(("pending", "sending")), col(earlier.not_before) > now)
    stmt = (select(Outbox, Identity).join(Identity, col(Identity.id) == col(Outbox.identity_id))
            .where(col(Outbox.status).in_(("pending", "sending")), col(Outbox.not_before) <= now,
                   col(Outbox.channel).in_(list(channels)), ~blocked_behind)
            .order_by(col(Outbox.id)).limit(limit))
    if ids is not None:
        stmt = stmt.where(col(Outbox.id).in_(list(ids)))
    out: list[Row] = []
    with transaction(db) as s:
        if not is_sqlite(str(db.url)):
            stmt = stmt.with_for_update(skip_locked=True, of=Outbox)
        wall = utcnow()
        for row, person in s.exec(stmt).all():
            assert row.id is not None
            if row.status == "sending" and row.sent_at is not None and _naive(row.sent_at) > _naive(
                    wall - timedelta(seconds=lease)):
                continue  # still in flight by the wall clock: game time may jump (tests, the sandbox)
            if row.status == "sending":
                if (row.last_error or "").startswith(ABANDONED):
                    row.status, row.last_error = "failed", f"{ABANDONED} twice: not sent a third time"
                    s.add(row)
                    continue
                row.last_error = f"{ABANDONED} (attempt {row.attempts}): sent once more"
                log.warning("outbox.abandoned", id=row.id, key=row.dedup_key)
            if person.opted_out or person.unreachable:
                row.status, row.last_error = "failed", "recipient unreachable"
                s.add(row)
                continue
            row.status, row.attempts = "sending", row.attempts + 1
            row.not_before = now + timedelta(seconds=lease)
            # While a row is sending, sent_at says when the send began by the wall clock: a lease is
            # real time, whatever the game's clock says (the sandbox and the tests move that one).
            row.sent_at = wall
            s.add(row)
            out.append(Row(row.id, row.attempts, row.identity_id, row.channel, person.address, row.text,
                           _keyboard(getattr(row, "buttons", None)), row.dedup_key, row.game_id))
    return out


def _naive(when: datetime) -> datetime:
    """Compare times whether the database kept their zone (PostgreSQL) or not (SQLite)."""
    return when.replace(tzinfo=None) if when.tzinfo is not None else when


def _settle(db: Engine, rows: Sequence[Row], **values: Any) -> None:
    """Write the outcome of claimed rows, each only if still ours (status and attempts unchanged)."""
    with transaction(db) as s:
        for r in rows:
            s.execute(update(Outbox).where(col(Outbox.id) == r.id, col(Outbox.status) == "sending",
                                           col(Outbox.attempts) == r.token).values(**values))


def _release(db: Engine, rows: Sequence[Row], when: datetime, error: str | None = None,
             spend: bool = False) -> None:
    """Back to pending until ``when``. A deferral is not an attempt (``spend`` False gives it back)."""
    with transaction(db) as s:
        for r in rows:
            values: dict[str, Any] = {"status": "pending", "not_before": when, "sent_at": None}
            if not spend:
                values["attempts"] = r.token - 1
            if error is not None:
                values["last_error"] = error[:2000]
            s.execute(update(Outbox).where(col(Outbox.id) == r.id, col(Outbox.status) == "sending",
                                           col(Outbox.attempts) == r.token).values(**values))


def _release_retrying(db: Engine, rows: Sequence[Row], clock: Callable[[], datetime], error: str,
                      tries: int = 6) -> None:
    """``_release`` after a failure, tried again while the database refuses: the error that stopped
    the run is often a connection lost (PostgreSQL restarting drops them all), and the first try may
    meet one too. Rows left "sending" would go out once more when their lease ends, and be marked
    failed if that happened to them twice."""
    for attempt in range(tries):
        try:
            _release(db, rows, clock(), error)
            return
        except OperationalError:
            if attempt == tries - 1:
                raise
            time.sleep(0.05 * 2**attempt)


def _unreachable(db: Engine, person_id: int, reason: PermanentReason, error: str) -> list[int]:
    """Mark the person and fail everything queued for him; returns the games concerned."""
    with transaction(db) as s:
        person = s.get(Identity, person_id)
        if person is not None:
            if reason is PermanentReason.OPTED_OUT:
                person.opted_out = True
            else:
                person.unreachable = True
            s.add(person)
        rows = s.exec(select(Outbox).where(Outbox.identity_id == person_id,
                                           col(Outbox.status).in_(("pending", "sending", "held")))).all()
        games = sorted({r.game_id for r in rows if r.game_id is not None})
        s.execute(update(Outbox).where(col(Outbox.identity_id) == person_id,
                                       col(Outbox.status).in_(("pending", "sending", "held")))
                  .values(status="failed", last_error=f"{reason.value}: {error}"[:2000]))
    return games


@dataclass
class _Chat:
    rows: list[Row]
    ready_at: float = 0.0


def deliver(db: Engine, senders: Mapping[str, Sender], limiter: Limiter, *,
            clock: Callable[[], datetime] = utcnow, ids: Sequence[int] | None = None,
            budget: float = 10.0, limit: int = 200, lease: float = 120, max_attempts: int = 8,
            on_unreachable: Callable[[int, PermanentReason, list[int]], None] | None = None) -> Report:
    """Send what is due (only ``ids`` if given) for up to ``budget`` seconds; see the module docstring."""
    report = Report()
    started = time.monotonic()
    while True:
        rows = claim(db, clock(), list(senders), ids=ids, limit=limit, lease=lease)
        if not rows:
            break
        chats: dict[tuple[int, str], _Chat] = {}
        for r in rows:
            chats.setdefault((r.identity_id, r.address), _Chat([])).rows.append(r)
        try:
            _send_chats(db, senders, limiter, list(chats.values()), clock, started + budget, report,
                        max_attempts, on_unreachable)
        except BaseException as e:
            # Hand back what this run claimed and did not settle (the compare-and-set leaves the
            # settled ones alone), rather than leave it to look abandoned when the lease ends.
            # Not a row the platform took but whose "sent" could not be written: handed back, it would
            # go out again at once, and again after every such failure. Left "sending", its lease
            # ending makes it one abandoned row (one more copy at most, as above).
            _release_retrying(db, [r for r in rows if r.id not in report.unsettled], clock,
                              f"released after {type(e).__name__}: {e}")
            raise
        # Another pass only when this one was full (more may be due): a pass that ends with chats
        # held back leaves them to the task's short countdown, instead of spinning on them here.
        if ids is not None or len(rows) < limit or time.monotonic() - started >= budget:
            break
    if ids is not None:
        _left_behind(db, ids, clock(), report)
    return report


def _left_behind(db: Engine, ids: Sequence[int], now: datetime, report: Report) -> None:
    """Asked-for rows still pending (not yet due, or queued behind an earlier row of the same chat):
    reported as deferred, so the task looks at them again rather than leave them to the sweep."""
    with Session(db) as s:
        rows = s.exec(select(Outbox.id, Outbox.not_before).where(col(Outbox.id).in_(list(ids)),
                                                                 Outbox.status == "pending")).all()
    for oid, not_before in rows:
        if oid is not None and oid not in report.deferred:
            report.deferred[oid] = max(1.0, (not_before - now).total_seconds())


def _batches(chat: _Chat) -> list[tuple[str, Keyboard | None, list[Row]]]:
    first = chat.rows[0]
    if chat_kind(first.channel, first.address) == "group" and len(chat.rows) > 1:
        merged = merge([(r.text, r.buttons) for r in chat.rows], TELEGRAM_MAX)
        return [(b.text, b.buttons, [chat.rows[i] for i in b.items]) for b in merged]
    return [(r.text, r.buttons, [r]) for r in chat.rows]


def _send_chats(db: Engine, senders: Mapping[str, Sender], limiter: Limiter, chats: list[_Chat],
                clock: Callable[[], datetime], until: float, report: Report, max_attempts: int,
                on_unreachable: Callable[[int, PermanentReason, list[int]], None] | None) -> None:
    queue = [(c, _batches(c)) for c in chats]
    while queue:
        queue.sort(key=lambda q: q[0].ready_at)
        chat, batches = queue[0]
        mono = time.monotonic()
        if chat.ready_at > mono:
            if chat.ready_at - mono > SHORT_WAIT or chat.ready_at > until:
                break  # nothing can go now: what is left goes back to the database below
            time.sleep(chat.ready_at - mono)
        text, buttons, rows = batches[0]
        first = rows[0]
        kind = chat_kind(first.channel, first.address)
        sender = senders[first.channel]
        wait = limiter.try_acquire(first.channel, kind, first.address, sender.cost(text))
        if wait:
            chat.ready_at = time.monotonic() + wait
            continue
        result = sender.send(first.address, text, buttons=buttons, dedup_key=first.dedup_key)
        done = _record(db, limiter, result, rows, [r for _, _, rs in batches[1:] for r in rs], kind, clock,
                       report, max_attempts, on_unreachable)
        if done:
            batches.pop(0)
            if not batches:
                queue.pop(0)
        else:
            queue.pop(0)
    for chat, batches in queue:  # held back longer than SHORT_WAIT: the database keeps them
        seconds = max(0.0, chat.ready_at - time.monotonic())
        rest = [r for _, _, rs in batches for r in rs]
        _release(db, rest, clock() + timedelta(seconds=seconds))
        report.deferred.update({r.id: seconds for r in rest})


def _record(db: Engine, limiter: Limiter, result: SendResult, rows: list[Row], behind: list[Row], kind: str,
            clock: Callable[[], datetime], report: Report, max_attempts: int,
            on_unreachable: Callable[[int, PermanentReason, list[int]], None] | None) -> bool:
    """Store one send's outcome; True if the chat may go on with its next batch."""
    first, now = rows[0], clock()
    if result.status is SendStatus.SENT:
        try:
            _settle(db, rows, status="sent", sent_at=now)  # an "abandoned" note stays: it may be a copy
        except BaseException:
            report.unsettled.update(r.id for r in rows)
            raise
        if result.new_address:
            _move_address(db, first.identity_id, result.new_address)
        report.sent += len(rows)
        report.messages += 1
        return True
    if result.status is SendStatus.RETRY_AFTER:
        seconds = result.retry_after or 1.0
        limiter.penalize(first.channel, kind, first.address, seconds)
        _release(db, rows + behind, now + timedelta(seconds=seconds), f"retry after {seconds}s")
        report.deferred.update({r.id: seconds for r in rows + behind})
        return False
    if result.status is SendStatus.TRANSIENT:
        if first.token >= max_attempts:
            _settle(db, rows, status="failed", last_error=(result.error or "transient")[:2000])
            report.failed += len(rows)
            _release(db, behind, now)
            return False
        seconds = min(3600.0, 5.0 * 2 ** first.token)
        _release(db, rows, now + timedelta(seconds=seconds), result.error or "transient", spend=True)
        _release(db, behind, now + timedelta(seconds=seconds))
        report.deferred.update({r.id: seconds for r in rows + behind})
        return False
    reason = result.reason or PermanentReason.REJECTED
    if reason is PermanentReason.REJECTED:  # this text, not this person: the others may still go
        _settle(db, rows, status="failed", last_error=(result.error or "rejected")[:2000])
        report.failed += len(rows)
        return True
    games = _unreachable(db, first.identity_id, reason, result.error or "")
    report.failed += len(rows) + len(behind)
    report.unreachable.append((first.identity_id, reason.value, games))
    log.info("outbox.unreachable", identity=first.identity_id, reason=reason.value)
    if on_unreachable is not None:
        on_unreachable(first.identity_id, reason, games)
    return False


def _move_address(db: Engine, identity_id: int, address: str) -> None:
    """A Telegram group became a supergroup: its new id is where it is reached from now on."""
    with transaction(db) as s:
        taken = s.exec(select(Identity).where(Identity.channel == "telegram", Identity.address == address)).first()
        person = s.get(Identity, identity_id)
        if person is not None and taken is None:
            person.address = address
            s.add(person)


def pending_count(db: Engine) -> int:
    with Session(db) as s:
        return len(s.exec(select(Outbox.id).where(or_(col(Outbox.status) == "pending",
                                                      and_(col(Outbox.status) == "sending")))).all())
