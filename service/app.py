"""The application service: one function per command, each in one transaction.

    lock the game -> engine.apply / close_phase -> save state, events, outbox rows and the
    next deadline -> commit -> after_commit(outbox ids)   (the worker enqueues dispatch)

Channels call ``handle_inbound``; the worker calls ``due_games`` and ``close_phase`` (and
sends the outbox, see ``service.outbox``). Time comes from ``clock``, so tests and the
worker decide what "now" is.
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
from sqlmodel import Session, col, or_, select

import engine

from . import grammar, host, lobby, play, rematch, volunteers
from .context import Ctx
from .db import Conflict, bump, insert_new, is_sqlite, lock_game, make_engine, transaction
from .grammar import Parsed, parse
from .i18n import t
from .models import Game, Identity, Inbound, Seat, utcnow
from .room import Room
from .settings import Settings, get_settings

log = logging.getLogger(__name__)
T = TypeVar("T")
AfterCommit = Callable[[Sequence[int]], None]
ACTIVE = ("lobby", "running")


#: Who wrote (built once: see ``service.db``).
_IDENTITY = select(Identity).where(Identity.channel == bindparam("channel"), Identity.address == bindparam("address"))


def _noop(_ids: Sequence[int]) -> None:
    return None


class Service:
    def __init__(self, settings: Settings | None = None, db: Engine | None = None,
                 clock: Callable[[], datetime] = utcnow, after_commit: AfterCommit = _noop,
                 random_bits: Callable[[int], int] = secrets.randbits) -> None:
        self.settings = settings or get_settings()
        self.random_bits = random_bits
        """Where game seeds come from: a secure source, unless a test wants its games reproducible."""
        self.db = db or make_engine(self.settings.DATABASE_URL)
        self.clock = clock
        self.after_commit = after_commit
        """Called with the new outbox ids once a command has committed (the worker enqueues them)."""
        self.telegram_bot: str | None = None
        """The Telegram bot's username (the web app learns it from getMe), for t.me links in texts."""
        self.before_close: list[Callable[[Ctx, Room], None]] = []
        """Called inside ``close_phase``'s transaction, under the game lock, before the engine closes
        the phase (the worker counts who let it pass: service.reminders)."""

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
                        ctx.merge_sms()
                written = ctx.written if ctx else []
                ids = [o.id for o in written if o.id is not None and o.status == "pending"]
                if ids:
                    self.after_commit(ids)
                return result
            except (OperationalError, Conflict, IntegrityError) as e:
                if attempt == 7:
                    raise
                log.info("retrying a command after %s", type(e).__name__)
                time.sleep(delay)
                delay *= 2
        raise AssertionError("unreachable")

    # -- what channels call ----------------------------------------------------------------------------
    def handle_inbound(self, channel: str, address: str, external_id: str, text: str,
                       display_name: str | None = None, *, chat: str | None = None,
                       resubscribe: bool = True, stop: bool = False, overheard: bool = False) -> list[str]:
        """Act on one message once. Returns the replies to its sender (already in the outbox:
        a channel must not send them itself). A repeat delivery returns [] and changes nothing.

        ``chat``: the group it was written in (a Telegram group's chat id), None for a private
        message, which also proves we may write to him privately. ``resubscribe``: whether the
        message lifts an opt-out (an SMS number that texted STOP stays opted out until START, but
        what it texts meanwhile still counts in the game). ``stop``: the message is an opt-out
        (SMS STOP): logged once like any message, the identity opted out, nothing else done.
        ``overheard``: plain talk typed in the group ``chat`` (see ``_overheard``)."""

        # A NUL byte is no text anyone typed, and PostgreSQL refuses to store one: drop them.
        text = text.replace("\x00", "")
        display_name = display_name.replace("\x00", "") if display_name else display_name

        def work(session: Session, now: datetime) -> tuple[list[str], Ctx | None]:
            if overheard:
                if session.exec(select(Inbound.id).where(Inbound.channel == channel,
                                                         Inbound.external_id == external_id)).first():
                    return [], None
                return [], self._overheard(session, now, channel, address, external_id, text, chat or "")
            identity = session.exec(_IDENTITY, params={"channel": channel, "address": address}).first()
            newcomer = identity is None
            if identity is None:
                identity = Identity(channel=channel, address=address, display_name=display_name,
                                    language=self.settings.DEFAULT_LANGUAGE, created_at=now)
                session.add(identity)
            # Only what changes is set: an attribute set to its own value still makes the flush below
            # walk the unit of work for nothing, and most messages come from someone known and reachable.
            if (stop or resubscribe) and identity.opted_out != stop:
                identity.opted_out = stop
            if chat is None and not (identity.direct and not identity.unreachable):
                identity.direct, identity.unreachable = True, False
            if display_name and not identity.display_name:
                identity.display_name = display_name[:64]
            group = self._group(session, channel, chat, now) if chat is not None else None
            session.flush()
            # Logged first thing: the inbound log's unique key is what makes a message act once.
            inbound_id = insert_new(session, Inbound, ("channel", "external_id"), channel=channel,
                                    external_id=external_id, identity_id=identity.id, text=text[:4000],
                                    received_at=now)
            if inbound_id is None:  # a repeat delivery (or one being acted on right now): keep nothing of it
                session.rollback()
                return [], None
            ctx = Ctx(session, self, now, identity, inbound_id, newcomer=newcomer, chat=group)
            if stop:
                session.add(identity)
                return [], ctx
            dispatch(ctx, parse(text[:4000]))
            if group is not None and identity.id in ctx.unreached:
                # Said in a group by someone the bot cannot write to: tell him there how to fix it.
                name = identity.display_name or "?"
                ctx.send(group, "svc.tg.open_bot", t(group.language, "svc.tg.open_bot", name=name,
                                                      link=ctx.bot_link()), f"in{inbound_id}:open")
            session.add(identity)
            return ctx.replies, ctx

        return self._run(work)

    def _overheard(self, session: Session, now: datetime, channel: str, address: str, external_id: str,
                   text: str, chat: str) -> Ctx | None:
        """Plain talk in a group: relayed as talk in the game played there, by someone who plays in
        it; anyone else's chatter is neither stored nor answered (a group is not a conversation
        with the bot), and creates no identity."""
        person = session.exec(select(Identity).where(Identity.channel == channel, Identity.address == address)).first()
        group = session.exec(select(Identity).where(Identity.channel == channel, Identity.address == chat)).first()
        if person is None or group is None:
            return None
        game = session.exec(select(Game).where(Game.group_id == group.id, col(Game.status).in_(ACTIVE))
                            .order_by(col(Game.id).desc())).first()
        if game is None or game.id is None:
            return None
        plays = session.exec(select(Seat.id).where(Seat.game_id == game.id, Seat.identity_id == person.id,
                                                   Seat.status == "joined")).first()
        if plays is None and game.host_id != person.id:  # chatter of others: no lock taken for it
            return None
        locked = lock_game(session, game.id)
        if locked is None:
            return None
        inbound = Inbound(channel=channel, external_id=external_id, identity_id=person.id, game_id=game.id,
                          text=text[:4000], received_at=now)
        session.add(inbound)
        session.flush()
        ctx = Ctx(session, self, now, person, inbound.id, chat=group)
        room = Room(ctx, locked)
        if play.overheard(ctx, room, text[:4000]):
            bump(session, locked)
        return ctx

    @staticmethod
    def _group(session: Session, channel: str, chat: str, now: datetime) -> Identity:
        """A group chat is an identity of its own: games are bound to it, public texts go to it."""
        group = session.exec(select(Identity).where(Identity.channel == channel, Identity.address == chat)).first()
        if group is None:
            group = Identity(channel=channel, address=chat, direct=True, created_at=now)
            session.add(group)
        return group

    def set_opted_out(self, channel: str, address: str, opted_out: bool = True) -> None:
        """The channel says this address refused messages (SMS STOP) or allowed them again."""

        def work(session: Session, now: datetime) -> tuple[None, Ctx | None]:
            person = session.exec(select(Identity).where(Identity.channel == channel,
                                                         Identity.address == address)).first()
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
            stmt = (select(Game.id, Game.phase_no, Game.deadline).where(
                col(Game.deadline).is_not(None), col(Game.deadline) <= until,
                col(Game.status) == "running", col(Game.paused).is_(False))
                .order_by(col(Game.deadline)))
            rows = session.exec(stmt.limit(limit) if limit else stmt).all()
        return [(int(i), int(n), d) for i, n, d in rows if i is not None and d is not None]

    def close_phase(self, game_id: int, phase_no: int, skip_locked: bool = False) -> bool:
        """Close the phase if it is still the current one and its deadline has passed.
        A stale or early call changes nothing (returns False), so the task is idempotent.
        ``skip_locked`` (PostgreSQL): a game another worker holds is left to it (returns False)."""

        def work(session: Session, now: datetime) -> tuple[bool, Ctx | None]:
            if skip_locked and not is_sqlite(str(self.db.url)):
                game = session.exec(select(Game).where(Game.id == game_id)
                                    .with_for_update(skip_locked=True)
                                    .execution_options(populate_existing=True)).first()
            else:
                game = lock_game(session, game_id)
            if (game is None or game.status != "running" or game.paused or game.phase_no != phase_no
                    or game.deadline is None or game.deadline > now or game.state is None):
                return False, None
            ctx = Ctx(session, self, now)
            room = Room(ctx, game)
            assert room.state is not None
            for hook in self.before_close:
                hook(ctx, room)
            new, events = engine.close_phase(room.state, phase_no)
            room.advance(new, events, (None, "end"))
            session.add(game)
            bump(session, game)
            return True, ctx

        return self._run(work)


