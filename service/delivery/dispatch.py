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
  (``sent_at`` = the wall clock, the lease renewed every third of it while the send runs), again as a
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
- At once: a pass keeps up to ``concurrency`` sends going, each to a different chat (one at a time
  per chat, so each chat stays in order), as a pipeline rather than in rounds: every ``TICK`` it
  settles what landed since the last look (one statement), books the next ready chats' slots with
  the limiter, and begins together (one statement) the sends whose slots are near. The limiter
  books each send a slot up to ``AHEAD`` seconds ahead (the bot's 29 a second come one every 34
  ms) and the send waits for it, so slots are taken in turn by the processes instead of lost while
  none of them was asking, and a slow answer (a round trip of 0.1 to 0.3 s to Telegram) holds up
  only its own chat. The sends whose slots are near are begun together just before them
  (``BEGIN_LEAD``), so a row is in flight only for its HTTP call and the moment before it. A send
  that wakes up too late for its slot (``LATE``) takes the next free one rather than crowd the
  sends booked after it. A task asked for some rows (``fill``) goes on, once their chats are under
  way, with whatever else is due for the rest of its budget: behind a backlog, each task keeps the
  pipeline full instead of draining it after a chat or two (``bench/capacity``).
- Merged and split: what is queued for a Telegram group goes out merged into as few messages as
  fit (20 a minute is little: a burst of joins reaches the group in a few messages, the last with
  the final count). A text longer than its platform takes (``batching.MAX_LEN``: Twilio refuses
  over 1,600 characters) goes as consecutive parts, each a send of its own; ``parts_sent`` says how
  many the platform took, so a retry or a crash goes on from there.
