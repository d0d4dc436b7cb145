"""Sending the outbox within every platform's limits, for the whole deployment.

One call claims due rows, sends them through the process's senders under the shared limiter, and
records how each went. It never waits on a platform: a chat the limiter or the platform holds back
is set aside (in memory for a fraction of a second, else in the database with ``not_before``) while
other chats go on.

A row's life: ``pending`` -> (claim) ``sending`` -> (begin) in flight -> ``sent`` | back to
``pending`` later | ``failed``.

- Claim: ``pending`` and due by the game's clock, or ``sending`` whose lease has run out by the wall
  clock. ``SELECT ... FOR UPDATE SKIP LOCKED`` on PostgreSQL, so workers claiming at once take
  different rows; SQLite has one writer at a time anyway. The claim bumps ``attempts`` and reserves
  the row until ``not_before`` (by the wall clock: a lease is real time, whatever the game's clock
  says; the sandbox and the tests move that one), with ``sent_at`` empty. A reservation lasts the
  pass's budget and a margin (no send begins after half that margin), so what a crashed worker had
  reserved is free again within seconds. Every later write is a compare-and-set on (status,
  attempts): a worker whose lease ran out cannot overwrite what the next one did.
- Begin: right before the platform is called, the rows of that send are marked in flight
  (``sent_at`` = the wall clock, held for the whole lease, longer than a send can take), again as a
  compare-and-set: a reservation that ran out and was taken over by another worker is skipped,
  never sent twice. A row is in flight only for one HTTP call, so after a crash only those few rows
  can have reached the player; the rest of what the dead worker had reserved is claimed again when
  its reservation ends, as if never touched.
- Exactly once, and where it cannot be: Telegram and Twilio keep no client key, so a worker that
  dies after the platform accepted a text but before ``sent`` was written leaves a row in flight
  that is sent again when its lease ends. That second send is the only one: a row found abandoned a
  second time is marked ``failed`` (``last_error`` says why) rather than risk a third copy. So: at
  most one extra copy, and only after a crash in that window; ``dedup_key`` in the logs and in
  Twilio's status callback lets an operator see it.
- Per chat, in order: a row is not claimed while an earlier row for the same person is waiting
  (deferred or being sent), and when one row is deferred, those behind it are deferred with it.
- At once: a pass sends in rounds, each the next batch of up to ``concurrency`` chats the limiter
  lets through (one batch per chat, so each chat stays in order), begun in one statement, sent
  together, and the sent rows settled in one statement.
- A group's queued texts on Telegram go out merged into one message (20 a minute is little).
- Outcomes: a 429 / RetryAfter penalizes the chat in the limiter and defers it; a transient error
  retries with exponential backoff until ``max_attempts``; a permanent one (blocked, STOP, error
  21610, no such chat) marks the person unreachable or opted out, fails what is queued for him and
  tells the host of each game concerned.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import structlog
from sqlalchemy import Engine, and_, exists, or_, tuple_, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from service.db import is_sqlite, transaction
from service.delivery.batching import TELEGRAM_MAX, merge
from service.delivery.limiter import Limiter
from service.delivery.senders import Button, Keyboard, PermanentReason, Sender, SendResult, SendStatus, perform
from service.models import Identity, Outbox, utcnow

log = structlog.get_logger(__name__)
ABANDONED = "abandoned while sending"
SHORT_WAIT = 0.25  # seconds: a chat held back less than this waits in memory, not in the database
RESERVE_MARGIN = 10.0  # seconds a reservation outlasts the budget of the pass that made it
CONCURRENCY = 8  # sends in flight at once per process (the Telegram sender's pool has 8 connections)


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
    action: str | None = None  # an act on a chat (mute a Ghost), not a text: see Outbox.action


@dataclass
class Report:
    sent: int = 0
    messages: int = 0  # what reached the platforms (merged group texts count once)
    failed: int = 0
    deferred: dict[int, float] = field(default_factory=dict)  # row id -> seconds from now
    unreachable: list[tuple[int, str, list[int]]] = field(default_factory=list)  # (identity, reason, games)
    refused: list[int] = field(default_factory=list)  # act rows the platform refused (service.ghosts.refused)

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
          limit: int = 200, lease: float = 60) -> list[Row]:
    """Reserve due rows for sending (see the module docstring), oldest first."""
    wall = utcnow()
    earlier = aliased(Outbox)
    blocked_behind = exists().where(
        col(earlier.identity_id) == col(Outbox.identity_id), col(earlier.id) < col(Outbox.id),
        or_(and_(col(earlier.status) == "pending", col(earlier.not_before) > now),
            and_(col(earlier.status) == "sending", col(earlier.not_before) > wall)))
    due = or_(and_(col(Outbox.status) == "pending", col(Outbox.not_before) <= now),
              and_(col(Outbox.status) == "sending", col(Outbox.not_before) <= wall))
    stmt = (select(Outbox, Identity).join(Identity, col(Identity.id) == col(Outbox.identity_id))
            .where(due, col(Outbox.channel).in_(list(channels)), ~blocked_behind)
            .order_by(col(Outbox.id)).limit(limit))
    if ids is not None:
        stmt = stmt.where(col(Outbox.id).in_(list(ids)))
    out: list[Row] = []
    with transaction(db) as s:
        if not is_sqlite(str(db.url)):
            stmt = stmt.with_for_update(skip_locked=True, of=Outbox)
        for row, person in s.exec(stmt).all():
            assert row.id is not None
            if row.status == "sending" and row.sent_at is not None:  # it was in flight when its worker died
                if (row.last_error or "").startswith(ABANDONED):
                    row.status, row.last_error = "failed", f"{ABANDONED} twice: not sent a third time"
                    s.add(row)
                    log.warning("outbox.abandoned_twice", id=row.id, key=row.dedup_key)
                    continue
                row.last_error = f"{ABANDONED} (attempt {row.attempts}): sent once more"
                log.warning("outbox.abandoned", id=row.id, key=row.dedup_key)
            # (A row only reserved by a worker that died or ran out of time was never sent: it is
            # simply taken again.)
            if person.opted_out or person.unreachable:
                row.status, row.last_error = "failed", "recipient unreachable"
                s.add(row)
                continue
            row.status, row.attempts = "sending", row.attempts + 1
            row.not_before, row.sent_at = wall + timedelta(seconds=lease), None
            s.add(row)
            out.append(Row(row.id, row.attempts, row.identity_id, row.channel, person.address, row.text,
                           _keyboard(getattr(row, "buttons", None)), row.dedup_key, row.game_id, row.action))
    if out:
        log.debug("outbox.claimed", rows=[(r.id, r.token) for r in out])
    return out


def begin(db: Engine, rows: Sequence[Row], lease: float = 60) -> set[int]:
    """Mark reserved rows in flight, right before their send; returns the ids still ours (a row
    whose reservation ran out and that another worker claimed is not ours to send any more)."""
    if not rows:
        return set()
    wall = utcnow()
    with transaction(db) as s:
        result = s.execute(update(Outbox).where(
            _ours(rows), col(Outbox.sent_at).is_(None)).values(
            sent_at=wall, not_before=wall + timedelta(seconds=lease)).returning(col(Outbox.id)))
        mine = {int(i) for i in result.scalars()}
    if len(mine) < len(rows):
        log.info("outbox.overtaken", ids=sorted(r.id for r in rows if r.id not in mine))
    return mine


def _ours(rows: Sequence[Row]) -> Any:
    """Rows still as this worker's claim left them: the compare-and-set on (status, attempts)."""
    return and_(col(Outbox.status) == "sending",
                tuple_(col(Outbox.id), col(Outbox.attempts)).in_([(r.id, r.token) for r in rows]))


