"""Routing: which domain function a parsed command goes to, and which game it is about.

``dispatch(ctx, parsed)`` is what ``inbound.work`` calls for every message, inside its
transaction; the domain modules (``lobby``, ``play``, ``host``...) do the work.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import bindparam
from sqlmodel import col, or_, select

import engine
from service.game import guide, host, lobby, more, moves, play, rematch, volunteers
from service.game.context import Ctx
from service.game.room import Room
from service.store.db import bump, lock_game
from service.store.models import Game, Identity, Seat
from service.store.status import NOT_FINISHED, GameStatus, SeatStatus
from service.texts import grammar
from service.texts.grammar import Parsed

ACTIVE = NOT_FINISHED
"""The statuses of a game still being played (or about to be)."""
SAID = "said"
"""``Identity.language_from`` when his own words set his language."""


def hear_language(identity: Identity, text: str, app: str | None) -> str | None:
    """The language this message tells of its writer, set as his: the first command he writes in
    a language ("entra", "unirse": ``grammar.language_of``), unless a game he joined or created gave
    him one first; else, while nothing has told it, his app's (Telegram's ``language_code``, one of
    ours). After that only ``lang`` changes it. A word of no language ("/start", "ciao") tells
    nothing, and changes nothing."""
    word = grammar.language_of(text) if identity.language_from in (None, "app") else None
    heard, source = (word, SAID) if word else (app, "app") if app and identity.language_from is None else (None, None)
    if heard is None:
        return None
    if identity.language != heard:
        identity.language = heard
    identity.language_from = source
    return heard


def dispatch(ctx: Ctx, p: Parsed) -> None:
    """Send a parsed command to its handler: first the commands that need no game, then, in the game
    it is about, moves, talk and the game's commands."""
    anywhere = ANYWHERE.get(p.verb or "")
    if anywhere is not None:
        return anywhere(ctx, p)
    if p.verb is None and p.slash:  # "/foo": a command we do not know, never talk
        return play.unknown_command(ctx, p)
    room = pick(ctx, p)
    if room is None:
        return None
    ctx.session.add(room.game)
    _in_game(ctx, room, p)
    bump(ctx.session, room.game)


def _in_game(ctx: Ctx, room: Room, p: Parsed) -> None:
    if p.is_move:
        moves.move(ctx, room, p)
    elif p.verb is None and play.looks_like_a_move(ctx, room, p.rest):
        pass  # answered with what it probably meant, and kept from the others
    elif p.verb is None:
        play.talk(ctx, room, p.rest)
    else:
        IN_GAME.get(p.verb, _not_understood)(ctx, room, p)


def _not_understood(ctx: Ctx, room: Room, p: Parsed) -> None:
    ctx.reply("svc.not_understood", word=p.verb)


def _games(ctx: Ctx, p: Parsed) -> None:
    lobby.games(ctx, my_games(ctx, (*ACTIVE, "over", "ended")))


def _join(ctx: Ctx, p: Parsed) -> None:
    """``join CODE``: the game is named, since he does not play in it (yet)."""
    code = p.args[0].lstrip("#").upper() if p.args else p.code
    room = _locked_code(ctx, code) if code else None
    if code and room is None:
        return ctx.reply("svc.join.unknown_game", code=code)
    lobby.join(ctx, p, room)


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


ANYWHERE: dict[str, Callable[[Ctx, Parsed], None]] = {
    "new": lobby.new,
    "lang": play.lang,
    "digest": play.digest,
    "tz": play.timezone,
    "guide": guide.guide,  # in or out of a game: it changes nothing
    "games": _games,
    "join": _join,
    "volunteer": _volunteer,
}
"""The commands that need no game of his (or name their own), by their verb."""

