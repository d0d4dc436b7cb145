"""One transaction's unit of work: the rows a command added that are not in the database yet, the
identities a batch looked up, and the one rule for when the rows are written.

The rule: a command's new log rows and outbox rows are *staged* here, not added to the session,
and are written as one INSERT per table (log rows first, then outbox rows; SQLite, whose RETURNING
keeps no order, takes the outbox's a row at a time, in the order staged) at commit, or earlier
only when a read is about to need them: a read of one of those tables goes through ``reading``,
which writes that table's staged rows when one the read could find is among them (all of them,
so ids keep the order the rows were staged in), and lets the session flush its
own pending changes first only when one of them is a row of that table; otherwise the read runs
without an autoflush, and the session's changes wait for the command's one flush at the end. A
rollback drops what was staged. Nothing else decides when these rows reach the database.

Why: the ORM's insert of the log rows, then of the outbox rows, was the largest cost of a move,
and a batch of commands (``Service.handle_inbound_many``) then writes all of theirs in two
statements. A new outbox row is a ``Letter``, a plain object, not one of the session's: the
ORM's bookkeeping for each object (built, then made persistent after the INSERT) cost more than
the INSERT itself. What changes a letter before it is written (``Ctx.merge_texts``) is written
with it; a change to its status after it is written is written as an UPDATE before the next read
of the outbox, or at commit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import bindparam, event, update
from sqlmodel import Session

from service.store.db import insert_rows
from service.store.models import GameEvent, Identity, Outbox
from service.store.status import OutboxStatus

_KEY = "lupus.unit"
"""``session.info`` key of the session's ``Unit``: the only one this module and its callers use."""
_OUTBOX = cast("Any", Outbox).__table__
_SET_STATUS = update(_OUTBOX).where(_OUTBOX.c.id == bindparam("_id")).values(status=bindparam("_status"))


@dataclass(slots=True, eq=False)
class Letter:
    """A new row of the outbox (``service.store.models.Outbox``'s columns a command sets; the others
    start as the table's defaults). ``id`` is None until it is written."""

    identity_id: int
    channel: str
    game_id: int | None
    key: str
    text: str
    dedup_key: str
    not_before: datetime
    created_at: datetime
    status: str = OutboxStatus.PENDING
    buttons: list[list[dict[str, str]]] | None = None
    action: str | None = None
    id: int | None = None

    def values(self) -> dict[str, Any]:
        return {
            "identity_id": self.identity_id,
            "channel": self.channel,
            "game_id": self.game_id,
            "key": self.key,
            "text": self.text,
            "status": self.status,
            "attempts": 0,
            "not_before": self.not_before,
            "dedup_key": self.dedup_key,
            "last_error": None,
            "created_at": self.created_at,
            "sent_at": None,
            "buttons": self.buttons,
            "delivery": None,
            "action": self.action,
            "parts_sent": 0,
        }


class Unit:
    """What one transaction holds back from the database (see the module's rule). One per session:
    ``unit_of(session)``."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._events: list[dict[str, Any]] = []
        self._outbox: list[Letter] = []
        self._written: list[tuple[Letter, str]] = []
        """The letters written so far, each with the status it was written with."""
        self._known: dict[tuple[str, str], Identity | None] | None = None

    # -- the game log ---------------------------------------------------------------------------
    def log(self, **row: Any) -> None:
        """Append one row to a game's log; nothing in a command reads a log row back as an object."""
        self._events.append(row)

    def last_logged(self, game_id: int) -> int:
        """The highest number among the log rows staged for this game (0: none)."""
        return max((r["seq"] for r in self._events if r["game_id"] == game_id), default=0)

    # -- the outbox -----------------------------------------------------------------------------
    def stage(self, row: Letter) -> None:
        """Keep a new outbox row, written with the transaction's others."""
        self._outbox.append(row)

    def put_last(self, row: Letter) -> bool:
        """Move a staged row behind every row staged so far (its id, so its turn to be sent, comes
        after theirs). False when the row is not staged (it is written already)."""
        at = next((i for i, o in enumerate(self._outbox) if o is row), None)
        if at is None:
            return False
        self._outbox.append(self._outbox.pop(at))
        return True

    # -- who wrote (a batch's identities, looked up together) -------------------------------------
    def know(self, found: dict[tuple[str, str], Identity | None]) -> None:
        """(channel, address) -> the identity, or None where there is none: asked before the database."""
        self._known = found

    def known(self, channel: str, address: str) -> tuple[bool, Identity | None]:
        """Whether (channel, address) was looked up in this transaction, and what was found."""
        if self._known is None or (channel, address) not in self._known:
            return False, None
        return True, self._known[(channel, address)]

    def remember(self, identity: Identity | None, channel: str, address: str) -> None:
        """An identity created (or, None, taken back) in this transaction, where a batch looked up."""
        if self._known is not None:
            self._known[(channel, address)] = identity

    # -- when rows are written ----------------------------------------------------------------------
    @contextmanager
    def reading(
        self, model: type[GameEvent] | type[Outbox], staged: Callable[[Letter], bool] | None = None
    ) -> Iterator[None]:
        """Around a read of the log (``GameEvent``) or of the outbox (``Outbox``): the staged rows of
        that table are written first (of the outbox, only those ``staged`` keeps, when given: the
        ones the read could find, with the letters' changed statuses), and the session flushes
        before the read only if one of its pending changes is a row of that table."""
        if model is GameEvent:
            self._write_events()
        else:
            if staged is None or any(staged(o) for o in self._outbox):
                self._write_outbox()
            self._write_statuses()
        s = self.session
        if any(isinstance(o, model) for o in (*s.new, *s.dirty, *s.deleted)):
            yield
        else:
            with s.no_autoflush:
                yield

    def at_commit(self) -> None:
        self._write_events()
        self._write_outbox()
        self._write_statuses()

    def _write_events(self) -> None:
        rows, self._events = self._events, []
        insert_rows(self.session, cast("Any", GameEvent).__table__, rows)

    def _write_outbox(self) -> None:
        rows, self._outbox = self._outbox, []
        if not rows:
            return
        ids = insert_rows(self.session, _OUTBOX, [r.values() for r in rows], returning=True)
        for row, new_id in zip(rows, ids, strict=True):
            row.id = new_id
            self._written.append((row, row.status))

    def _write_statuses(self) -> None:
        """An UPDATE for each written letter whose status changed since (``Ctx.merge_texts``)."""
        changed = [(i, row) for i, (row, status) in enumerate(self._written) if row.status != status]
        if changed:
            params = [{"_id": row.id, "_status": row.status} for _, row in changed]
            self.session.connection().execute(_SET_STATUS, params)
            for i, row in changed:
                self._written[i] = (row, row.status)


def unit_of(session: Session) -> Unit:
    """The session's unit of work, made on first use."""
    unit: Unit | None = session.info.get(_KEY)
    if unit is None:
        unit = session.info[_KEY] = Unit(session)
    return unit


@event.listens_for(Session, "before_commit")
def _write_at_commit(session: Session) -> None:
    unit: Unit | None = session.info.get(_KEY)
    if unit is not None:
        unit.at_commit()


@event.listens_for(Session, "after_rollback")
def _drop_at_rollback(session: Session) -> None:
    session.info.pop(_KEY, None)  # staged in what was rolled back