def _settle(db: Engine, rows: Sequence[Row], **values: Any) -> None:
    """Write the outcome of claimed rows, each only if still ours (status and attempts unchanged)."""
    if rows:
        with transaction(db) as s:
            s.execute(update(Outbox).where(_ours(rows)).values(**values))


def _release(db: Engine, rows: Sequence[Row], when: datetime, error: str | None = None,
             spend: bool = False) -> None:
    """Back to pending until ``when``. A deferral is not an attempt (``spend`` False gives it back)."""
    if not rows:
        return
    values: dict[str, Any] = {"status": "pending", "not_before": when, "sent_at": None}
    if not spend:
        values["attempts"] = col(Outbox.attempts) - 1  # the compare-and-set says it is our token
    if error is not None:
        values["last_error"] = error[:2000]
    with transaction(db) as s:
        s.execute(update(Outbox).where(_ours(rows)).values(**values))


def _release_retrying(db: Engine, rows: Sequence[Row], when: datetime, error: str, tries: int = 6) -> None:
    """``_release`` after a failure, tried again while the database refuses: the error that stopped
    the run is often a connection lost (PostgreSQL restarting drops them all), and the first try may
    meet one too. Rows not handed back would wait for their reservation to run out."""
    for attempt in range(tries):
        try:
            _release(db, rows, when, error)
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
    done: bool = False  # nothing more of it in this pass (deferred, unreachable, or taken over)


