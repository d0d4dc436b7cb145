"""Host tools: the creator and the co-hosts he names.

Deadlines move (``extend 2h``, ``shorten 30m``), the clock stops and starts (``pause``,
``resume``), a seat changes hands (``replace NAME`` opens it; the next ``join CODE`` takes
it over with the character and all it has learned: the engine's player name stays), a
player is removed (``remove NAME``), a game ends (``end yes``, revealing every card).

Removing a player in a running game vacates his seat: the engine has no way to take a
character out of play that the rulebooks would recognise, so the character stays in the
game, alive or dead as the rules decide, and simply takes no action (no night choice, no
vote: a missing vote is an abstention). A host may later ``replace`` the seat to hand it
to a substitute.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import engine
from service.game import ghosts, reveal, volunteers
from service.game.context import Ctx
from service.game.room import FORMER, Room
from service.store.models import Identity, Seat
from service.store.status import GameStatus, SeatStatus
from service.texts import grammar, render
from service.texts.grammar import Parsed
from service.texts.i18n import deadline_text, duration_text, t

#: A deadline moved this close closes the phase before anyone could act on a text saying so: no
#: text goes (it would cost every SMS player a segment seconds before the close's own texts).
CLOSE_NOW = timedelta(minutes=1)


def _host(ctx: Ctx, room: Room) -> bool:
    if room.is_host(ctx.identity.id if ctx.identity else None):
        return True
    ctx.reply("svc.not_host")
    return False


def _running(ctx: Ctx, room: Room) -> bool:
    if room.game.status == GameStatus.RUNNING and room.state is not None:
        return True
    ctx.reply("svc.not_running", code=room.game.code)
    return False


def _phase_name(room: Room, lang: str) -> str:
    assert room.state is not None
    return t(lang, f"phase.name.{room.state.phase.value}")


def move_deadline(ctx: Ctx, room: Room, p: Parsed, sign: int) -> None:
    if not _host(ctx, room) or not _running(ctx, room):
        return
    minutes = grammar.parse_duration(p.rest)
    if minutes is None:
        return ctx.reply("svc.bad_duration")
    game = room.game
    room.log("host", "deadline", {"minutes": sign * minutes})
    if game.paused:  # the clock is stopped: what moves is the time left when it starts again
        game.paused_remaining = max(0, (game.paused_remaining or 0) + sign * minutes * 60)
        return _announce_deadline(room, "svc.deadline_moved_paused", None, left=game.paused_remaining)
    current = game.deadline or ctx.now
    game.deadline = max(ctx.now, current + sign * timedelta(minutes=minutes))
    if game.deadline - ctx.now < CLOSE_NOW:
        return  # the phase closes at the worker's next sweep, and its own texts say so
    _announce_deadline(room, "svc.deadline_moved", game.deadline)


def _announce_deadline(room: Room, key: str, deadline: datetime | None, left: float | None = None) -> None:
    """Each reader gets the phase and the time (or, paused, the time ``left``) in his own language."""
    seq = room.log("host", key, {})
    for person in room.public_people():
        lang = person.language
        when = (
            {"left": duration_text(left, lang)}
            if left is not None
            else {"deadline": deadline_text(deadline, room.info(person).tz, lang)}
        )
        text = t(lang, key, phase=_phase_name(room, lang), **when)
        room.ctx.send(person, key, text, f"g{room.id}:e{seq}:i{person.id}", game_id=room.id)


def pause(ctx: Ctx, room: Room) -> None:
    if not _host(ctx, room) or not _running(ctx, room):
        return
    game = room.game
    if game.paused:
        return ctx.reply("svc.already_paused")
    left = (game.deadline - ctx.now).total_seconds() if game.deadline else 0
    game.paused, game.paused_remaining, game.deadline = True, max(0, int(left)), None
    room.broadcast("svc.paused", {}, kind="host")


def resume(ctx: Ctx, room: Room) -> None:
    if not _host(ctx, room) or not _running(ctx, room):
        return
    game = room.game
    if not game.paused:
        return ctx.reply("svc.not_paused")
    game.paused = False
    game.deadline = ctx.now + timedelta(seconds=game.paused_remaining or 0)
    game.paused_remaining = None
    _announce_deadline(room, "svc.resumed", game.deadline)


def _target_seat(ctx: Ctx, room: Room, p: Parsed) -> Seat | None:
    if not p.args:
        ctx.reply("svc.join.need_name", code=room.game.code)
        return None
    try:
        name = grammar.resolve(p.args[0], room.names(), room.names())  # a number is a seat
    except grammar.Ambiguous as e:
        ctx.reply("svc.ambiguous", word=e.word, options=render.alternatives(list(e.options), ctx.lang))
        return None
    except grammar.NoMatch as e:
        ctx.reply("svc.no_match", word=e.word)
        return None
    return room.seat_named(name)


def replace(ctx: Ctx, room: Room, p: Parsed) -> None:
    if not _host(ctx, room) or not _running(ctx, room):
        return
    seat = _target_seat(ctx, room, p)
    if seat is None:
        return
    waiting = volunteers.next_volunteer(ctx, room)
    unseat(ctx, room, seat, "open")
    room.log("host", "replace", {"name": seat.name})
    if waiting is not None:  # a volunteer was waiting for a seat: he takes this one now
        volunteers.seat(ctx, room, seat, waiting)
        return ctx.reply("svc.replace.volunteer", name=seat.name, code=room.game.code)
    ctx.reply("svc.replace.opened", name=seat.name, code=room.game.code)


def unseat(ctx: Ctx, room: Room, seat: Seat, status: str, key: str = "svc.replaced") -> None:
    """The seat's player leaves it (``open`` for a substitute, ``vacant``); he is told with ``key``."""
    old = ctx.session.get(Identity, seat.identity_id) if seat.identity_id is not None else None
    if old is not None and old.id != (ctx.identity.id if ctx.identity else None):
        ctx.send(
            old,
            key,
            t(old.language, key, code=room.game.code),
            f"g{room.id}:x{seat.id}:{room.game.version}:i{old.id}",
            game_id=room.id,
        )
    if old is not None and old.id is not None:  # he knows the seat's secrets: no other seat for him
        room.game.setup = {**room.game.setup, FORMER: sorted({*room.game.setup.get(FORMER, ()), old.id})}
    seat.identity_id, seat.status, seat.cohost = None, status, False
    ctx.session.add(seat)
    ghosts.sync(room)  # a muted Ghost who leaves the seat may speak in the group again


