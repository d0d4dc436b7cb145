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
  (``sent_at`` = the wall clock, the lease renewed while the send runs: ``flight``), again as a
  compare-and-set: a reservation that ran out and was taken over by another worker is skipped,
  never sent twice. A row is in flight only for one HTTP call, so after a crash only those few rows
  can have reached the player; the rest of what the dead worker had reserved is claimed again when
  its reservation ends, as if never touched.
- Exactly once, and where it cannot be: Telegram and Twilio keep no client key, so a worker that
  dies after the platform accepted a text but before ``sent`` was written leaves a row in flight
  that is sent again seconds later, when its lease ends. That second send is the only one: a row found abandoned a
  second time is marked ``failed`` (``last_error`` says why) rather than risk a third copy. So: at
  most one extra copy, and only after a crash in that window; ``dedup_key`` in the logs and in
  Twilio's status callback lets an operator see it.
- Per chat, in order, always: the order is the rows' ids, as the service committed them. A claim
  takes a chat's rows only from its first unsent row on, without a gap: never a row while an earlier
  row of its chat waits (deferred, backing off, reserved or in flight, or being claimed this very
  moment by another worker, whose lock hides it from the query); and when one row is deferred, those
  behind it are deferred with it. A task that asks for ids takes everything due for their chats, so
  the rows a later command wrote never overtake an earlier command's that are due but not asked for.
