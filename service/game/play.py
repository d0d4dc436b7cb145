"""What players do in a game besides their moves (``moves``): help, status, role, the record, and talk."""

from __future__ import annotations

from zoneinfo import available_timezones

from sqlmodel import col, select

import engine
from engine import Phase
from engine.record import GameRecord, Move
from service.channels import channel as channel_of
from service.game import reveal
from service.game.context import Ctx
from service.game.room import Room
from service.store.models import GameEvent
from service.store.status import GameStatus
from service.store.unit import unit_of
from service.texts import choices, grammar, houses, lupusburg, player_texts, render
from service.texts.grammar import Parsed
from service.texts.i18n import deadline_text, t

#: The private channels that talk at night, by the fact that tells their members.
NIGHT_CHANNELS = {
    "werewolf.pack": "werewolves",
    "mythomaniac.joined_pack": "werewolves",
    "freemason.lodge": "freemasons",
}


def _me(ctx: Ctx) -> int | None:
    return ctx.identity.id if ctx.identity else None


def help_(ctx: Ctx, room: Room) -> None:
    game, lang, me = room.game, ctx.lang, _me(ctx)
    if game.status == GameStatus.LOBBY:
        ctx.reply("svc.help.lobby", code=game.code, count=len(room.seats))
        if room.is_host(me):
            ctx.reply("svc.help.host_lobby")
        return
    if game.status != GameStatus.RUNNING or room.state is None:
        ctx.reply("svc.help.over", code=game.code)
        if room.is_host(me) and room.state is not None:
            ctx.reply("svc.help.host_over")
        return
    phase, number = player_texts.phase_label(engine.public_view(room.state), lang)
    info = room.info(ctx.identity)
    when = dict(code=game.code, phase=phase + number, tz=info.tz, deadline=deadline_text(info.deadline, info.tz, lang))
    seat = room.seat_of(me)
    if room.is_moderator(me):
        ctx.reply("svc.help.moderator", code=game.code)
    elif seat is not None and game.paused:  # no deadline to be "until", and no move is taken meanwhile
        ctx.reply("svc.help.paused", code=game.code, phase=phase + number)
    elif seat is not None:
        actions = [a.text() for a in engine.legal_actions(room.state, seat.name)]
        if actions:
            listed = choices.options(actions, lang, seats=room.names())[0]
            said = [t(lang, "svc.help.now", actions=listed, **when)]
            if game.rules == engine.RuleSet.LUPUSBURG.value:  # what each move is, in the game's words
                said += lupusburg.now_lines(engine.view(room.state, seat.name), actions, lang)
            ctx.reply_text(
                "svc.help.now",
                "\n".join(said),
                room.id,
                buttons=ctx.keyboard(actions, game.code, lang, phase=game.phase_no, seats=room.names()),
            )
        else:
            ctx.reply("svc.help.nothing", **when)
    if room.is_host(me):
        ctx.reply("svc.help.host")


def status(ctx: Ctx, room: Room) -> None:
    game = room.game
    if game.status == GameStatus.LOBBY or room.state is None:
        return ctx.reply("svc.status.lobby", code=game.code, players=render.names(room.names(), ctx.lang))
    reader = render.Reader(
        None,
        ctx.lang,
        room.is_moderator(_me(ctx)),
        sms=ctx.identity is not None and channel_of(ctx.identity.channel).short,
    )
    pv = engine.public_view(room.state)
    if game.status == GameStatus.ENDED:  # ended by a host: no winner, every card shown
        roles = render.roles_line(engine.moderator_view(room.state)["roles"], {}, ctx.lang)
        return ctx.reply("svc.ended", code=game.code, roles=roles)
    mod = engine.moderator_view(room.state) if reader.moderator else None
    over = pv.get("status") == Phase.OVER
    text = player_texts.status_text(
        pv, reader, room.info(ctx.identity), game.paused, mod, reveal.history(room.state) if over else None
    )
    seat = room.seat_of(_me(ctx))
    if seat is not None and not over:  # his own secret ballot, from his own view: only he reads it
        mine = engine.view(room.state, seat.name).get("ballot")
        listed = [mine] if isinstance(mine, str) else list(mine or ())
        if listed:
            text += "\n" + t(
                ctx.lang, "svc.status.ballot", target=" + ".join(houses.label(str(x), ctx.lang) for x in listed)
            )
    ctx.reply_text("svc.status", text, room.id)


