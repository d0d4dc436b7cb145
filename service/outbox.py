"""Sending what the outbox holds: the one small interface every channel's sender fills,
a recording sender for tests, and the delivery loop the worker's task wraps.

A row is claimed, sent, and marked sent; a failure is retried later with backoff until
``OUTBOX_MAX_ATTEMPTS``, then marked failed. ``dedup_key`` is unique, so nothing that
caused a message can write it twice.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from .db import is_sqlite, transaction
from .models import Identity, Outbox, utcnow


class Sender(Protocol):
    """One channel's way out (Telegram, Twilio, the recording fake)."""

    def send(self, address: str, text: str) -> None: ...


class PermanentFailure(Exception):
    """The address will never accept messages (blocked the bot, texted STOP): stop trying."""


@dataclass
class RecordingSender:
    """Keeps every message by address, for tests."""

    sent: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))

    def send(self, address: str, text: str) -> None:
        self.sent[address].append(text)


def claim(db: Engine, now: datetime | None = None, limit: int = 100,
          lease: timedelta = timedelta(minutes=5)) -> list[tuple[int, str, str, str]]:
    """Pending messages due now: (outbox id, channel, address, text), oldest first.

    Claimed rows are leased: not due again until ``lease`` has passed, so two dispatchers
    never take the same row at once, and a row whose sender died is tried again later."""
    when = now or utcnow()
    with transaction(db) as session:
        stmt = (select(Outbox, Identity.address).join(Identity, col(Identity.id) == col(Outbox.identity_id))
                .where(col(Outbox.status) == "pending", col(Outbox.not_before) <= when)
                .order_by(col(Outbox.id)).limit(limit))
        if not is_sqlite(str(db.url)):
            stmt = stmt.with_for_update(skip_locked=True, of=Outbox)
        out = []
        for row, address in session.exec(stmt).all():
            if row.id is not None:
                row.not_before = when + lease
                session.add(row)
                out.append((row.id, row.channel, address, row.text))
        return out


def mark_sent(db: Engine, outbox_id: int, now: datetime | None = None) -> None:
    with transaction(db) as session:
        row = session.get(Outbox, outbox_id)
        if row is not None and row.status == "pending":
            row.status, row.sent_at, row.attempts = "sent", now or utcnow(), row.attempts + 1
            session.add(row)


def mark_failed(db: Engine, outbox_id: int, error: str, max_attempts: int, now: datetime | None = None,
                permanent: bool = False) -> None:
    when = now or utcnow()
    with transaction(db) as session:
        row = session.get(Outbox, outbox_id)
        if row is None or row.status != "pending":
            return
        row.attempts += 1
        row.last_error = error[:2000]
        if permanent or row.attempts >= max_attempts:
            row.status = "failed"
            if permanent and (person := session.get(Identity, row.identity_id)) is not None:
                person.unreachable = True
                session.add(person)
        else:
            row.not_before = when + timedelta(seconds=min(3600, 5 * 2 ** row.attempts))
        session.add(row)


def deliver(db: Engine, senders: Mapping[str, Sender], now: datetime | None = None, limit: int = 100,
            max_attempts: int = 8) -> int:
    """Send what is due through each channel's sender; returns how many were sent."""
    done = 0
    for oid, channel, address, text in claim(db, now, limit):
        sender = senders.get(channel)
        if sender is None:
            continue
        try:
            sender.send(address, text)
        except PermanentFailure as e:
            mark_failed(db, oid, str(e), max_attempts, now, permanent=True)
            continue
        except Exception as e:  # a channel's error: retried later
            mark_failed(db, oid, f"{type(e).__name__}: {e}", max_attempts, now)
            continue
        mark_sent(db, oid, now)
        done += 1
    return done


def count(db: Engine, status: str) -> int:
    with Session(db) as session:
        return len(session.exec(select(Outbox.id).where(Outbox.status == status)).all())