IN_GAME: dict[str, Callable[[Ctx, Room, Parsed], None]] = {
    "say": lambda c, r, p: play.talk(c, r, p.rest),
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
    "more": more.more,
}
"""The commands about the game he plays in or hosts (``pick``), by their verb; moves and talk aside."""


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
    if ctx.identity is not None and ctx.identity.current_game_id != room.id:  # unchanged: not dirtied
        ctx.identity.current_game_id = room.id
    return room


def _mine_query(*columns: Any) -> Any:
    """``columns`` of the games an identity (``me``) plays in (his seat's name, if asked) or hosts,
    among ``statuses``. Built once (see ``service.store.db``'s hot statements)."""
    me: Any = bindparam("me")
    return (
        select(*columns)
        .join(
            Seat,
            (col(Seat.game_id) == col(Game.id))
            & (col(Seat.identity_id) == me)
            & (col(Seat.status) == SeatStatus.JOINED),
            isouter=True,
        )
        .where(
            or_(col(Seat.id).is_not(None), col(Game.host_id) == me),
            col(Game.status).in_(bindparam("statuses", expanding=True)),
        )
        .order_by(col(Game.id))
    )


_MY_GAMES = _mine_query(Game, Seat.name)
_MY_CODES = _mine_query(Game.id, Game.code)


def _mine_params(ctx: Ctx, statuses: tuple[str, ...]) -> dict[str, Any]:
    assert ctx.identity is not None
    return {"me": ctx.identity.id, "statuses": list(statuses)}


def my_games(ctx: Ctx, statuses: tuple[str, ...]) -> list[tuple[Game, str | None]]:
    """The games this identity plays in or hosts, with his name in each."""
    rows = ctx.session.exec(_MY_GAMES, params=_mine_params(ctx, statuses)).all()
    seen: dict[int, tuple[Game, str | None]] = {}
    for game, name in rows:
        if game.id is not None and (game.id not in seen or name):
            seen[game.id] = (game, name)
    return list(seen.values())


def _mine(ctx: Ctx, statuses: tuple[str, ...]) -> list[tuple[int, str]]:
    """The ids and codes of ``my_games``: what most commands need to find theirs, which is then
    loaded once, locked (no row of a game's state read only to be read again)."""
    rows = ctx.session.exec(_MY_CODES, params=_mine_params(ctx, statuses)).all()
    return list(dict.fromkeys((int(i), str(c)) for i, c in rows if i is not None))


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
    games = _mine(ctx, ACTIVE)
    if not games:
        last = ctx.session.get(Game, ctx.identity.current_game_id) if ctx.identity.current_game_id else None
        after_end = ("status", "record", "help", "say", "again", "more", None)
        if last is not None and last.status in (GameStatus.OVER, GameStatus.ENDED) and p.verb in after_end:
            return _locked(ctx, last)
        ctx.reply({"help": "svc.help.none", "again": "svc.again.none"}.get(p.verb or "", "svc.not_in_game"))
        return None
    if len(games) > 1 and p.is_move:
        fits = [g for g in games if _move_fits(ctx, ctx.session.get(Game, g[0]), p)]
        games = fits if len(fits) == 1 else games
    if len(games) > 1:
        codes = ", ".join("#" + code for _, code in games)
        ctx.reply("svc.which_game", example=games[0][1], text=" ".join(filter(None, [p.verb, p.rest])), codes=codes)
        return None
    locked = lock_game(ctx.session, games[0][0])
    assert locked is not None
    return _entered(ctx, Room(ctx, locked))


def _move_fits(ctx: Ctx, game: Game | None, p: Parsed) -> bool:
    if game is None or game.state is None or ctx.identity is None:
        return False
    seat = ctx.session.exec(
        select(Seat).where(
            Seat.game_id == game.id, Seat.identity_id == ctx.identity.id, Seat.status == SeatStatus.JOINED
        )
    ).first()
    if seat is None:
        return False
    state = engine.from_json(game.state)
    return any(a.verb.value == p.verb for a in engine.legal_actions(state, seat.name))
