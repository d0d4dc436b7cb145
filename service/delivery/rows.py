"""The outbox's rows as the dispatcher sees them, and every write it makes to them: claim (reserve),
begin (in flight), settle, release, and what a permanent failure or a moved chat changes. Each
write after the claim is a compare-and-set on (status, attempts), so a worker whose reservation ran
out cannot overwrite what the next one did. The life of a row is told in ``dispatch``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import structlog
from sqlalchemy import Engine, and_, case, func, or_, tuple_, update
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, col, select

from service.channels import channel as channel_of
from service.delivery.senders import Button, Keyboard, PermanentReason
from service.store.db import is_sqlite, transaction
from service.store.models import Identity, Outbox, utcnow
from service.store.status import OutboxStatus

log = structlog.get_logger(__name__)
ABANDONED = "abandoned while sending"


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
    parts_sent: int = 0  # a text sent in parts (too long for one message): how many went already


def chat_kind(channel: str, address: str) -> str:
    """A group chat (Telegram's have negative ids) or one person, as the address's channel says."""
    return "group" if channel_of(channel).group(address) else "private"


def keyboard(raw: Any) -> Keyboard | None:
    """The outbox's ``buttons`` column (rows of {text, data|url}), read defensively."""
    if not raw:
        return None
    try:
        return [[Button(b["text"], b.get("data"), b.get("url")) for b in row] for row in raw]
    except (TypeError, KeyError, ValueError):
        log.warning("outbox.bad_buttons", buttons=repr(raw)[:200])
        return None


def claim(
    db: Engine,
    now: datetime,
    channels: Sequence[str],
    *,
    ids: Sequence[int] | None = None,
    limit: int = 200,
    lease: float = 60,
) -> list[Row]:
    """Reserve due rows for sending (see the module docstring), oldest first: for each chat, its
    rows from the first one not yet sent on, in order, up to the first that cannot go now. With
    ``ids``: everything due for the chats those rows are for, so that what queued up for a chat
    goes together (a group's texts merged) and a row asked for by a later task never overtakes
    an earlier one that is due but was not asked for."""
    wall = utcnow()
    waiting = or_(
        and_(col(Outbox.status) == OutboxStatus.PENDING, col(Outbox.not_before) > now),
        and_(col(Outbox.status) == OutboxStatus.SENDING, col(Outbox.not_before) > wall),
    )
    due = or_(
        and_(col(Outbox.status) == OutboxStatus.PENDING, col(Outbox.not_before) <= now),
        and_(col(Outbox.status) == OutboxStatus.SENDING, col(Outbox.not_before) <= wall),
    )
    # Which rows can go, in one pass over the unsent rows in each reader's order (a window, not a
    # join): a due row goes unless an earlier unsent row of its reader waits. As a correlated NOT
    # EXISTS, the planner's choice decided the cost, and on stale statistics (a backlog that grew
    # faster than ANALYZE ran) it checked each due row against every waiting row: 6 s a claim
    # with 5,000 rows pending, the worker's pool spent in that query and the closes behind it late.
    behind = func.max(case((waiting, 1), else_=0)).over(
        partition_by=col(Outbox.identity_id), order_by=col(Outbox.id), rows=(None, -1)
    )
    unsent: Any = select(
        col(Outbox.id).label("id"),
        col(Outbox.channel).label("channel"),
        case((due, 1), else_=0).label("due"),
        behind.label("behind"),
    ).where(col(Outbox.status).in_((OutboxStatus.PENDING, OutboxStatus.SENDING)))
    if ids is not None:
        unsent = unsent.where(
            col(Outbox.identity_id).in_(select(Outbox.identity_id).where(col(Outbox.id).in_(list(ids))))
        )
    u = unsent.subquery()
    ready = (
        select(u.c.id)
        .where(u.c.due == 1, u.c.channel.in_(list(channels)), func.coalesce(u.c.behind, 0) == 0)
        .order_by(u.c.id)
        .limit(limit)
    )
    out: list[Row] = []
    with transaction(db) as s:
        first = [int(i) for i in s.execute(ready).scalars()]
        # Locked by id, due again (another worker may have claimed some since): the rows it holds
        # locked are skipped, and ``_in_turn`` keeps each reader's rows without a gap.
        stmt = (
            select(Outbox, Identity)
            .join(Identity, col(Identity.id) == col(Outbox.identity_id))
            .where(col(Outbox.id).in_(first), due)
            .order_by(col(Outbox.id))
        )
        if not is_sqlite(str(db.url)):
            stmt = stmt.with_for_update(skip_locked=True, of=Outbox)
        found = s.exec(stmt).all() if first else []
        heads = _in_turn([row for row, _ in found], s)
        for row, person in found:
            assert row.id is not None
            if row.id not in heads:
                continue
            if row.status == OutboxStatus.SENDING and row.sent_at is not None:  # it was in flight when its worker died
                if (row.last_error or "").startswith(ABANDONED):
                    row.status, row.last_error = OutboxStatus.FAILED, f"{ABANDONED} twice: not sent a third time"
                    s.add(row)
                    log.warning("outbox.abandoned_twice", id=row.id, key=row.dedup_key)
                    continue
                row.last_error = f"{ABANDONED} (attempt {row.attempts}): sent once more"
                log.warning("outbox.abandoned", id=row.id, key=row.dedup_key)
            # (A row only reserved by a worker that died or ran out of time was never sent: it is
            # simply taken again.)
            if person.opted_out or person.unreachable:
                row.status, row.last_error = OutboxStatus.FAILED, "recipient unreachable"
                s.add(row)
                continue
            row.status, row.attempts = OutboxStatus.SENDING, row.attempts + 1
            row.not_before, row.sent_at = wall + timedelta(seconds=lease), None
            s.add(row)
            out.append(
                Row(
                    row.id,
                    row.attempts,
                    row.identity_id,
                    row.channel,
                    person.address,
                    row.text,
                    keyboard(getattr(row, "buttons", None)),
                    row.dedup_key,
                    row.game_id,
                    row.action,
                    row.parts_sent,
                )
            )
    if out:
        log.debug("outbox.claimed", rows=[(r.id, r.token) for r in out])
    return out


def _in_turn(found: Sequence[Outbox], s: Session) -> set[int]:
    """Of the rows a claim found, those whose turn it is: each chat's, from its first row not yet
    sent on, without a gap. The claim's own query already leaves out a row behind one that waits;
    this also catches one behind a row another worker is claiming this very moment, which
    ``SKIP LOCKED`` hides from the query (that row is still unsent here, as last committed)."""
    if not found:
        return set()
    last = max(r.id or 0 for r in found)
    unsent = s.execute(
        select(Outbox.identity_id, Outbox.id)
        .where(
            col(Outbox.identity_id).in_({r.identity_id for r in found}),
            col(Outbox.id) <= last,
            col(Outbox.status).in_((OutboxStatus.PENDING, OutboxStatus.SENDING)),
        )
        .order_by(col(Outbox.id))
    ).all()
    queues: dict[int, list[int]] = {}
    for identity_id, oid in unsent:
        queues.setdefault(int(identity_id), []).append(int(oid))
    taken: dict[int, list[int]] = {}
    for r in found:
        taken.setdefault(r.identity_id, []).append(r.id or 0)
    turn: set[int] = set()
    for identity_id, mine in taken.items():
        queue = queues.get(identity_id, [])
        for a, b in zip(mine, queue, strict=False):
            if a != b:
                break
            turn.add(a)
    return turn


def begin(db: Engine, rows: Sequence[Row], lease: float = 60) -> set[int]:
    """Mark reserved rows in flight, right before their send; returns the ids still ours (a row
    whose reservation ran out and that another worker claimed is not ours to send any more)."""
    if not rows:
        return set()
    wall = utcnow()
    with transaction(db) as s:
        result = s.execute(
            update(Outbox)
            .where(ours(rows), col(Outbox.sent_at).is_(None))
            .values(sent_at=wall, not_before=wall + timedelta(seconds=lease))
            .returning(col(Outbox.id))
        )
        mine = {int(i) for i in result.scalars()}
    if len(mine) < len(rows):
        log.info("outbox.overtaken", ids=sorted(r.id for r in rows if r.id not in mine))
    return mine


def renew(db: Engine, rows: Sequence[Row], lease: float) -> None:
    """Rows still ours, in flight or reserved, keep them ``lease`` seconds more: a live worker's
    pass renews what it holds every third of the lease, so the lease can be seconds long."""
    if rows:
        with transaction(db) as s:
            s.execute(update(Outbox).where(ours(rows)).values(not_before=utcnow() + timedelta(seconds=lease)))


def ours(rows: Sequence[Row]) -> Any:
    """Rows still as this worker's claim left them: the compare-and-set on (status, attempts)."""
    return and_(
        col(Outbox.status) == OutboxStatus.SENDING,
        tuple_(col(Outbox.id), col(Outbox.attempts)).in_([(r.id, r.token) for r in rows]),
    )


def settle(db: Engine, rows: Sequence[Row], **values: Any) -> None:
    """Write the outcome of claimed rows, each only if still ours (status and attempts unchanged)."""
    if rows:
        with transaction(db) as s:
            s.execute(update(Outbox).where(ours(rows)).values(**values))


def release(db: Engine, rows: Sequence[Row], when: datetime, error: str | None = None, spend: bool = False) -> None:
    """Back to pending until ``when``. A deferral is not an attempt (``spend`` False gives it back)."""
    if not rows:
        return
    values: dict[str, Any] = {"status": OutboxStatus.PENDING, "not_before": when, "sent_at": None}
    if not spend:
        values["attempts"] = col(Outbox.attempts) - 1  # the compare-and-set says it is our token
    if error is not None:
        values["last_error"] = error[:2000]
    with transaction(db) as s:
        s.execute(update(Outbox).where(ours(rows)).values(**values))


def hold_back(db: Engine, held: Sequence[tuple[Sequence[Row], datetime]]) -> None:
    """``release`` of several chats' rows, each chat's until its own time, in one statement: what a
    pass leaves behind when it ends (not an attempt)."""
    when = {r.id: at for rows, at in held for r in rows}
    if not when:
        return
    rows = [r for chat, _ in held for r in chat]
    with transaction(db) as s:
        s.execute(
            update(Outbox)
            .where(ours(rows))
            .values(
                status=OutboxStatus.PENDING,
                sent_at=None,
                attempts=col(Outbox.attempts) - 1,
                not_before=case(when, value=col(Outbox.id)),
            )
        )


def release_retrying(db: Engine, rows: Sequence[Row], when: datetime, error: str, tries: int = 6) -> None:
    """``_release`` after a failure, tried again while the database refuses: the error that stopped
    the run is often a connection lost (PostgreSQL restarting drops them all), and the first try may
    meet one too. Rows not handed back would wait for their reservation to run out."""
    for attempt in range(tries):
        try:
            release(db, rows, when, error)
            return
        except OperationalError:
            if attempt == tries - 1:
                raise
            time.sleep(0.05 * 2**attempt)


def unreachable(db: Engine, person_id: int, reason: PermanentReason, error: str) -> list[int]:
    """Mark the person and fail everything queued for him; returns the games concerned."""
    with transaction(db) as s:
        person = s.get(Identity, person_id)
        if person is not None:
            if reason is PermanentReason.OPTED_OUT:
                person.opted_out = True
            else:
                person.unreachable = True
            s.add(person)
        rows = s.exec(
            select(Outbox).where(
                Outbox.identity_id == person_id,
                col(Outbox.status).in_((OutboxStatus.PENDING, OutboxStatus.SENDING, OutboxStatus.HELD)),
            )
        ).all()
        games = sorted({r.game_id for r in rows if r.game_id is not None})
        s.execute(
            update(Outbox)
            .where(
                col(Outbox.identity_id) == person_id,
                col(Outbox.status).in_((OutboxStatus.PENDING, OutboxStatus.SENDING, OutboxStatus.HELD)),
            )
            .values(status=OutboxStatus.FAILED, last_error=f"{reason.value}: {error}"[:2000])
        )
    return games


def move_address(db: Engine, identity_id: int, address: str) -> None:
    """A Telegram group became a supergroup: its new id is where it is reached from now on."""
    with transaction(db) as s:
        person = s.get(Identity, identity_id)
        channel = person.channel if person is not None else ""
        taken = s.exec(select(Identity).where(Identity.channel == channel, Identity.address == address)).first()
        if person is not None and taken is None:
            person.address = address
            s.add(person)


def pending_count(db: Engine) -> int:
    with Session(db) as s:
        return len(
            s.exec(
                select(Outbox.id).where(
                    or_(col(Outbox.status) == OutboxStatus.PENDING, and_(col(Outbox.status) == OutboxStatus.SENDING))
                )
            ).all()
        )


@dataclass
class Report:
    """What one pass of ``dispatch.deliver`` did, for the task that ran it and for the hosts' notices."""

    sent: int = 0
    messages: int = 0  # what reached the platforms (merged group texts count once)
    failed: int = 0
    deferred: dict[int, float] = field(default_factory=dict)  # row id -> seconds from now
    unreachable: list[tuple[int, str, list[int]]] = field(default_factory=list)  # (identity, reason, games)
    refused: list[int] = field(default_factory=list)  # act rows the platform refused (service.game.failures)
    lost: list[int] = field(default_factory=list)  # texts failed for good, reader reachable (service.game.failures)

    def soonest(self) -> float | None:
        return min(self.deferred.values(), default=None)