- Outcomes (``outcomes``): a 429 / RetryAfter penalizes the chat in the limiter and defers it; a transient error
  retries with exponential backoff until ``max_attempts``; a permanent one for the person (blocked,
  STOP, error 21610, no such chat) marks him unreachable or opted out, fails what is queued for him
  and tells the host of each game concerned (a warning: his choice, not a fault). A text refused for
  itself, or that gave up, fails alone: an error in the log, and ``Report.lost`` for the hosts
  (``service.game.failures``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any

import structlog
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from service.delivery.batching import Send, sends
from service.delivery.limiter import Limiter
from service.delivery.outcomes import GAVE_UP, Run, record
from service.delivery.rows import (
    Report,
    Row,
    begin,
    chat_kind,
    claim,
    hold_back,
    release,
    release_retrying,
    renew,
    settle,
)
from service.delivery.senders import PermanentReason, Sender, SendResult, perform
from service.store.models import Outbox, utcnow
from service.store.status import OutboxStatus

__all__ = ["GAVE_UP", "Report", "deliver", "in_flight"]
log = structlog.get_logger(__name__)
SHORT_WAIT = 0.25  # seconds: a chat held back less than this waits in memory, not in the database
RESERVE_MARGIN = 10.0  # seconds a reservation outlasts the budget of the pass that made it
# Seconds past the budget a pass still sends chats that are ready at once (a budget of 0 sends what
# can go now): a worker's pool process is held for the budget and this, and a phase's close due
# meanwhile waits for it (``worker.celery_app``). Well inside RESERVE_MARGIN, so no send begins
# once the rows' reservation could have lapsed.
OVERRUN = 1.0
# Sends booked or in flight at once per process: at the bot's 29 a second, those booked AHEAD (about
# 7) and those waiting for Telegram's answer (3 at 0.1 s, 9 at 0.3 s) with room to spare.
CONCURRENCY = 16
# How far ahead a send's slot is booked with the limiter (the send waits for it): the bot-wide slots
# come one every 1/29 s, and one booked only when a process happened to ask (between its database
# writes and HTTP calls) left every slot nobody asked for unused, about 10% of them.
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
# Seconds between two looks at the sends that landed: they are settled together, a statement a look
# (one a send was 29 transactions a second at the bot's rate); a chat's next send waits this at most.
TICK = 0.1
# Seconds between two claims of more rows in one pass (``fill``), after one that found some and after
# one that found none: a claim is a query over every unsent row, tens of milliseconds behind a backlog.
REFILL, REFILL_EMPTY = 0.25, 1.0
EXTEND = 1.0  # seconds a pass's budget is pushed at a time when ``go_on`` lets it


@dataclass
class _Chat:
    batches: list[Send]  # what is left to send to it, in order
    ready_at: float = 0.0  # time.monotonic() when the limiter may let its next send through
    done: bool = False  # nothing more of it in this pass (deferred, unreachable, or taken over)
    slot: float | None = None  # its next send's slot, booked with the limiter and not yet begun
    flying: Future[SendResult] | None = None  # its send, begun and not yet settled

    @property
    def idle(self) -> bool:
        return self.slot is None and self.flying is None


def deliver(
    db: Engine,
    senders: Mapping[str, Sender],
    limiter: Limiter,
    *,
    clock: Callable[[], datetime] = utcnow,
    ids: Sequence[int] | None = None,
    budget: float = 10.0,
    limit: int = 200,
    lease: float = 60,
    max_attempts: int = 8,
    concurrency: int = CONCURRENCY,
    fill: bool = False,
    most: float | None = None,
    go_on: Callable[[], bool] | None = None,
    on_unreachable: Callable[[int, PermanentReason, list[int]], None] | None = None,
) -> Report:
    """Send what is due (only ``ids`` if given, and then whatever else is due if ``fill``) for up to
    ``budget`` seconds, up to ``concurrency`` sends at a time (to different chats); see the module
    docstring. ``go_on``, asked near the end of the budget, may push it a second at a time, up to
    ``most`` seconds in all: nothing else waits for this process (every stop and start of a pass
    leaves the bot's slots of about a third of a second unused)."""
    if not senders:  # every channel is off in this process: nothing it could claim
        return Report()
    for sender in senders.values():  # a sender's set-up is not made at a send's rate slot
        if (warm := getattr(sender, "warm", None)) is not None:
            warm()
    started = time.monotonic()
    run = Run(
        db,
        senders,
        limiter,
        clock,
        lease,
        started + budget,
        max_attempts,
        on_unreachable,
        max(1, concurrency),
        started + max(budget, most or 0.0),
        go_on,
    )
    claimed: list[Row] = []

    def more(asked: Sequence[int] | None) -> list[_Chat]:
        # Reserved for what is left of the budget (no send begins after it) and a margin; a send
        # once begun holds its row by a lease renewed while it runs.
        reserve = max(0.0, run.until - time.monotonic()) + RESERVE_MARGIN
        rows = claim(db, clock(), list(senders), ids=asked, limit=limit, lease=min(lease, reserve))
        claimed.extend(rows)
        chats: dict[tuple[int, str], list[Row]] = {}
        for r in rows:
            chats.setdefault((r.identity_id, r.address), []).append(r)
        return [_Chat(sends(rs, getattr(senders[rs[0].channel], "prepare", None))) for rs in chats.values()]

    now = clock()
    first = more(ids)
    if not first and ids is not None and fill:  # what was asked for went with another pass's fill
        first = more(None)
    if first:
        try:
            # (A pass asked for ids fills at once; the outbox sweep's first claim took what was due.)
            _stream(
                run,
                first,
                partial(more, None) if ids is None or fill else None,
                -math.inf if ids is not None else time.monotonic(),
            )
        except BaseException as e:
            # Hand back what this run reserved and did not send (the compare-and-set leaves the
            # settled ones alone). A row in flight stays so: it may have reached the player, and
            # its lease decides. (Due as of the first claim: the clock itself may be what failed.)
            # (A connection lost is often what stopped the run, and the release may meet one too.)
            release_retrying(
                db, [r for r in claimed if r.id not in run.inflight], now, f"released after {type(e).__name__}: {e}"
            )
            raise
    if ids is not None:
        _left_behind(db, ids, list(senders), clock(), run.report)
    return run.report


def _left_behind(db: Engine, ids: Sequence[int], channels: Sequence[str], now: datetime, report: Report) -> None:
    """Asked-for rows still pending (not yet due, or queued behind an earlier row of the same chat):
    reported as deferred, so the task looks at them again rather than leave them to the sweep, when
    they can go: not before an earlier row of their chat that waits for its time. Rows of a channel
    this process cannot send (no sender: its credentials are not set) are not: the task would come
    back for them every second for ever."""
    with Session(db) as s:
        rows = s.exec(
            select(Outbox.id, Outbox.identity_id, Outbox.not_before).where(
                col(Outbox.id).in_(list(ids)),
                col(Outbox.channel).in_(list(channels)),
                Outbox.status == OutboxStatus.PENDING,
            )
        ).all()
        if not rows:
            return
        ahead = s.exec(
            select(Outbox.id, Outbox.identity_id, Outbox.not_before).where(
                col(Outbox.identity_id).in_({p for _, p, _ in rows}),
                col(Outbox.id) < max(i or 0 for i, _, _ in rows),
                Outbox.status == OutboxStatus.PENDING,
                col(Outbox.not_before) > now,
            )
        ).all()
    for oid, person, not_before in rows:
        if oid is None or oid in report.deferred:
            continue
        wait = max([not_before, *(nb for i, p, nb in ahead if p == person and (i or 0) < oid)])
        report.deferred[oid] = max(1.0, (wait - now).total_seconds())


def _stream(run: Run, chats: list[_Chat], more: Callable[[], list[_Chat]] | None, refilled: float) -> None:
    """The pipeline of sends (see the module docstring), until the budget is spent or nothing more
    can go soon; ``more`` claims further chats when few are left ready (not before ``refilled`` +
    REFILL). What is left goes back to the database, each chat until the limiter lets it through."""
    renewed, found, asked = time.monotonic(), True, -math.inf
    with ThreadPoolExecutor(run.concurrency, thread_name_prefix="lupus-send") as pool:
        while True:
            _land(run, chats)
            chats = [c for c in chats if c.batches and not c.done]
            now = time.monotonic()
            if (
                run.go_on is not None
                and now < run.until < run.last
                and run.until - now <= EXTEND
                and now - asked >= EXTEND / 2
            ):
                asked = now
                if run.go_on():
                    run.until = min(run.last, run.until + EXTEND)
            if now - renewed >= run.lease / 3:  # what the pass holds stays its own while it lives
                renew(run.db, [r for c in chats for r in _rows_of(c.batches)], run.lease)
                renewed = now
            if now <= run.until + OVERRUN:
                if (
                    more is not None
                    and now < run.until
                    and now - refilled >= (REFILL if found else REFILL_EMPTY)
                    and sum(c.idle and c.ready_at <= now + AHEAD for c in chats) < run.concurrency
                ):
                    got = more()
                    found = bool(got)
                    chats += got
                    refilled = now
                _book(run, chats, now)
            _begin(run, pool, chats)
            flying = [c.flying for c in chats if c.flying is not None]
            booked = [c.slot for c in chats if c.slot is not None]
            if not flying and not booked:
                soonest = min((c.ready_at for c in chats), default=math.inf)
                if now > run.until + OVERRUN or (soonest > now and (soonest - now > SHORT_WAIT or soonest > run.until)):
                    break  # nothing can go now
            pause = min([TICK, *(s - BEGIN_LEAD - now for s in booked)])
            if not flying and not booked:
                pause = soonest - now
            if flying:
                wait(flying, timeout=max(0.0, pause))
            elif pause > 0:
                time.sleep(pause)
    held = [(chat, _rows_of(chat.batches)) for chat in chats]  # held back: the database keeps them
    now_wall, mono = run.clock(), time.monotonic()
    hold_back(run.db, [(rows, now_wall + timedelta(seconds=max(0.0, c.ready_at - mono))) for c, rows in held])
    run.report.deferred.update({r.id: max(0.0, c.ready_at - mono) for c, rows in held for r in rows})


def _book(run: Run, chats: list[_Chat], now: float) -> None:
    """Slots with the limiter for the next ready chats, as many as there is room for."""
    room = run.concurrency - sum(not c.idle for c in chats)
    # (Asking the limiter for many chats once the bot's own limit is reached only collects
    # refusals: a look asks for at most twice what there is room for.)
    asks = 2 * room
    for chat in sorted((c for c in chats if c.idle and c.ready_at <= now), key=lambda c: c.ready_at):
        if room <= 0 or asks <= 0:
            break
        asks -= 1
        send = chat.batches[0]
        first = send.rows[0]
        cost = run.senders[first.channel].cost(send.text)
        ok, wait_s = run.limiter.reserve(
            first.channel, chat_kind(first.channel, first.address), first.address, cost, within=AHEAD
        )
        if ok:
            chat.slot = time.monotonic() + wait_s
            room -= 1
        else:
            chat.ready_at = time.monotonic() + wait_s


def _rows_of(batches: Sequence[Send]) -> list[Row]:
    """The rows these sends carry, each once (a row in parts is in several)."""
    seen: dict[int, Row] = {}
    for send in batches:
        for r in send.rows:
            seen.setdefault(r.id, r)
    return list(seen.values())


def _begin(run: Run, pool: ThreadPoolExecutor, chats: list[_Chat]) -> None:
    """Begin the booked sends whose slots come next, together, just before the first of them: a row
    is in flight for its HTTP call and the few milliseconds before it."""
    booked = [c for c in chats if c.slot is not None]
    if not booked:
        return
    first_slot = min(c.slot for c in booked if c.slot is not None)
    if first_slot - BEGIN_LEAD > time.monotonic():
        return
    group = [c for c in booked if c.slot is not None and c.slot <= first_slot + BEGIN_LEAD]
    # The one place rows are marked in flight: from here a row may reach the player.
    mine = begin(run.db, [r for c in group for r in c.batches[0].rows], run.lease)
    in_flight(mine)
    for chat in group:
        send, slot = chat.batches[0], chat.slot or 0.0
        chat.slot = None
        if not all(r.id in mine for r in send.rows):
            # Another worker took some of these over (our reservation ran out): the chat is its
            # now. What we began here was never sent, so it goes back as untouched (the
            # compare-and-set leaves the other worker's rows alone).
            release(run.db, _rows_of(chat.batches), run.clock())
            chat.done = True
            continue
        run.inflight |= {r.id for r in send.rows}
        first = send.rows[0]
        sender = run.senders[first.channel]
        rebook = partial(
            run.limiter.rebook,
            first.channel,
            chat_kind(first.channel, first.address),
            first.address,
            sender.cost(send.text),
        )
        if first.action:  # an act on a chat (mute a Ghost), not a text
            chat.flying = pool.submit(
                _at, slot, rebook, perform, sender, first.address, first.action, first.text, first.dedup_key
            )
        else:
            chat.flying = pool.submit(
                _at,
                slot,
                rebook,
                sender.send,
                first.address,
                send.text,
                buttons=send.buttons,
                dedup_key=first.dedup_key,
            )


def _land(run: Run, chats: list[_Chat]) -> None:
    """Write what the platforms answered since the last look: the sent ones in one statement."""
    landed = [c for c in chats if c.flying is not None and c.flying.done()]
    results = [c.flying.result() for c in landed if c.flying is not None]
    done = [c.batches[0] for c, res in zip(landed, results, strict=True) if res.ok and not res.new_address]
    if sent := [r for send in done if send.finishes for r in send.rows]:  # the common case, settled together
        settle(run.db, sent, status=OutboxStatus.SENT, sent_at=run.clock())
        run.report.sent += len(sent)
    for send in done:
        if not send.finishes:  # a part: the row stays ours, out of flight until its next part begins
            settle(run.db, send.rows, parts_sent=send.part + 1, sent_at=None)
    run.report.messages += len(done)
    for chat, res in zip(landed, results, strict=True):
        send = chat.batches[0]
        chat.flying = None
        if res.ok and not res.new_address:
            ok = True
        else:
            first = send.rows[0]
            behind = [r for r in _rows_of(chat.batches[1:]) if r not in send.rows]
            ok = record(run, res, send, behind, chat_kind(first.channel, first.address))
        run.inflight -= {r.id for r in send.rows}
        if ok:
            chat.batches.pop(0)
        else:
            chat.done = True


def in_flight(ids: set[int]) -> None:
    """Rows ``ids`` are in flight, their sends about to go: a seam (tests/reliability kills a worker here)."""


def _at(
    slot: float, rebook: Callable[[], float], call: Callable[..., SendResult], *args: Any, **kwargs: Any
) -> SendResult:
    """Make the call at its slot (``time.monotonic()``), which the limiter granted: not before, and
    not more than ``LATE`` after (else at the next free slot ``rebook`` gives)."""
    while True:
        if (wait_s := slot - time.monotonic()) > 0:
            time.sleep(wait_s)
        if (late := time.monotonic() - slot) <= LATE:
            return call(*args, **kwargs)
        slot = time.monotonic() + rebook()
        log.debug("outbox.rebooked", late=round(late, 3), wait=round(slot - time.monotonic(), 3))