# -- routing ---------------------------------------------------------------------------------------
def dispatch(ctx: Ctx, p: Parsed) -> None:
    verb = p.verb
    if verb == "new":
        return lobby.new(ctx, p)
    if verb == "lang":
        return play.lang(ctx, p)
    if verb == "digest":
        return play.digest(ctx, p)
    if verb == "tz":
        return play.timezone(ctx, p)
    if verb == "games":
        return lobby.games(ctx, my_games(ctx, (*ACTIVE, "over", "ended")))
    if verb == "join":
        code = p.args[0].lstrip("#").upper() if p.args else p.code
        room = _locked_code(ctx, code) if code else None
        if code and room is None:
            return ctx.reply("svc.join.unknown_game", code=code)
        return lobby.join(ctx, p, room)
    if verb == "volunteer":
        return _volunteer(ctx, p)
    room = pick(ctx, p)
    if room is None:
        return None
    ctx.session.add(room.game)
    handler = ROUTES.get(verb or "")
    if p.is_move:
        play.move(ctx, room, p)
    elif verb is None or verb == "say":
        play.talk(ctx, room, p.rest)
    elif handler is not None:
        handler(ctx, room, p)
    else:
        ctx.reply("svc.not_understood", word=verb)
    bump(ctx.session, room.game)