@dataclass
class _Run:
    """What one ``deliver`` call works with."""

    db: Engine
    senders: Mapping[str, Sender]
    limiter: Limiter
    clock: Callable[[], datetime]
    lease: float
    until: float
    max_attempts: int
    on_unreachable: Callable[[int, PermanentReason, list[int]], None] | None
    concurrency: int = 1
    report: Report = field(default_factory=Report)
    inflight: set[int] = field(default_factory=set)  # begun and not yet settled


def deliver(db: Engine, senders: Mapping[str, Sender], limiter: Limiter, *,
            clock: Callable[[], datetime] = utcnow, ids: Sequence[int] | None = None,
            budget: float = 10.0, limit: int = 200, lease: float = 60, max_attempts: int = 8,
            concurrency: int = CONCURRENCY,
            on_unreachable: Callable[[int, PermanentReason, list[int]], None] | None = None) -> Report:
    """Send what is due (only ``ids`` if given) for up to ``budget`` seconds, up to ``concurrency``
    sends at a time (to different chats); see the module docstring."""
    started = time.monotonic()
    run = _Run(db, senders, limiter, clock, lease, started + budget, max_attempts, on_unreachable,
               max(1, concurrency))
    while True:
        now = clock()
        # Reserved for what is left of the budget (no send begins after it) and a margin; a send
        # once begun holds its row for the whole lease.
        reserve = max(0.0, run.until - time.monotonic()) + RESERVE_MARGIN
        rows = claim(db, now, list(senders), ids=ids, limit=limit, lease=min(lease, reserve))
        if not rows:
            break
        chats: dict[tuple[int, str], _Chat] = {}
        for r in rows:
            chats.setdefault((r.identity_id, r.address), _Chat([])).rows.append(r)
        try:
            _send_chats(run, list(chats.values()))
        except BaseException as e:
            # Hand back what this run reserved and did not send (the compare-and-set leaves the
            # settled ones alone). A row in flight stays so: it may have reached the player, and
            # its lease decides. (Due as of the claim: the clock itself may be what failed.)
            # (A connection lost is often what stopped the run, and the release may meet one too.)
            _release_retrying(db, [r for r in rows if r.id not in run.inflight], now,
                              f"released after {type(e).__name__}: {e}")
            raise
        # Another pass only when this one was full (more may be due): a pass that ends with chats
        # held back leaves them to the task's short countdown, instead of spinning on them here.
        if ids is not None or len(rows) < limit or time.monotonic() - started >= budget:
            break
    if ids is not None:
        _left_behind(db, ids, clock(), run.report)
    return run.report


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


def _send_chats(run: _Run, chats: list[_Chat]) -> None:
    """Rounds of sends: in each, the next batch of up to ``concurrency`` ready chats (one each, so a
    chat's texts stay in order) that the limiter lets through are begun in one transaction, sent at
    once (the Telegram sender's calls share its event loop and connection pool), and the sent ones
    settled in one transaction."""
    queue = [(c, _batches(c)) for c in chats]
    with ThreadPoolExecutor(run.concurrency, thread_name_prefix="lupus-send") as pool:
        while queue:
            mono = time.monotonic()
            if mono > run.until + RESERVE_MARGIN / 2:
                break  # well past the budget: what is left goes back before its reservation lapses
            queue.sort(key=lambda q: q[0].ready_at)
            soonest = queue[0][0].ready_at
            if soonest > mono:
                if soonest - mono > SHORT_WAIT or soonest > run.until:
                    break  # nothing can go now
                time.sleep(soonest - mono)
            granted: list[tuple[_Chat, list[tuple[str, Keyboard | None, list[Row]]]]] = []
            for asked, (chat, batches) in enumerate(queue):
                # (Asking the limiter for many chats once the bot's own limit is reached only
                # collects refusals: a round asks for at most twice what it can send.)
                if len(granted) == run.concurrency or asked == 2 * run.concurrency \
                        or chat.ready_at > time.monotonic():
                    break
                text, _, rows = batches[0]
                first = rows[0]
                cost = run.senders[first.channel].cost(text)
                wait = run.limiter.try_acquire(first.channel, chat_kind(first.channel, first.address),
                                               first.address, cost)
                if wait:
                    chat.ready_at = time.monotonic() + wait
                else:
                    granted.append((chat, batches))
            if granted:
                _round(run, pool, granted)
                queue = [(c, bs) for c, bs in queue if bs and not c.done]
    for chat, batches in queue:  # held back: the database keeps them
        seconds = max(0.0, chat.ready_at - time.monotonic())
        rest = [r for _, _, rs in batches for r in rs]
        _release(run.db, rest, run.clock() + timedelta(seconds=seconds))
        run.report.deferred.update({r.id: seconds for r in rest})


