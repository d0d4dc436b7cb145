"""One message in: who wrote it, its line in the inbound log (which makes it act once), what it tells
of him, and its command handed to routing; plain talk overheard in a group relayed to its game."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import NamedTuple

from sqlalchemy import bindparam
from sqlmodel import Session, col, select

from service.channels.base import Incoming
from service.game import catchup, play
from service.game.context import Ctx, Serving
from service.game.room import Room
from service.game.routing import ACTIVE, dispatch, hear_language
from service.store.db import bump, insert_new, lock_game
from service.store.models import Game, Identity, Inbound, Seat
from service.store.status import SeatStatus
from service.store.unit import unit_of
from service.texts.grammar import parse
from service.texts.i18n import LANGUAGES, t

Work = Callable[[Session, datetime], tuple[list[str], Ctx | None]]
"""One message's work in a transaction: its replies, and the ctx that wrote them."""

#: Who wrote (built once: see ``service.store.db``).
_IDENTITY = select(Identity).where(Identity.channel == bindparam("channel"), Identity.address == bindparam("address"))


class Repeat(Exception):
    """A repeat delivery: answered [], and its transaction rolled back (see ``work``)."""


class _Writer(NamedTuple):
    identity: Identity
    newcomer: bool
    group: Identity | None
    made: list[Identity]
    """The identities this message created (him, the group), taken back should it be a repeat."""


def identity_of(session: Session, channel: str, address: str) -> Identity | None:
    """Who has this address, asking the transaction's unit of work (a batch's ``known``) first."""
    looked_up, identity = unit_of(session).known(channel, address)
    if looked_up:
        return identity
    return session.exec(_IDENTITY, params={"channel": channel, "address": address}).first()


def _new_identity(session: Session, identity: Identity) -> None:
    session.add(identity)
    unit_of(session).remember(identity, identity.channel, identity.address)


def _forget(session: Session, made: Sequence[Identity]) -> None:
    """Take back identities this message created (it was a repeat delivery)."""
    if not made:
        return
    unit = unit_of(session)
    for identity in made:
        session.delete(identity)
        unit.remember(None, identity.channel, identity.address)
    session.flush()


def _group(session: Session, channel: str, chat: str, now: datetime) -> Identity:
    """A group chat is an identity of its own: games are bound to it, public texts go to it."""
    group = identity_of(session, channel, chat)
    if group is None:
        group = Identity(channel=channel, address=chat, direct=True, created_at=now)
        _new_identity(session, group)
    return group


def work(svc: Serving, m: Incoming) -> Work:
    """The transaction's work for one message; it raises ``Repeat`` for a repeat delivery."""
    language = m.language if m.language in LANGUAGES else None
    # A NUL byte is no text anyone typed, and PostgreSQL refuses to store one: drop them.
    text = m.text.replace("\x00", "")
    display_name = m.display_name.replace("\x00", "") if m.display_name else m.display_name

    def act(session: Session, now: datetime) -> tuple[list[str], Ctx | None]:
        if m.overheard:
            return [], _overheard(svc, session, now, m, text)
        writer = _who_wrote(svc, session, now, m, display_name)
        inbound_id = _logged(session, now, m, text, writer)
        identity, group = writer.identity, writer.group
        back = _heard(identity, m, text, display_name, language)
        ctx = Ctx(session, svc, now, identity, inbound_id, newcomer=writer.newcomer, chat=group, tap=m.tap)
        if m.stop:
            session.add(identity)
            return [], ctx
        _answer(ctx, text, back)
        if group is not None and identity.id in ctx.unreached:
            _tell_to_open_the_bot(ctx, group, identity, inbound_id)
        session.add(identity)
        return ctx.replies, ctx

    return act


def _who_wrote(svc: Serving, session: Session, now: datetime, m: Incoming, display_name: str | None) -> _Writer:
    """Who wrote, and the group he wrote in: found, or created (and flushed, for their ids)."""
    identity = identity_of(session, m.channel, m.address)
    newcomer = identity is None
    if identity is None:
        identity = Identity(
            channel=m.channel,
            address=m.address,
            display_name=display_name,
            language=svc.settings.DEFAULT_LANGUAGE,
            created_at=now,
        )
        _new_identity(session, identity)
    group = _group(session, m.channel, m.chat, now) if m.chat is not None else None
    made = [x for x in (identity if newcomer else None, group) if x is not None and x.id is None]
    if made:
        session.flush()
    return _Writer(identity, newcomer, group, made)