def role(ctx: Ctx, room: Room) -> None:
    seat = room.seat_of(_me(ctx))
    if room.state is None or seat is None:
        return ctx.reply("svc.role.none")
    view = engine.view(room.state, seat.name)
    assert ctx.identity is not None
    text = player_texts.role_text(view, room.reader(ctx.identity, seat), room.info(ctx.identity))
    ctx.reply_text("svc.role", text, room.id)


def record(ctx: Ctx, room: Room) -> None:
    """The game record (YAML, moves in English): only once the game is over, since it holds
    the seed, and so every card, and every night's choices."""
    game = room.game
    if game.status not in (GameStatus.OVER, GameStatus.ENDED) and not room.is_moderator(_me(ctx)):
        return ctx.reply("svc.record.not_yet")
    ctx.reply_text("svc.record", export(ctx, room).dumps(), room.id)


def export(ctx: Ctx, room: Room) -> GameRecord:
    game = room.game
    with unit_of(ctx.session).reading(GameEvent):
        rows = ctx.session.exec(
            select(GameEvent).where(GameEvent.game_id == room.id, GameEvent.kind == "move").order_by(col(GameEvent.seq))
        )
        moves = [Move(r.data.get("actor"), str(r.data.get("text"))) for r in rows]
    setup = game.setup
    players = list(setup.get("players", []))
    return GameRecord(
        rules=engine.RuleSet(game.rules),
        seed=game.seed,
        players=players,
        theme=setup.get("theme"),
        deck=setup.get("deck"),
        options=dict(setup.get("options", {})),
        moves=moves,
    )


def lang(ctx: Ctx, p: Parsed) -> None:
    assert ctx.identity is not None
    code = grammar.parse_lang(p.args[0]) if p.args else None
    if code is None:
        return ctx.reply("svc.lang.bad")
    ctx.identity.language, ctx.identity.language_from = code, "said"
    ctx.reply("svc.lang.set")


def timezone(ctx: Ctx, p: Parsed) -> None:
    """``tz Europe/London``: deadlines in your own time zone; ``tz game``: each game's."""
    assert ctx.identity is not None
    if not p.args:
        return ctx.reply("svc.tz.bad")
    name = p.args[0]
    if grammar.fold(name) in ("game", "partita", "partida", "off", "no"):
        ctx.identity.timezone = None
        return ctx.reply("svc.tz.game")
    zone = next((z for z in available_timezones() if grammar.fold(z) == grammar.fold(name)), None)
    if zone is None:
        return ctx.reply("svc.tz.bad")
    ctx.identity.timezone = zone
    ctx.reply("svc.tz.set", tz=zone)


def digest(ctx: Ctx, p: Parsed) -> None:
    assert ctx.identity is not None
    if channel_of(ctx.identity.channel).short:  # by SMS the square is always held for the phase's text (room.holds)
        return ctx.reply("svc.digest.sms")
    on = grammar.parse_yes_no(p.args[0]) if p.args else not ctx.identity.digest
    if on is None:
        return ctx.reply("svc.digest.on" if ctx.identity.digest else "svc.digest.off")
    ctx.identity.digest = on
    ctx.reply("svc.digest.on" if on else "svc.digest.off")


def looks_like_a_move(ctx: Ctx, room: Room, text: str, overheard: bool = False) -> bool:
    """Talk shaped like a move (``grammar.near_miss``: "vot Jim", "vedo Zed", "kil 3"; overheard in a
    group, "vote Jim" too) is not relayed: a Seer's slip would tell the town who he is. He is
    answered privately with what he probably meant, in his language. True if so."""
    near = grammar.near_miss(text, room.names(), exact=overheard)
    if near is None:
        return False
    suggestion = f"{render.verb_word(ctx.lang, near.verb)} {near.target}"
    ctx.reply("svc.did_you_mean.group" if overheard else "svc.did_you_mean", suggestion=suggestion)
    return True