- At once: a pass sends in rounds, each the next batch of up to ``concurrency`` chats the limiter
  lets through (one batch per chat, so each chat stays in order), begun in one statement, sent
  together, and the sent rows settled in one statement. The limiter books each send a slot up to
  ``AHEAD`` seconds ahead (the bot's 29 a second come one every 34 ms) and the send waits for it,
  so slots are taken in turn by the processes instead of lost while none of them was asking. The
  sends whose slots are near are begun together just before them (``BEGIN_LEAD``), so a row is
  still in flight only for its HTTP call and the moment before it. A send that wakes up too late
  for its slot (``LATE``) takes the next free one rather than crowd the sends booked after it.
- Merged and split: what is queued for a Telegram group goes out merged into as few messages as
  fit (20 a minute is little: a burst of joins reaches the group in a few messages, the last with
  the final count). A text longer than its platform takes (``batching.MAX_LEN``: Twilio refuses
  over 1,600 characters) goes as consecutive parts, each a send of its own; ``parts_sent`` says how
  many the platform took, so a retry or a crash goes on from there.
- Outcomes: a 429 / RetryAfter penalizes the chat in the limiter and defers it; a transient error
  retries with exponential backoff until ``max_attempts``; a permanent one for the person (blocked,
  STOP, error 21610, no such chat) marks him unreachable or opted out, fails what is queued for him
  and tells the host of each game concerned (a warning: his choice, not a fault). A text refused for
  itself, or that gave up, fails alone: an error in the log, and ``Report.lost`` for the hosts
  (``service.game.failures``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import Any

import structlog
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from service.delivery import flight
from service.delivery.batching import Send, sends
from service.delivery.limiter import Limiter
from service.delivery.rows import (
    Report,
    Row,
    begin,
    chat_kind,
    claim,
    move_address,
    release,
    release_retrying,
    renew,
    settle,
    unreachable,
)
from service.delivery.senders import PermanentReason, Sender, SendResult, SendStatus, perform
from service.store.models import Outbox, utcnow

log = structlog.get_logger(__name__)
SHORT_WAIT = 0.25  # seconds: a chat held back less than this waits in memory, not in the database
RESERVE_MARGIN = 10.0  # seconds a reservation outlasts the budget of the pass that made it
# Seconds past the budget a pass still sends chats that are ready at once (a budget of 0 sends what
# can go now): a worker's pool process is held for the budget and this, and a phase's close due
# meanwhile waits for it (``worker.celery_app``). Well inside RESERVE_MARGIN, so no send begins
# once the rows' reservation could have lapsed.
OVERRUN = 1.0
CONCURRENCY = 8  # sends in flight at once per process (the Telegram sender's pool has 8 connections)
# How far ahead a round books its sends' slots with the limiter (each send waits for its own): the
# bot-wide slots come one every 1/29 s, and one booked only when a process happened to ask (between
# its database writes and HTTP calls) left every slot nobody asked for unused, about 10% of them.
AHEAD = 0.25
# Seconds before their slot sends are marked in flight (one statement for those close): a
# transaction can take tens of milliseconds on a loaded machine, and a send begun too close to its
# slot wakes up late (see LATE).
BEGIN_LEAD = 0.1
# Seconds after its slot a send may still go. One that wakes up later (a stalled thread, a slow
# commit) would land among the sends booked after it, and a few of those together overfill the
# platform's one-second window (Telegram's 30 a second with ours at 28 leaves about 70 ms of slack):
# it takes the next free slot instead (`Limiter.rebook`).
LATE = 0.02
GAVE_UP = "gave up"
"""How ``last_error`` begins for a text every attempt at which met a platform that was down; any
other text failed with its reader reachable was refused by the platform."""


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
    if not senders:  # every channel is off in this process: nothing it could claim
        return Report()
    for sender in senders.values():  # a sender's set-up is not made at a send's rate slot
        if (warm := getattr(sender, "warm", None)) is not None:
            warm()
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
            release_retrying(db, [r for r in rows if r.id not in run.inflight], now,
                              f"released after {type(e).__name__}: {e}")
            raise
        # Another pass only when this one was full (more may be due): a pass that ends with chats
        # held back leaves them to the task's short countdown, instead of spinning on them here.
        if ids is not None or len(rows) < limit or time.monotonic() - started >= budget:
            break
    if ids is not None and senders:
        _left_behind(db, ids, list(senders), clock(), run.report)
    return run.report


def _left_behind(db: Engine, ids: Sequence[int], channels: Sequence[str], now: datetime, report: Report) -> None:
    """Asked-for rows still pending (not yet due, or queued behind an earlier row of the same chat):
    reported as deferred, so the task looks at them again rather than leave them to the sweep, when
    they can go: not before an earlier row of their chat that waits for its time. Rows of a channel
    this process cannot send (no sender: its credentials are not set) are not: the task would come
    back for them every second for ever."""
    with Session(db) as s:
        rows = s.exec(select(Outbox.id, Outbox.identity_id, Outbox.not_before).where(
            col(Outbox.id).in_(list(ids)), col(Outbox.channel).in_(list(channels)),
            Outbox.status == "pending")).all()
        if not rows:
            return
        ahead = s.exec(select(Outbox.id, Outbox.identity_id, Outbox.not_before).where(
            col(Outbox.identity_id).in_({p for _, p, _ in rows}), col(Outbox.id) < max(i or 0 for i, _, _ in rows),
            Outbox.status == "pending", col(Outbox.not_before) > now)).all()
    for oid, person, not_before in rows:
        if oid is None or oid in report.deferred:
            continue
        wait = max([not_before, *(nb for i, p, nb in ahead if p == person and (i or 0) < oid)])
        report.deferred[oid] = max(1.0, (wait - now).total_seconds())


def _send_chats(run: _Run, chats: list[_Chat]) -> None:
    """Rounds of sends: in each, the next batch of up to ``concurrency`` ready chats (one each, so a
    chat's texts stay in order) that the limiter lets through are begun in one transaction, sent at
    once (the Telegram sender's calls share its event loop and connection pool), and the sent ones
    settled in one transaction."""
    queue = [(c, sends(c.rows, getattr(run.senders[c.rows[0].channel], "prepare", None))) for c in chats]
    with ThreadPoolExecutor(run.concurrency, thread_name_prefix="lupus-send") as pool:
        while queue:
            mono = time.monotonic()
            if mono > run.until + OVERRUN:
                break  # past the budget: what is left goes back to the database
            queue.sort(key=lambda q: q[0].ready_at)
            soonest = queue[0][0].ready_at
            if soonest > mono:
                if soonest - mono > SHORT_WAIT or soonest > run.until:
                    break  # nothing can go now
                time.sleep(soonest - mono)
            granted: list[tuple[_Chat, list[Send], float]] = []
            for asked, (chat, batches) in enumerate(queue):
                # (Asking the limiter for many chats once the bot's own limit is reached only
                # collects refusals: a round asks for at most twice what it can send.)
                if len(granted) == run.concurrency or asked == 2 * run.concurrency \
                        or chat.ready_at > time.monotonic():
                    break
                send = batches[0]
                first = send.rows[0]
                cost = run.senders[first.channel].cost(send.text)
                ok, wait = run.limiter.reserve(first.channel, chat_kind(first.channel, first.address),
                                               first.address, cost, within=AHEAD)
                if ok:
                    granted.append((chat, batches, time.monotonic() + wait))
                else:
                    chat.ready_at = time.monotonic() + wait
            if granted:
                _round(run, pool, granted)
                queue = [(c, bs) for c, bs in queue if bs and not c.done]
    for chat, batches in queue:  # held back: the database keeps them
        seconds = max(0.0, chat.ready_at - time.monotonic())
        rest = _rows_of(batches)
        release(run.db, rest, run.clock() + timedelta(seconds=seconds))
        run.report.deferred.update({r.id: seconds for r in rest})


def _rows_of(batches: Sequence[Send]) -> list[Row]:
    """The rows these sends carry, each once (a row in parts is in several)."""
    seen: dict[int, Row] = {}
    for send in batches:
        for r in send.rows:
            seen.setdefault(r.id, r)
    return list(seen.values())


def _round(run: _Run, pool: ThreadPoolExecutor, granted: list[tuple[_Chat, list[Send], float]]) -> None:
    go: list[tuple[_Chat, list[Send]]] = []
    futures = []
    granted = sorted(granted, key=lambda g: g[2])
    while granted:
        # The sends whose slots come next are begun together, just before the first of them: a
        # row is in flight for its HTTP call and the few milliseconds before it, not for the round.
        first_slot = granted[0][2]
        group = [g for g in granted if g[2] <= first_slot + BEGIN_LEAD]
        granted = granted[len(group):]
        if (wait := first_slot - BEGIN_LEAD - time.monotonic()) > 0:
            time.sleep(wait)
        # The one place rows are marked in flight: from here a row may reach the player.
        mine = begin(run.db, [r for _, batches, _ in group for r in batches[0].rows], run.lease)
        in_flight(mine)
        for chat, batches, slot in group:
            send = batches[0]
            if not all(r.id in mine for r in send.rows):
                # Another worker took some of these over (our reservation ran out): the chat is its
                # now. What we began here was never sent, so it goes back as untouched (the
                # compare-and-set leaves the other worker's rows alone).
                release(run.db, _rows_of(batches), run.clock())
                chat.done = True
                continue
            go.append((chat, batches))
            run.inflight |= {r.id for r in send.rows}
            first = send.rows[0]
            sender = run.senders[first.channel]
            rebook = partial(run.limiter.rebook, first.channel, chat_kind(first.channel, first.address),
                             first.address, sender.cost(send.text))
            if first.action:  # an act on a chat (mute a Ghost), not a text
                futures.append(pool.submit(_at, slot, rebook, perform, sender, first.address, first.action,
                                           first.text, first.dedup_key))
            else:
                futures.append(pool.submit(_at, slot, rebook, sender.send, first.address, send.text,
                                           buttons=send.buttons, dedup_key=first.dedup_key))
    flying = [r for _, batches in go for r in batches[0].rows]
    results = flight.results(futures, partial(renew, run.db, flying, run.lease), run.lease / 3)
    done = [batches[0] for (_, batches), res in zip(go, results, strict=True) if res.ok and not res.new_address]
    if sent := [r for send in done if send.finishes for r in send.rows]:  # the common case, settled together
        settle(run.db, sent, status="sent", sent_at=run.clock())
        run.report.sent += len(sent)
    for send in done:
        if not send.finishes:  # a part: the row stays ours, out of flight until its next part begins
            settle(run.db, send.rows, parts_sent=send.part + 1, sent_at=None)
    run.report.messages += len(done)
    for (chat, batches), res in zip(go, results, strict=True):
        send = batches[0]
        if res.ok and not res.new_address:
            ok = True
        else:
            first = send.rows[0]
            behind = [r for r in _rows_of(batches[1:]) if r not in send.rows]
            ok = _record(run, res, send, behind, chat_kind(first.channel, first.address))
        run.inflight -= {r.id for r in send.rows}
        if ok:
            batches.pop(0)
        else:
            chat.done = True


def in_flight(ids: set[int]) -> None:
    """Rows ``ids`` are in flight, their sends about to go: a seam (tests/reliability kills a worker here)."""


def _at(slot: float, rebook: Callable[[], float], call: Callable[..., SendResult], *args: Any,
        **kwargs: Any) -> SendResult:
    """Make the call at its slot (``time.monotonic()``), which the limiter granted: not before, and
    not more than ``LATE`` after (else at the next free slot ``rebook`` gives)."""
    while True:
        if (wait := slot - time.monotonic()) > 0:
            time.sleep(wait)
        if (late := time.monotonic() - slot) <= LATE:
            return call(*args, **kwargs)
        slot = time.monotonic() + rebook()
        log.debug("outbox.rebooked", late=round(late, 3), wait=round(slot - time.monotonic(), 3))


def _record(run: _Run, result: SendResult, send: Send, behind: list[Row], kind: str) -> bool:
    """Store one send's outcome; True if the chat may go on with its next batch."""
    db, report, rows, now = run.db, run.report, send.rows, run.clock()
    first = rows[0]
    if result.status is SendStatus.SENT:
        if send.finishes:
            settle(db, rows, status="sent", sent_at=now)  # an "abandoned" note stays: it may be a copy
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
            _failed(run, rows, f"{GAVE_UP} after {first.token} attempts: {result.error or 'transient'}")
            release(db, behind, now)
            return False
        seconds = min(3600.0, 5.0 * 2 ** first.token)
        release(db, rows, now + timedelta(seconds=seconds), result.error or "transient", spend=True)
        release(db, behind, now + timedelta(seconds=seconds))
        report.deferred.update({r.id: seconds for r in rows + behind})
        return False
    reason = result.reason or PermanentReason.REJECTED
    if reason is PermanentReason.REJECTED:  # this text, not this person: the others may still go
        acts = [r for r in rows if r.action]
        if acts:  # a Ghost's mute Telegram refused: service.game.ghosts tells the hosts and stops muting
            settle(db, acts, status="failed", last_error=(result.error or "rejected")[:2000])
            report.failed += len(acts)
            report.refused += [r.id for r in acts]
        if texts := [r for r in rows if not r.action]:
            _failed(run, texts, f"refused by the platform: {result.error or 'rejected'}")
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


def _failed(run: _Run, rows: list[Row], why: str) -> None:
    """Texts that will never be sent, though their reader is still reachable: an error for the
    operator (the platform refused what the service wrote, or was down for hours), and the hosts
    of the game are told (``Report.lost``, ``service.game.failures``)."""
    settle(run.db, rows, status="failed", last_error=why[:2000])
    run.report.failed += len(rows)
    run.report.lost += [r.id for r in rows]
    for r in rows:
        log.error("outbox.failed", id=r.id, key=r.dedup_key, channel=r.channel, game=r.game_id,
                  chars=len(r.text), error=why[:300])