def _logged(session: Session, now: datetime, m: Incoming, text: str, writer: _Writer) -> int:
    """The message's line in the inbound log, written first thing; it raises ``Repeat`` for a repeat."""
    # The inbound log's unique key is what makes a message act once. Before this nothing is changed
    # but who wrote (or the group) being created, which a repeat takes back: in a batch there is no
    # savepoint to roll back to (handle_inbound_many).
    inbound_id = insert_new(
        session,
        Inbound,
        ("channel", "external_id"),
        channel=m.channel,
        external_id=m.external_id,
        identity_id=writer.identity.id,
        text=text[:4000],
        received_at=now,
    )
    if inbound_id is None:  # a repeat delivery (or one being acted on right now): keep nothing of it
        _forget(session, writer.made)
        raise Repeat
    return inbound_id


def _heard(identity: Identity, m: Incoming, text: str, display_name: str | None, language: str | None) -> bool:
    """What the message tells of who wrote it, set on him; True if messages reach him again."""
    # Messages reach him again: after an opt-out lifted, or a private word after the channel
    # refused him (a Telegram user who had blocked the bot).
    back = not m.stop and ((m.resubscribe and identity.opted_out) or (m.chat is None and identity.unreachable))
    # Only what changes is set: an attribute set to its own value still makes a flush walk the
    # unit of work for nothing, and most messages come from someone known and reachable.
    if (m.stop or m.resubscribe) and identity.opted_out != m.stop:
        identity.opted_out = m.stop
    if m.chat is None and not (identity.direct and not identity.unreachable):
        identity.direct, identity.unreachable = True, False
    if display_name and not identity.display_name:
        identity.display_name = display_name[:64]
    hear_language(identity, text, language)  # a newcomer's words, or his app's, tell his language
    return back


def _answer(ctx: Ctx, text: str, back: bool) -> None:
    parsed = parse(text[:4000])
    # Back: his games went on without him; a bare help (what START sends) is then answered
    # by what he missed and may do in each.
    caught_up = back and catchup.welcome_back(ctx)
    if not (caught_up and parsed.verb == "help" and not parsed.args and parsed.code is None):
        dispatch(ctx, parsed)


def _tell_to_open_the_bot(ctx: Ctx, group: Identity, identity: Identity, inbound_id: int) -> None:
    """Said in a group by someone the bot cannot write to: tell him there how to fix it."""
    name = identity.display_name or "?"
    ctx.send(
        group,
        "svc.tg.open_bot",
        t(group.language, "svc.tg.open_bot", name=name, link=ctx.bot_link(group.channel)),
        f"in{inbound_id}:open",
    )


def _overheard(svc: Serving, session: Session, now: datetime, m: Incoming, text: str) -> Ctx | None:
    """Plain talk in a group: relayed as talk in the game played there, by someone who plays in
    it; anyone else's chatter is neither stored nor answered (a group is not a conversation
    with the bot), and creates no identity."""
    if session.exec(
        select(Inbound.id).where(Inbound.channel == m.channel, Inbound.external_id == m.external_id)
    ).first():
        return None
    person, group = identity_of(session, m.channel, m.address), identity_of(session, m.channel, m.chat or "")
    if person is None or group is None:
        return None
    game = _game_he_plays_in_there(session, person, group)
    if game is None or game.id is None:
        return None
    locked = lock_game(session, game.id)
    if locked is None:
        return None
    inbound = Inbound(
        channel=m.channel,
        external_id=m.external_id,
        identity_id=person.id,
        game_id=game.id,
        text=text[:4000],
        received_at=now,
    )
    session.add(inbound)
    session.flush()
    ctx = Ctx(session, svc, now, person, inbound.id, chat=group)
    room = Room(ctx, locked)
    if play.overheard(ctx, room, text[:4000]):
        bump(session, locked)
    return ctx


def _game_he_plays_in_there(session: Session, person: Identity, group: Identity) -> Game | None:
    """The game played in the group, if he plays in it or hosts it (chatter of others takes no lock)."""
    game = session.exec(
        select(Game).where(Game.group_id == group.id, col(Game.status).in_(ACTIVE)).order_by(col(Game.id).desc())
    ).first()
    if game is None or game.id is None:
        return None
    plays = session.exec(
        select(Seat.id).where(Seat.game_id == game.id, Seat.identity_id == person.id, Seat.status == SeatStatus.JOINED)
    ).first()
    return game if plays is not None or game.host_id == person.id else None
