"""What a player is told when messages reach him again (SMS START after STOP, or a Telegram user
who had blocked the bot and writes again): nothing was sent to him meanwhile (``Ctx.send`` wrote
his games' texts ``missed``), while his games went on. For each running game he sits in he learns
his card, if he was never sent it (the game started, or he took the seat, while he was away); what
he missed, in one short text: the deaths (and returns) told while he was away and the day's
nominations so far; and what he may do now and until when: by SMS as a phase's text says it, on
Telegram as ``help`` does. All of it from his own view and the public one. What was held for him
meanwhile stays held, so that his next summary has it."""

from __future__ import annotations

from dataclasses import replace

from sqlmodel import col, select

import engine
from service.channels import channel as channel_of
from service.game import play
from service.game.context import Ctx
from service.game.room import Room
from service.game.routing import my_games
from service.store.db import bump, lock_game
from service.store.models import Outbox, Seat
from service.store.status import GameStatus, OutboxStatus
from service.store.unit import unit_of
from service.texts import choices, digest, player_texts, render
from service.texts.i18n import has, t

#: The texts that tell a player his card: the deal, a seat handed over or ``role``, this module's.
CARD_KEYS = ("role.dealt", "svc.role", "svc.catchup")


def welcome_back(ctx: Ctx) -> bool:
    """Tell him, for each running game he sits in, his card if he lacks it and what he may do now.
    False when he sits in no running game (the message is then handled as any other)."""
    assert ctx.identity is not None
    said = False
    games = my_games(ctx, (GameStatus.RUNNING,))
    several = sum(name is not None for _, name in games) > 1
    for game, name in games:
        if name is None or game.id is None:
            continue
        locked = lock_game(ctx.session, game.id)
        if locked is None or locked.status != GameStatus.RUNNING or locked.state is None:
            continue
        room = Room(ctx, locked)
        seat = room.seat_of(ctx.identity.id)
        if seat is None or room.state is None:
            continue
        if not _has_card(ctx, room):
            _card(ctx, room, seat.name)
        _missed(ctx, room)
        if not (channel_of(ctx.identity.channel).short and _phase_now(ctx, room, seat, several)):
            play.help_(ctx, room)
        bump(ctx.session, room.game)
        said = True
    return said


def _has_card(ctx: Ctx, room: Room) -> bool:
    """Whether a text telling him his card in this game was ever written to him (and not given up)."""
    assert ctx.identity is not None
    return (
        ctx.session.exec(
            select(Outbox.id).where(
                Outbox.identity_id == ctx.identity.id,
                Outbox.game_id == room.id,
                col(Outbox.key).in_(CARD_KEYS),
                col(Outbox.status).not_in((OutboxStatus.FAILED, OutboxStatus.MISSED)),
            )
        ).first()
        is not None
    )


#: What he missed that a catch-up tells: the deaths of a dawn and of a ballot, a return from the dead.
NEWS_KEYS = ("night.dawn", "day.ballots", "baron_samedi.revived")


def _missed(ctx: Ctx, room: Room) -> None:
    """What was told while he was away (the rows written ``missed``): the deaths and returns, and
    the nominations so far, in one text. Those rows are then his no more to tell (``merged``)."""
    assert ctx.identity is not None and room.state is not None
    query = (
        select(Outbox)
        .where(Outbox.identity_id == ctx.identity.id, Outbox.game_id == room.id, Outbox.status == OutboxStatus.MISSED)
        .order_by(col(Outbox.id))
    )
    with unit_of(ctx.session).reading(Outbox, staged=lambda o: o.status == OutboxStatus.MISSED):
        rows = list(ctx.session.exec(query))
    for row in rows:
        row.status = OutboxStatus.MERGED
        ctx.session.add(row)
    news = [r.text for r in rows if r.key in NEWS_KEYS]
    votes = [(str(v), str(x)) for v, x in engine.public_view(room.state).get("votes", ())]
    if news or votes:
        short = channel_of(ctx.identity.channel).short
        ctx.reply_text("svc.catchup.missed", digest.missed_text(news, votes, ctx.lang, short), room.id)


def _card(ctx: Ctx, room: Room, name: str) -> None:
    """His card and everything it has learned, from his view: by SMS as the start text told them
    (``Your card: ... Help: text role.``), on Telegram as ``role`` answers."""
    assert ctx.identity is not None and room.state is not None
    reader = room.reader(ctx.identity, room.seat_of(ctx.identity.id))
    info = room.info(ctx.identity)
    view = engine.view(room.state, name)
    if reader.sms:
        facts = [
            render.event_text(str(f["key"]), {k: v for k, v in f.items() if k != "key"}, reader, info)
            for f in view.get("knowledge", ())
        ]
        if not view.get("alive", True):
            facts.append(t(reader.lang, render.sms_key("svc.role.ghost", reader.sms)))
        card = " ".join(facts) or player_texts.role_text(view, reader, info)
    else:
        card = player_texts.role_text(view, reader, info)
    ctx.reply_text("svc.catchup", t(reader.lang, "svc.catchup", code=room.game.code) + "\n" + card, room.id)


def _phase_now(ctx: Ctx, room: Room, seat: Seat, several: bool) -> bool:
    """By SMS, the phase and what he may do now as a phase's text says them (``Night 2 until Tue
    22:00. Reply: kill 1 ann 2 bob``), shorter than help's answer, led by the game's code when he
    plays in several; False where a phase has no such text (help answers instead)."""
    assert ctx.identity is not None and room.state is not None
    pv = engine.public_view(room.state)
    phase = str(pv.get("phase"))
    if not has("en", f"sms.phase.{phase}"):
        return False
    data = {"night": pv.get("night"), "day": pv.get("day"), "suspects": list(pv.get("suspects", ()))}
    actions = [a.text() for a in engine.legal_actions(room.state, seat.name)]
    reader = replace(room.reader(ctx.identity, seat), acts=bool(actions))
    lines = [
        ("#" + room.game.code + " " if several else "")
        + render.event_text(f"phase.{phase}", data, reader, room.info(ctx.identity))
    ]
    if actions:
        lines.append(choices.options_text(actions, reader.lang, True, seats=room.names()))
    ctx.reply_text("svc.options", "\n".join(lines), room.id)
    return True
