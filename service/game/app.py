"""The application service: one function per command, each in one transaction.

    lock the game -> engine.apply / close_phase -> save state, events, outbox rows and the
    next deadline -> commit -> after_commit(outbox ids)   (the worker enqueues dispatch)

Channels call ``handle_inbound``; the worker calls ``due_games`` and ``close_phase`` (and sends
the outbox: ``service.delivery``). Time comes from ``clock``: tests and the worker decide "now".
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TypeVar

from sqlalchemy import Engine, bindparam
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlmodel import Session, col, select

import engine
from service.channels.base import Incoming
from service.game import catchup, play
from service.game.context import Ctx
from service.game.room import Room
from service.game.routing import ACTIVE, dispatch, hear_language
from service.settings import Settings, get_settings
from service.store.db import (
    Conflict,
    bump,
    insert_new,
    is_sqlite,
    lock_game,
    lock_games_ahead,
    make_engine,
    transaction,
)
from service.store.models import Game, Identity, Inbound, Seat, utcnow
from service.store.unit import unit_of
from service.texts.grammar import code_of, parse
from service.texts.i18n import LANGUAGES, t

log = logging.getLogger(__name__)
T = TypeVar("T")
AfterCommit = Callable[[Sequence[int]], None]


#: Who wrote (built once: see ``service.store.db``).
_IDENTITY = select(Identity).where(Identity.channel == bindparam("channel"), Identity.address == bindparam("address"))
_IDENTITIES = select(Identity).where(
    Identity.channel == bindparam("channel"), col(Identity.address).in_(bindparam("addresses", expanding=True))
)
BATCH_LOCK_WAIT = "200ms"
"""How long a batch waits for a game another transaction holds before it gives up and runs its
commands one by one (``Service._run_together``)."""


def _noop(_ids: Sequence[int]) -> None:
    return None


class _Repeat(Exception):
    """A repeat delivery: answered [], and its transaction rolled back (see ``Service._inbound``)."""


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
        self.before_close: list[Callable[[Ctx, Room], None]] = []
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
        ids = [o.id for ctx in ctxs for o in ctx.written if o.id is not None and o.status == "pending"]
        if ids:
            self.after_commit(ids)

    def _act(self, work: Callable[[Session, datetime], tuple[list[str], Ctx | None]]) -> list[str]:
        """One message's work in its own transaction; a repeat delivery is answered []."""
        try:
            return self._run(work)
        except _Repeat:
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
            self._inbound(
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
                )
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
        works = [self._inbound(m) for m in messages]
        if len(works) > 1:
            try:
                return self._run_together(messages, works)
            except Exception as e:
                log.info("%d commands run one by one after %s", len(works), type(e).__name__)
        out: list[list[str] | Exception] = []
        for work in works:
            try:
                out.append(self._act(work))
            except Exception as e:
                out.append(e)
        return out

    def _run_together(
        self,
        messages: Sequence[Incoming],
        works: Sequence[Callable[[Session, datetime], tuple[list[str], Ctx | None]]],
    ) -> list[list[str] | Exception]:
        results: list[list[str] | Exception] = []
        ctxs: list[Ctx] = []
        with transaction(self.db) as session:
            if not is_sqlite(str(self.db.url)):
                # A lock wait here is another transaction's game (the worker closing a phase, another
                # web process's batch, locking its games in another order): give up soon and run
                # one by one rather than wait out PostgreSQL's one-second deadlock check.
                session.connection().exec_driver_sql(f"SET LOCAL lock_timeout = '{BATCH_LOCK_WAIT}'")
            now = self.clock()
            self._known(session, messages)
            self._lock_ahead(session, messages)
            for work in works:
                try:
                    result, ctx = work(session, now)
                except _Repeat:  # raised before it changed anything (see _inbound)
                    result, ctx = [], None
                if ctx is not None:
                    ctx.merge_texts()
                    ctxs.append(ctx)
                results.append(result)
        self._hand_over(ctxs)
        return results

    @staticmethod
    def _known(session: Session, messages: Sequence[Incoming]) -> None:
        """Who wrote the batch's messages, and the groups they were written in, in one statement
        where each message took one: kept by the transaction's unit of work (``Unit.know``), which
        ``_identity`` asks before the database."""
        wanted: dict[str, set[str]] = {}
        for m in messages:
            if not m.overheard:
                wanted.setdefault(m.channel, set()).add(m.address)
                if m.chat is not None:
                    wanted[m.channel].add(m.chat)
        known: dict[tuple[str, str], Identity | None] = {}
        for channel, addresses in wanted.items():
            known.update(((channel, a), None) for a in addresses)
            found = session.exec(_IDENTITIES, params={"channel": channel, "addresses": sorted(addresses)})
            known.update(((i.channel, i.address), i) for i in found)
        unit_of(session).know(known)

    @staticmethod
    def _lock_ahead(session: Session, messages: Sequence[Incoming]) -> None:
        """The games the batch names (``#CODE``), and for a message naming none its writer's
        current game, locked together in the order of their ids (``db.lock_games_ahead``)."""
        unit = unit_of(session)
        codes: set[str] = set()
        ids: set[int] = set()
        for m in messages:
            if m.overheard:
                continue
            code = code_of(m.text)
            if code is not None:
                codes.add(code)
            elif (who := unit.known(m.channel, m.address)[1]) is not None and who.current_game_id is not None:
                ids.add(who.current_game_id)
        lock_games_ahead(session, codes, ids)

    @staticmethod
    def _identity(session: Session, channel: str, address: str) -> Identity | None:
        looked_up, identity = unit_of(session).known(channel, address)
        if looked_up:
            return identity
        return session.exec(_IDENTITY, params={"channel": channel, "address": address}).first()

    @staticmethod
    def _new_identity(session: Session, identity: Identity) -> None:
        session.add(identity)
        unit_of(session).remember(identity, identity.channel, identity.address)

    @staticmethod
    def _forget(session: Session, made: Sequence[Identity]) -> None:
        """Take back identities this message created (it was a repeat delivery)."""
        if not made:
            return
        unit = unit_of(session)
        for identity in made:
            session.delete(identity)
            unit.remember(None, identity.channel, identity.address)
        session.flush()

    def _inbound(self, m: Incoming) -> Callable[[Session, datetime], tuple[list[str], Ctx | None]]:
        """The transaction's work for one message; it raises ``_Repeat`` for a repeat delivery."""
        channel, address, external_id, chat = m.channel, m.address, m.external_id, m.chat
        resubscribe, stop, overheard = m.resubscribe, m.stop, m.overheard
        language = m.language if m.language in LANGUAGES else None
        # A NUL byte is no text anyone typed, and PostgreSQL refuses to store one: drop them.
        text = m.text.replace("\x00", "")
        display_name = m.display_name.replace("\x00", "") if m.display_name else m.display_name

        def work(session: Session, now: datetime) -> tuple[list[str], Ctx | None]:
            if overheard:
                if session.exec(
                    select(Inbound.id).where(Inbound.channel == channel, Inbound.external_id == external_id)
                ).first():
                    return [], None
                return [], self._overheard(session, now, channel, address, external_id, text, chat or "")
            identity = self._identity(session, channel, address)
            newcomer = identity is None
            if identity is None:
                identity = Identity(
                    channel=channel,
                    address=address,
                    display_name=display_name,
                    language=self.settings.DEFAULT_LANGUAGE,
                    created_at=now,
                )
                self._new_identity(session, identity)
            group = self._group(session, channel, chat, now) if chat is not None else None
            made = [x for x in (identity if newcomer else None, group) if x is not None and x.id is None]
            if made:
                session.flush()
            # Logged first thing: the inbound log's unique key is what makes a message act once. Before
            # this nothing is changed but who wrote (or the group) being created, which a repeat takes
            # back: in a batch there is no savepoint to roll back to (handle_inbound_many).
            inbound_id = insert_new(
                session,
                Inbound,
                ("channel", "external_id"),
                channel=channel,
                external_id=external_id,
                identity_id=identity.id,
                text=text[:4000],
                received_at=now,
            )
            if inbound_id is None:  # a repeat delivery (or one being acted on right now): keep nothing of it
                self._forget(session, made)
                raise _Repeat
            # Messages reach him again: after an opt-out lifted, or a private word after the channel
            # refused him (a Telegram user who had blocked the bot).
            back = not stop and ((resubscribe and identity.opted_out) or (chat is None and identity.unreachable))
            # Only what changes is set: an attribute set to its own value still makes a flush walk the
            # unit of work for nothing, and most messages come from someone known and reachable.
            if (stop or resubscribe) and identity.opted_out != stop:
                identity.opted_out = stop
            if chat is None and not (identity.direct and not identity.unreachable):
                identity.direct, identity.unreachable = True, False
            if display_name and not identity.display_name:
                identity.display_name = display_name[:64]
            hear_language(identity, text, language)  # a newcomer's words, or his app's, tell his language
            ctx = Ctx(session, self, now, identity, inbound_id, newcomer=newcomer, chat=group, tap=m.tap)
            if stop:
                session.add(identity)
                return [], ctx
            parsed = parse(text[:4000])
            # Back: his games went on without him; a bare help (what START sends) is then answered
            # by what he missed and may do in each.
            caught_up = back and catchup.welcome_back(ctx)
            if not (caught_up and parsed.verb == "help" and not parsed.args and parsed.code is None):
                dispatch(ctx, parsed)
            if group is not None and identity.id in ctx.unreached:
                # Said in a group by someone the bot cannot write to: tell him there how to fix it.
                name = identity.display_name or "?"
                ctx.send(
                    group,
                    "svc.tg.open_bot",
                    t(group.language, "svc.tg.open_bot", name=name, link=ctx.bot_link(group.channel)),
                    f"in{inbound_id}:open",
                )
            session.add(identity)
            return ctx.replies, ctx

        return work

    def _overheard(
        self, session: Session, now: datetime, channel: str, address: str, external_id: str, text: str, chat: str
    ) -> Ctx | None:
        """Plain talk in a group: relayed as talk in the game played there, by someone who plays in
        it; anyone else's chatter is neither stored nor answered (a group is not a conversation
        with the bot), and creates no identity."""
        person, group = self._identity(session, channel, address), self._identity(session, channel, chat)
        if person is None or group is None:
            return None
        game = session.exec(
            select(Game).where(Game.group_id == group.id, col(Game.status).in_(ACTIVE)).order_by(col(Game.id).desc())
        ).first()
        if game is None or game.id is None:
            return None
        plays = session.exec(
            select(Seat.id).where(Seat.game_id == game.id, Seat.identity_id == person.id, Seat.status == "joined")
        ).first()
        if plays is None and game.host_id != person.id:  # chatter of others: no lock taken for it
            return None
        locked = lock_game(session, game.id)
        if locked is None:
            return None
        inbound = Inbound(
            channel=channel,
            external_id=external_id,
            identity_id=person.id,
            game_id=game.id,
            text=text[:4000],
            received_at=now,
        )
        session.add(inbound)
        session.flush()
        ctx = Ctx(session, self, now, person, inbound.id, chat=group)
        room = Room(ctx, locked)
        if play.overheard(ctx, room, text[:4000]):
            bump(session, locked)
        return ctx

    def _group(self, session: Session, channel: str, chat: str, now: datetime) -> Identity:
        """A group chat is an identity of its own: games are bound to it, public texts go to it."""
        group = self._identity(session, channel, chat)
        if group is None:
            group = Identity(channel=channel, address=chat, direct=True, created_at=now)
            self._new_identity(session, group)
        return group

    def set_opted_out(self, channel: str, address: str, opted_out: bool = True) -> None:
        """The channel says this address refused messages (SMS STOP) or allowed them again."""

        def work(session: Session, now: datetime) -> tuple[None, Ctx | None]:
            person = self._identity(session, channel, address)
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
        soonest first. Only running, unpaused games have a deadline, so the deadline index finds
        exactly these."""
        with Session(self.db) as session:
            stmt = (
                select(Game.id, Game.phase_no, Game.deadline)
                .where(
                    col(Game.deadline).is_not(None),
                    col(Game.deadline) <= until,
                    col(Game.status) == "running",
                    col(Game.paused).is_(False),
                )
                .order_by(col(Game.deadline))
            )
            rows = session.exec(stmt.limit(limit) if limit else stmt).all()
        return [(int(i), int(n), d) for i, n, d in rows if i is not None and d is not None]

    def close_phase(self, game_id: int, phase_no: int, skip_locked: bool = False) -> bool:
        """Close the phase if it is still the current one and its deadline has passed.
        A stale or early call changes nothing (returns False), so the task is idempotent.
        ``skip_locked`` (PostgreSQL): a game another worker holds is left to it (returns False)."""

        def work(session: Session, now: datetime) -> tuple[bool, Ctx | None]:
            if skip_locked and not is_sqlite(str(self.db.url)):
                game = session.exec(
                    select(Game)
                    .where(Game.id == game_id)
                    .with_for_update(skip_locked=True)
                    .execution_options(populate_existing=True)
                ).first()
            else:
                game = lock_game(session, game_id)
            if (
                game is None
                or game.status != "running"
                or game.paused
                or game.phase_no != phase_no
                or game.deadline is None
                or game.deadline > now
                or game.state is None
            ):
                return False, None
            ctx = Ctx(session, self, now)
            room = Room(ctx, game)
            assert room.state is not None
            new, events = engine.close_phase(room.state, phase_no)
            for hook in self.before_close if new.phase is not engine.Phase.OVER else ():
                hook(ctx, room)
            room.advance(new, events, (None, "end"))
            session.add(game)
            bump(session, game)
            return True, ctx

        return self._run(work)