def _round(run: _Run, pool: ThreadPoolExecutor,
           granted: list[tuple[_Chat, list[tuple[str, Keyboard | None, list[Row]]]]]) -> None:
    mine = begin(run.db, [r for _, batches in granted for r in batches[0][2]], run.lease)
    go = []
    for chat, batches in granted:
        rows = batches[0][2]
        if all(r.id in mine for r in rows):
            go.append((chat, batches))
            continue
        # Another worker took some of these over (our reservation ran out): the chat is its now.
        # What we began here was never sent, so it goes back as untouched (the compare-and-set
        # leaves the other worker's rows alone).
        _release(run.db, [r for _, _, rs in batches for r in rs], run.clock())
        chat.done = True
    run.inflight |= {r.id for _, batches in go for r in batches[0][2]}
    futures = []
    for _, batches in go:
        text, buttons, rows = batches[0]
        first = rows[0]
        sender = run.senders[first.channel]
        if first.action:  # an act on a chat (mute a Ghost), not a text
            futures.append(pool.submit(perform, sender, first.address, first.action, first.text, first.dedup_key))
        else:
            futures.append(pool.submit(sender.send, first.address, text, buttons=buttons, dedup_key=first.dedup_key))
    results = [f.result() for f in futures]
    sent = [batches[0][2] for (_, batches), res in zip(go, results, strict=True)
            if res.ok and not res.new_address]
    if sent:  # the common case, settled together
        _settle(run.db, [r for rows in sent for r in rows], status="sent", sent_at=run.clock())
        run.report.sent += sum(len(rows) for rows in sent)
        run.report.messages += len(sent)
    for (chat, batches), res in zip(go, results, strict=True):
        rows = batches[0][2]
        if res.ok and not res.new_address:
            done = True
        else:
            first = rows[0]
            behind = [r for _, _, rs in batches[1:] for r in rs]
            done = _record(run, res, rows, behind, chat_kind(first.channel, first.address))
        run.inflight -= {r.id for r in rows}
        if done:
            batches.pop(0)
        else:
            chat.done = True


def _record(run: _Run, result: SendResult, rows: list[Row], behind: list[Row], kind: str) -> bool:
    """Store one send's outcome; True if the chat may go on with its next batch."""
    db, report, first, now = run.db, run.report, rows[0], run.clock()
    if result.status is SendStatus.SENT:
        _settle(db, rows, status="sent", sent_at=now)  # an "abandoned" note stays: it may be a copy
        if result.new_address:
            _move_address(db, first.identity_id, result.new_address)
        report.sent += len(rows)
        report.messages += 1
        return True
    if result.status is SendStatus.RETRY_AFTER:
        seconds = result.retry_after or 1.0
        run.limiter.penalize(first.channel, kind, first.address, seconds)
        _release(db, rows + behind, now + timedelta(seconds=seconds), f"retry after {seconds}s")
        report.deferred.update({r.id: seconds for r in rows + behind})
        return False
    if result.status is SendStatus.TRANSIENT:
        if first.token >= run.max_attempts:
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
        report.refused += [r.id for r in rows if r.action]
        return True
    games = _unreachable(db, first.identity_id, reason, result.error or "")
    report.failed += len(rows) + len(behind)
    report.unreachable.append((first.identity_id, reason.value, games))
    log.info("outbox.unreachable", identity=first.identity_id, reason=reason.value)
    if run.on_unreachable is not None:
        run.on_unreachable(first.identity_id, reason, games)
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