ROUTES: dict[str, Callable[[Ctx, Room, Parsed], None]] = {
    "help": lambda c, r, p: play.help_(c, r),
    "status": lambda c, r, p: play.status(c, r),
    "role": lambda c, r, p: play.role(c, r),
    "record": lambda c, r, p: play.record(c, r),
    "players": lambda c, r, p: lobby.players(c, r),
    "leave": lambda c, r, p: lobby.leave(c, r),
    "start": lambda c, r, p: lobby.start(c, r),
    "set": lobby.set_,
    "extend": lambda c, r, p: host.move_deadline(c, r, p, +1),
    "shorten": lambda c, r, p: host.move_deadline(c, r, p, -1),
    "pause": lambda c, r, p: host.pause(c, r),
    "resume": lambda c, r, p: host.resume(c, r),
    "replace": host.replace,
    "remove": host.remove,
    "cohost": host.cohost,
    "end": host.end,
    "again": rematch.again,
}


def _volunteer(ctx: Ctx, p: Parsed) -> None:
    """``volunteer CODE``: like ``join``, the game is named, since he does not play in it (yet)."""
    words = [a for a in p.args if grammar.parse_yes_no(a) is None]
    code = words[0].lstrip("#").upper() if words else p.code
    room = _locked_code(ctx, code) if code else None
    if code and room is None:
        return ctx.reply("svc.join.unknown_game", code=code)
    volunteers.volunteer(ctx, p, room)
    if room is not None:
        bump(ctx.session, room.game)


