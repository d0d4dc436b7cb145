"""Sends what the outbox holds through the real senders (pointed at the stand-ins), as the worker
will: a test helper only, until the worker's dispatch exists. Buttons go as ``buttons=``."""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from service.delivery.senders import Button, PermanentReason, Sender, SendStatus, perform
from service.store.db import transaction
from service.store.models import Identity, Outbox, utcnow


def keyboard(rows: list[list[dict[str, str]]] | None) -> list[list[Button]] | None:
    if not rows:
        return None
    return [[Button(b["text"], data=b.get("data"), url=b.get("url")) for b in row] for row in rows]


def drain(db: Engine, senders: Mapping[str, Sender]) -> int:
    """Send every pending row once, oldest first; returns how many were sent."""
    with Session(db) as s:
        rows = list(
            s.exec(
                select(Outbox, Identity.address)
                .join(Identity, col(Identity.id) == col(Outbox.identity_id))
                .where(col(Outbox.status) == "pending")
                .order_by(col(Outbox.id))
            )
        )
    sent = 0
    for row, address in rows:
        sender = senders[row.channel]
        result = (
            perform(sender, address, row.action, row.text, row.dedup_key)
            if row.action  # mute, a keyboard
            else sender.send(address, row.text, buttons=keyboard(row.buttons), dedup_key=row.dedup_key)
        )
        with transaction(db) as s:
            fresh = s.get(Outbox, row.id)
            assert fresh is not None
            fresh.attempts += 1
            if result.ok:
                fresh.status, fresh.sent_at = "sent", utcnow()
                sent += 1
            else:
                fresh.status, fresh.last_error = "failed", result.error
                # As the worker does: a refused text or act (REJECTED) is that row's alone.
                if (
                    result.status is SendStatus.PERMANENT
                    and result.reason is not PermanentReason.REJECTED
                    and (person := s.get(Identity, fresh.identity_id))
                ):
                    person.unreachable = True
                    s.add(person)
            s.add(fresh)
    return sent