def unknown_command(ctx: Ctx, p: Parsed) -> None:
    """``/foo``: no command, and never talk. Answered with the command it is a slip for, if any."""
    found = grammar.slash_near(p)
    if found is None:
        return ctx.reply("svc.unknown_command", word=p.args[0])
    verb, word = found
    said = render.verb_word(ctx.lang, verb) if verb in grammar.ENGINE_VERBS else word
    ctx.reply("svc.did_you_mean", suggestion=" ".join([said, *p.args[1:3]]))


def talk(ctx: Ctx, room: Room, text: str) -> None:
    """The town square by day (and in the lobby, and after the end); the pack's or the
    lodge's channel at night. Ghosts are not relayed: the rulebooks forbid them to speak."""
    text = " ".join(text.split())
    if not text:
        return ctx.reply("svc.talk.empty")
    me, game, state = _me(ctx), room.game, room.state
    seat = room.seat_of(me)
    if seat is None and room.is_moderator(me):
        return _moderator_talks(room, text)
    if seat is None:
        return ctx.reply("svc.not_seated")
    name = seat.name
    if game.status != GameStatus.RUNNING or state is None:
        room.broadcast("svc.talk.relay", {"name": name, "text": text}, kind="talk", exclude=[me or 0])
        return
    pv = engine.public_view(state)
    if seat.name not in pv["speakers"]:
        return ctx.reply("svc.talk.ghost")
    if state.phase is not Phase.NIGHT:
        room.broadcast("svc.talk.relay", {"name": name, "text": text}, kind="talk", exclude=[me or 0])
        return
    channel, members = night_channel(state, seat.name)
    living = [m for m in members if m in pv["alive"] and m != seat.name]
    if channel is None or not living:
        return ctx.reply("svc.talk.night")
    seq = room.log("talk", "svc.talk.channel", {"name": name, "text": text}, [seat.name, *living], channel)
    for other, person in room.seated():
        if other.name in living:
            label = t(person.language, f"channel.{channel}")
            ctx.send(
                person,
                "svc.talk.channel",
                t(person.language, "svc.talk.channel", channel=label, name=name, text=text),
                f"g{room.id}:e{seq}:i{person.id}",
                game_id=room.id,
            )
    for mod in room.moderators():
        label = t(mod.language, f"channel.{channel}")
        ctx.send(
            mod,
            "svc.talk.channel",
            t(mod.language, "svc.talk.channel", channel=label, name=name, text=text),
            f"g{room.id}:e{seq}:i{mod.id}",
            game_id=room.id,
        )


def overheard(ctx: Ctx, room: Room, text: str) -> bool:
    """Plain talk typed in the game's Telegram group: the group read it already, so it goes (as
    ``say`` would, digests included) only to those who do not read the group, the SMS players.
    What is shaped like a move is not talk (``looks_like_a_move``): kept back and answered privately.
    Talk is never answered: not from a Ghost (the rulebooks forbid them to speak), nor at night (the village
    sleeps; the pack talks privately), nor from someone who does not play. True if relayed."""
    text = " ".join(text.split())
    me, game, state = _me(ctx), room.game, room.state
    seat = room.seat_of(me)
    moderator = room.is_moderator(me)
    if not text or (seat is None and not moderator):
        return False
    if looks_like_a_move(ctx, room, text, overheard=True):
        return False
    if game.status == GameStatus.RUNNING and state is not None and not moderator:
        assert seat is not None
        if seat.name not in engine.public_view(state)["speakers"] or state.phase is Phase.NIGHT:
            return False
    if seat is None:
        _moderator_talks(room, text)
    else:
        room.broadcast("svc.talk.relay", {"name": seat.name, "text": text}, kind="talk", exclude=[me or 0])
    return True


def _moderator_talks(room: Room, text: str) -> None:
    """The moderator (a host who does not play) talks to everyone, at any time, as "Moderator"
    in each reader's language."""
    me = room.ctx.identity.id if room.ctx.identity else None
    room.broadcast("svc.talk.moderator", {"text": text}, kind="talk", exclude=[me or 0])


def night_channel(state: engine.GameState, player: str) -> tuple[str | None, list[str]]:
    """The player's night channel and its members, as he was told them (from his own view)."""
    channel, members = None, []
    for fact in engine.view(state, player)["knowledge"]:
        if fact.get("key") in NIGHT_CHANNELS:
            channel, members = NIGHT_CHANNELS[fact["key"]], list(fact.get("members", []))
    return channel, members
