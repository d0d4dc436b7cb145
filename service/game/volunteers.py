"""Volunteer substitutes: people waiting to take over the seat of a player who keeps letting
phases pass, as play-by-post games keep a bench.

- ``volunteer CODE`` (from Telegram or SMS, by anyone not seated in the game) puts him on the
  game's waiting list, first come first served; ``volunteer CODE off`` takes him off. While a seat
  is open (a host wrote ``replace NAME``) volunteering takes it at once, as ``join CODE`` does.
- When a player misses one phase more than the warning allows (``service.game.reminders``), the first
  volunteer still reachable takes his seat: the engine's name, the character and everything it has
  learned stay with the seat; the newcomer is told privately who he now is (through the view
  function), the table that a substitute took the seat, the old player that it was handed on.
  With nobody waiting, the host is asked instead. A host's ``replace NAME`` also goes to the first
  volunteer when one waits.
"""

from __future__ import annotations

from sqlmodel import col, select

from service.channels import channel as channel_of
from service.game import lobby
from service.game.context import Buttons, Ctx
from service.game.room import Room
from service.store.models import Game, Identity, Seat, Volunteer
from service.store.status import GameStatus, SeatStatus
from service.texts import grammar
from service.texts.grammar import Parsed


def volunteer(ctx: Ctx, p: Parsed, room: Room | None) -> None:
    """``volunteer CODE`` / ``volunteer CODE off``: join or leave the game's waiting list."""
    assert ctx.identity is not None
    if room is None:
        return ctx.reply("svc.volunteer.how")
    game, me = room.game, ctx.identity
    if me.language_from is None:  # nothing told his language yet: the game's
        me.language, me.language_from = game.language, "game"
    off = any(grammar.parse_yes_no(a) is False for a in p.args)
    waiting = ctx.session.exec(
        select(Volunteer).where(Volunteer.game_id == room.id, Volunteer.identity_id == me.id)
    ).first()
    if off:
        if waiting is not None:
            ctx.session.delete(waiting)
        return ctx.reply("svc.volunteer.off", code=game.code)
    if game.status != GameStatus.RUNNING or room.state is None:
        return ctx.reply("svc.volunteer.not_running", code=game.code)
    mine = room.seat_of(me.id)
    if mine is not None:
        return ctx.reply("svc.join.already", code=game.code, name=mine.name)
    if room.is_moderator(me.id):  # he has read every secret: he may not play
        return ctx.reply("svc.volunteer.moderator", code=game.code)
    if room.is_former(me.id):
        return ctx.reply("svc.volunteer.former", code=game.code)
    if any(s.status == SeatStatus.OPEN for s in room.seats):
        if waiting is not None:
            ctx.session.delete(waiting)
        return lobby.take_open_seat(ctx, room)
    if waiting is None:
        ctx.session.add(Volunteer(game_id=room.id, identity_id=me.id or 0, created_at=ctx.now))
        ctx.session.flush()
    ctx.reply("svc.volunteer.ok", code=game.code, count=len(queue(ctx, game)))


def queue(ctx: Ctx, game: Game) -> list[Volunteer]:
    return list(
        ctx.session.exec(
            select(Volunteer).where(Volunteer.game_id == game.id).order_by(col(Volunteer.created_at), col(Volunteer.id))
        )
    )


def reachable(person: Identity) -> bool:
    """A message can reach him privately (Telegram refuses a bot's first word)."""
    far = channel_of(person.channel).writes_first and not person.direct
    return not (person.opted_out or person.unreachable or far)


def next_volunteer(ctx: Ctx, room: Room) -> Identity | None:
    """The first waiting volunteer who can be reached and does not sit in the game; he leaves the
    list (so do those passed over: they could not take a seat now either)."""
    for row in queue(ctx, room.game):
        ctx.session.delete(row)
        person = ctx.session.get(Identity, row.identity_id)
        if person is None or not reachable(person) or room.seat_of(person.id) is not None:
            continue
        if room.is_moderator(person.id):
            continue
        return person
    return None


def seat(ctx: Ctx, room: Room, seat: Seat, person: Identity, options: bool = True) -> None:
    """The volunteer takes the open ``seat``; he is told privately, each message once (``options``:
    what he may do in this phase, unless it is about to close)."""
    base = f"g{room.id}:sub{seat.id}:p{room.game.phase_no}:i{person.id}"

    def say(key: str, text: str, buttons: Buttons | None) -> None:
        ctx.send(person, key, text, f"{base}:{key}", game_id=room.id, buttons=buttons)

    lobby.hand_over(ctx, room, seat, person, say, options)
