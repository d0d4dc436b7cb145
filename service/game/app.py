"""The application service: one function per command, each in one transaction.

    lock the game -> engine.apply / close_phase -> save state, events, outbox rows and the
    next deadline -> commit -> after_commit(outbox ids)   (the worker enqueues dispatch)

Channels call ``handle_inbound``; the worker calls ``due_games`` and ``close_phase`` (and sends
the outbox: ``service.delivery``). Time comes from ``clock``: tests and the worker decide "now".
The work itself is in ``inbound`` (one message), ``batching`` (many in one transaction) and
``closing`` (a phase at its deadline); this class runs it.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TypeVar

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlmodel import Session

from service.channels.base import Incoming
from service.game import batching, closing, inbound
from service.game.context import Ctx
from service.settings import Settings, get_settings
from service.store.db import Conflict, is_sqlite, make_engine, transaction
from service.store.models import utcnow
from service.store.status import OutboxStatus

log = logging.getLogger(__name__)
T = TypeVar("T")
AfterCommit = Callable[[Sequence[int]], None]


def _noop(_ids: Sequence[int]) -> None:
    return None


class Service:
    def __init__(
        self,
        settings: Settings | None = None,
        db: Engine | None = None,
        clock: Callable[[], datetime] = utcnow,
        after_commit: AfterCommit = _noop,
        random_bits: Callable[[int], int] = secrets.randbits,
    ) -> None:
        self.settings = settings or get_settings()
        self.random_bits = random_bits
        """Where game seeds come from: a secure source, unless a test wants its games reproducible."""
        self.db = db or make_engine(self.settings.DATABASE_URL)
        self.clock = clock
        self.after_commit = after_commit
        """Called with the new outbox ids once a command has committed (the worker enqueues them)."""
        self.handles: dict[str, str] = {}
        """Each channel's name of the bot (Telegram's username: its webhook asks getMe), for links."""
        self.before_close: list[closing.BeforeClose] = []
        """Called inside ``close_phase``'s transaction, under the game lock, before a close that does not
        end the game is applied (the worker counts who let it pass: service.game.reminders)."""

    def run(self, work: Callable[[Session, datetime], tuple[T, Ctx | None]]) -> T:
        """Run ``work(session, now)`` in one transaction, retried on conflicts; the outbox rows its
        ctx wrote are handed to ``after_commit`` (for domain functions outside this module)."""
        return self._run(work)

    # -- running a command ---------------------------------------------------------------------------
    def _run(self, work: Callable[[Session, datetime], tuple[T, Ctx | None]]) -> T:
        delay = 0.01
        for attempt in range(8):
            try:
                with transaction(self.db) as session:
                    result, ctx = work(session, self.clock())
                    if ctx is not None:
                        ctx.merge_texts()
                self._hand_over([ctx] if ctx is not None else [])
                return result
            except (OperationalError, Conflict, IntegrityError) as e:
                if attempt == 7:
                    raise
                log.info("retrying a command after %s", type(e).__name__)
                time.sleep(delay)
                delay *= 2
        raise AssertionError("unreachable")

    def _hand_over(self, ctxs: Sequence[Ctx]) -> None:
        """After commit: the outbox rows the commands wrote that are to be sent, to ``after_commit``."""
        ids = [o.id for ctx in ctxs for o in ctx.written if o.id is not None and o.status == OutboxStatus.PENDING]
        if ids:
            self.after_commit(ids)

    def _act(self, work: inbound.Work) -> list[str]:
        """One message's work in its own transaction; a repeat delivery is answered []."""
        try:
            return self._run(work)
        except inbound.Repeat:
            return []

    # -- what channels call ----------------------------------------------------------------------------
    def handle_inbound(
        self,
        channel: str,
        address: str,
        external_id: str,
        text: str,
        display_name: str | None = None,
        *,
        chat: str | None = None,
        resubscribe: bool = True,
        stop: bool = False,
        overheard: bool = False,
    ) -> list[str]:
        """Act on one message once (``Incoming`` says what each argument means). Returns the
        replies to its sender (already in the outbox: a channel must not send them itself). A
        repeat delivery returns [] and changes nothing."""
        return self._act(
            inbound.work(
                self,
                Incoming(
                    channel,
                    address,
                    external_id,
                    text,
                    display_name,
                    chat=chat,
                    resubscribe=resubscribe,
                    stop=stop,
                    overheard=overheard,
                ),
            )
        )

    def handle_inbound_many(self, messages: Sequence[Incoming]) -> list[list[str] | Exception]:
        """Act on each message once, all of them in one transaction when they can be (group commit:
        the web process hands over what arrived while the previous transaction ran, so a busy game
        night costs one BEGIN, COMMIT and WAL flush for many moves, one look-up of who wrote them,
        one INSERT of their log rows and one of their outbox rows). The messages run in order, so
        each sees the ones before it exactly as if they had been sent one by one. Should anything
        fail (a conflict, a lock held too long, a bug in one command), the whole transaction is
        rolled back and every message is run alone as ``handle_inbound`` runs it, so one bad
        message costs the others nothing. Returns each message's replies, or the exception that
        message alone raised."""
        works = [inbound.work(self, m) for m in messages]
        if len(works) > 1:
            try:
                results, ctxs = batching.run_together(self.db, self.clock, messages, works)
                self._hand_over(ctxs)
                return results
            except Exception as e:
                log.info("%d commands run one by one after %s", len(works), type(e).__name__)
        out: list[list[str] | Exception] = []
        for work in works:
            try:
                out.append(self._act(work))
            except Exception as e:
                out.append(e)
        return out

    def set_opted_out(self, channel: str, address: str, opted_out: bool = True) -> None:
        """The channel says this address refused messages (SMS STOP) or allowed them again."""

        def work(session: Session, now: datetime) -> tuple[None, Ctx | None]:
            person = inbound.identity_of(session, channel, address)
            if person is not None:
                person.opted_out = opted_out
                session.add(person)
            return None, None

        self._run(work)

    # -- what the worker calls ----------------------------------------------------------------------------
    def due_games(self, now: datetime | None = None, limit: int | None = None) -> list[tuple[int, int]]:
        """(game id, phase number) of running games whose deadline has passed, most overdue first."""
        return [(i, n) for i, n, _ in self.deadlines(now or self.clock(), limit)]

    def deadlines(self, until: datetime, limit: int | None = None) -> list[tuple[int, int, datetime]]:
        """(game id, phase number, deadline) of running games whose deadline is ``until`` or earlier,
        soonest first (``closing.deadlines``)."""
        return closing.deadlines(self.db, until, limit)

    def close_phase(self, game_id: int, phase_no: int, skip_locked: bool = False) -> bool:
        """Close the phase if it is still the current one and its deadline has passed.
        A stale or early call changes nothing (returns False), so the task is idempotent.
        ``skip_locked`` (PostgreSQL): a game another worker holds is left to it (returns False)."""
        skip = skip_locked and not is_sqlite(str(self.db.url))
        return self._run(closing.close(self, game_id, phase_no, skip, self.before_close))