def _locked_code(ctx: Ctx, code: str) -> Room | None:
    """The game of this code, locked (None: no such game)."""
    game = lock_game(ctx.session, code=code.upper())
    return Room(ctx, game) if game is not None else None


def _locked(ctx: Ctx, game: Game) -> Room:
    assert game.id is not None
    locked = lock_game(ctx.session, game.id)
    assert locked is not None
    return Room(ctx, locked)


def _entered(ctx: Ctx, room: Room) -> Room:
    """A game he plays in or hosts becomes the one he addressed last (``join`` and a substitute's
    seat set it too); a game he only asked about does not, so it never answers him after its end."""
    if ctx.identity is not None:
        ctx.identity.current_game_id = room.id
    return room


def my_games(ctx: Ctx, statuses: tuple[str, ...]) -> list[tuple[Game, str | None]]:
    """The games this identity plays in or hosts, with his name in each."""
    assert ctx.identity is not None
    me = ctx.identity.id
    rows = ctx.session.exec(
        select(Game, Seat.name)
        .join(Seat, (col(Seat.game_id) == col(Game.id)) & (col(Seat.identity_id) == me)
              & (col(Seat.status) == "joined"), isouter=True)
        .where(or_(col(Seat.id).is_not(None), col(Game.host_id) == me), col(Game.status).in_(statuses))
        .order_by(col(Game.id))).all()
    seen: dict[int, tuple[Game, str | None]] = {}
    for game, name in rows:
        if game.id is not None and (game.id not in seen or name):
            seen[game.id] = (game, name)
    return list(seen.values())


def pick(ctx: Ctx, p: Parsed) -> Room | None:
    """The game a command is about: the one named by ``#CODE``, else the only one he is in,
    else the one where the move makes sense; otherwise ask which."""
    assert ctx.identity is not None
    if p.code:
        room = _locked_code(ctx, p.code)
        if room is None:
            ctx.reply("svc.join.unknown_game", code=p.code)
            return None
        if room.seat_of(ctx.identity.id) is None and not room.is_host(ctx.identity.id):
            ctx.reply("svc.not_member", code=room.game.code)
            return None
        return _entered(ctx, room)
    games = [g for g, _ in my_games(ctx, ACTIVE)]
    if not games:
        last = ctx.session.get(Game, ctx.identity.current_game_id) if ctx.identity.current_game_id else None
        after_end = ("status", "record", "help", "say", "again", None)
        if last is not None and last.status in ("over", "ended") and p.verb in after_end:
            return _locked(ctx, last)
        ctx.reply({"help": "svc.help.none", "again": "svc.again.none"}.get(p.verb or "", "svc.not_in_game"))
        return None
    if len(games) > 1 and p.is_move:
        fits = [g for g in games if _move_fits(ctx, g, p)]
        games = fits if len(fits) == 1 else games
    if len(games) > 1:
        codes = ", ".join("#" + g.code for g in games)
        ctx.reply("svc.which_game", example=games[0].code, text=" ".join(filter(None, [p.verb, p.rest])),
                  codes=codes)
        return None
    return _entered(ctx, _locked(ctx, games[0]))


def _move_fits(ctx: Ctx, game: Game, p: Parsed) -> bool:
    if game.state is None or ctx.identity is None:
        return False
    seat = ctx.session.exec(select(Seat).where(Seat.game_id == game.id, Seat.identity_id == ctx.identity.id,
                                               Seat.status == "joined")).first()
    if seat is None:
        return False
    state = engine.from_json(game.state)
    return any(a.verb.value == p.verb for a in engine.legal_actions(state, seat.name))