def remove(ctx: Ctx, room: Room, p: Parsed) -> None:
    if not _host(ctx, room):
        return
    seat = _target_seat(ctx, room, p)
    if seat is None:
        return
    if room.game.status == GameStatus.LOBBY:
        room.broadcast("svc.left", {"name": seat.name}, kind="lobby")
        room.seats.remove(seat)
        ctx.session.delete(seat)
        return
    if not _running(ctx, room):
        return
    unseat(ctx, room, seat, SeatStatus.VACANT)
    room.broadcast("svc.removed", {"name": seat.name}, kind="host")


def cohost(ctx: Ctx, room: Room, p: Parsed) -> None:
    if not _host(ctx, room):
        return
    seat = _target_seat(ctx, room, p)
    if seat is None:
        return
    if seat.status != SeatStatus.JOINED:
        return ctx.reply("svc.cohost.no_player", name=seat.name)
    seat.cohost = True
    ctx.session.add(seat)
    room.broadcast("svc.cohost.ok", {"name": seat.name}, kind="host")


def end(ctx: Ctx, room: Room, p: Parsed) -> None:
    if not _host(ctx, room):
        return
    game = room.game
    if game.status not in (GameStatus.LOBBY, GameStatus.RUNNING):
        return ctx.reply("svc.not_running", code=game.code)
    if not p.args or grammar.parse_yes_no(p.args[0]) is not True:
        return ctx.reply("svc.end.confirm", code=game.code)
    if game.status == GameStatus.LOBBY or room.state is None:
        room.flush_digests()  # the joins held for SMS readers go with the news
        room.broadcast("svc.ended_lobby", {}, kind="host")
    else:
        roles = engine.moderator_view(room.state)["roles"]
        seq = room.log("host", "end", {"roles": roles})
        for person in room.public_people():
            line = render.roles_line(roles, {}, person.language)
            ctx.send(
                person,
                "svc.ended",
                t(person.language, "svc.ended", code=game.code, roles=line),
                f"g{room.id}:e{seq}:i{person.id}",
                game_id=room.id,
            )
        room.flush_digests()
        reveal.tell_history(room)
    game.status, game.deadline, game.paused = GameStatus.ENDED, None, False
    ghosts.sync(room)  # the Ghosts may speak again


def open_seats(room: Room) -> list[Seat]:
    return [s for s in room.seats if s.status == SeatStatus.OPEN]
