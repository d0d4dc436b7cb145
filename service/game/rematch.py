"""``again`` (``ancora``, ``otra``): a host opens the next game with the same table.

Once a game is over (by the rules, or ended by a host), a host writes ``again``: a new game
is created with the same rule set, options (phase lengths and times, shuffle, muting), deck or
theme, language, time zone, Telegram group and hosts, and the same players: each seat again
under the same name, held by the same person (a substitute who took a seat over keeps it).

- Everyone is still seated: the game starts at once, as ``start`` would (dealt and seated from
  the new game's own seed; a deck that no longer fits, or a Telegram player who cannot be
  reached, leaves it in the lobby with the reason, as ``start`` says it).
- Someone left (removed, or a seat still open for a substitute): the game waits in the lobby
  with the others; newcomers ``join`` it and the host writes ``start``.
- Lupusburg: the new game continues the series (``service.game.series``): the same seating, the
  first Burgomaster passing clockwise, the totals told at the end of each game after the first.
  If the players differ when it starts, a new series begins.

The link is kept in the JSON columns: the old game's ``options['rematch']`` names the new
game's code (so a second ``again`` points to it), the new game's ``setup['rematch_of']`` the
old one's.
"""

from __future__ import annotations

from typing import Any

from service.game import lobby, series
from service.game.context import Ctx
from service.game.room import Room
from service.store.models import Game, Seat
from service.store.status import GameStatus, SeatStatus
from service.texts.grammar import Parsed

LINK = "rematch"
"""The old game's option naming the code of the game that followed it."""
BACK = "rematch_of"
"""The new game's setup entry naming the game it follows."""
KEPT_SETUP = ("theme", "specials", "options")


def again(ctx: Ctx, room: Room, p: Parsed) -> None:
    game, state = room.game, room.state
    if not room.is_host(ctx.identity.id if ctx.identity else None):
        return ctx.reply("svc.not_host")
    if game.status in (GameStatus.LOBBY, GameStatus.RUNNING):
        return ctx.reply("svc.again.not_over", code=game.code)
    if state is None:  # ended in the lobby: nobody was ever dealt a card
        return ctx.reply("svc.again.none")
    if game.options.get(LINK):
        return ctx.reply("svc.again.done", code=game.code, new=game.options[LINK])
    new = _create(ctx, game, {**_setup(game), **series.setup_for_next(game, state)})
    assert new.id is not None
    stay = [s for s in room.seats if s.status == SeatStatus.JOINED and s.identity_id is not None]
    for old in stay:
        ctx.session.add(
            Seat(
                game_id=new.id,
                identity_id=old.identity_id,
                name=old.name,
                position=old.position,
                cohost=old.cohost,
                joined_at=ctx.now,
            )
        )
    for pid in {s.identity_id for s in stay} | {game.host_id}:
        person = room.people.get(pid or 0)
        if person is not None:  # their next command without a code is about the new game
            person.current_game_id = new.id
            ctx.session.add(person)
    game.options = {**game.options, LINK: new.code}
    room.log("host", "again", {"code": new.code})
    ctx.session.flush()
    gone = [s.name for s in room.seats if s not in stay]
    if gone:
        room.broadcast("svc.again.lobby", {"new": new.code, "missing": ", ".join(gone)}, kind="host")
        return None
    n = len(new.setup[series.KEY]["games"]) + 1 if series.KEY in new.setup else 0
    if n:
        room.broadcast("svc.again.series", {"new": new.code, "n": n}, kind="host")
    else:
        room.broadcast("svc.again.opened", {"new": new.code}, kind="host")
    lobby.start(ctx, Room(ctx, new))


def _setup(game: Game) -> dict[str, Any]:
    """How the deck is built, without what belongs to the old game's deal (the seating, the
    cards, the first Burgomaster)."""
    setup = {k: v for k, v in game.setup.items() if k in KEPT_SETUP}
    if "options" in setup:
        setup["options"] = {k: v for k, v in setup["options"].items() if k not in series.GAME_ONLY_OPTIONS}
    return {**setup, BACK: game.code}


def _create(ctx: Ctx, game: Game, setup: dict[str, Any]) -> Game:
    new = Game(
        code=lobby.fresh_code(ctx),
        rules=game.rules,
        setup=setup,
        options={k: v for k, v in game.options.items() if k != LINK},
        timezone=game.timezone,
        language=game.language,
        seed=ctx.svc.random_bits(62),
        host_id=game.host_id,
        group_id=game.group_id,
        created_at=ctx.now,
        updated_at=ctx.now,
    )
    ctx.session.add(new)
    ctx.session.flush()
    return new
