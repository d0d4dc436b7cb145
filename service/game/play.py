"""What players do in a game: moves, help, status, role, the record, and talk."""

from __future__ import annotations

from collections.abc import Sequence
from zoneinfo import available_timezones

from sqlmodel import col, select

import engine
from engine import Action, IllegalAction, Phase, Verb
from engine.record import GameRecord, Move
from engine.types import NO_TARGET_VERBS
from service.channels import channel as channel_of
from service.game import reveal
from service.game.context import Ctx
from service.game.room import Room
from service.ops import metrics
from service.store.models import GameEvent
from service.store.unit import unit_of
from service.texts import choices, grammar, houses, lupusburg, player_texts, render
from service.texts.errors import error_text
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


def move(ctx: Ctx, room: Room, p: Parsed) -> None:
    if (mover := _mover(ctx, room)) is None:
        return None
    name, state = mover
    verb = Verb(str(p.verb))
    legal = [a for a in engine.legal_actions(state, name) if a.verb is verb]
    targets = [a.target for a in legal if a.target is not None]
    refused = None if legal else refusal(state, name, verb)
    if refused is not None:
        return ctx.reply_text("error." + refused.key, error_text(ctx.lang, refused), room.id)
    target: str | None = None
    if verb in NO_TARGET_VERBS or (legal and not targets):
        target = None
    elif not p.args:
        return _ask_target(ctx, room, verb, legal, targets)
    elif (target := _named_target(ctx, room, verb, p.args, targets)) is None:
        return None
    _play(ctx, room, state, Action(name, verb, target))


def _mover(ctx: Ctx, room: Room) -> tuple[str, engine.GameState] | None:
    """The name of his seat and the game he moves in, or None once he is told why he cannot move now."""
    game, state = room.game, room.state
    if ctx.tap is not None and (ctx.tap.phase != game.phase_no or game.status != "running"):
        stale_tap(ctx, room)
    elif game.status != "running" or state is None:
        ctx.reply("svc.not_running", code=game.code)
    elif game.paused:
        ctx.reply("svc.is_paused", code=game.code)
    elif (seat := room.seat_of(_me(ctx))) is None:
        ctx.reply("svc.not_seated")
    else:
        return seat.name, state
    return None


def _ask_target(ctx: Ctx, room: Room, verb: Verb, legal: list[Action], targets: list[str]) -> None:
    """A move typed without the target it needs: the targets, numbered with buttons, when it has any."""
    game = room.game
    if targets:
        texts = [a.text() for a in legal]
        listed = choices.options(texts, ctx.lang, seats=room.names())[0]
        ctx.reply_text(
            "svc.options",
            t(ctx.lang, "svc.options", options=listed),
            room.id,
            buttons=ctx.keyboard(texts, game.code, ctx.lang, phase=game.phase_no, seats=room.names()),
        )
    ctx.reply("error.target.missing", verb=render.verb_word(ctx.lang, verb.value))


def _named_target(ctx: Ctx, room: Room, verb: Verb, args: Sequence[str], targets: list[str]) -> str | None:
    """The target his words name, or None once he is told why they name none."""
    word = houses.spaced(args, targets)  # "votar 4 izquierda" names the house 4:left
    if word is None:
        ctx.reply("error.move.too_long", verb=render.verb_word(ctx.lang, verb.value))
        return None
    try:
        return houses.typed(word, targets, room.names())
    except grammar.Ambiguous as e:
        options = render.alternatives([houses.label(o, ctx.lang) for o in e.options], ctx.lang)
        if all(houses.HOUSE.match(o) for o in e.options):  # a player's two houses: the rules' question
            ctx.reply("error.target.not_house", houses=options)
        else:
            ctx.reply("svc.ambiguous", word=e.word, options=options)
    except grammar.NoSeat as e:
        ctx.reply("svc.no_seat", word=e.word, count=e.seats)
    except grammar.NoMatch as e:
        ctx.reply("svc.no_match", word=e.word)
    return None


def _play(ctx: Ctx, room: Room, state: engine.GameState, action: Action) -> None:
    """The engine plays the move, or refuses it; then he sees his choice and what it opened."""
    try:
        new, events = engine.apply(state, action)
    except IllegalAction as e:
        metrics.inc_on_commit(ctx.session, metrics.REFUSALS, reason=e.key)
        return ctx.reply_text("error." + e.key, error_text(ctx.lang, e), room.id)
    metrics.inc_on_commit(ctx.session, metrics.ACTIONS, verb=action.verb.value)
    before = {a.verb for a in engine.legal_actions(state, action.actor)}
    room.advance(new, events, (action.actor, action.text()))
    if ctx.tap is not None:
        show_choice(ctx, room, action.actor, action.text())
    if new.phase_no == state.phase_no:
        opened = [a.text() for a in engine.legal_actions(new, action.actor) if a.verb not in before]
        offer_opened(ctx, room, opened)


def offer_opened(ctx: Ctx, room: Room, opened: list[str]) -> None:
    """A move that opens a choice of a new kind (Lupusburg: his coin after ``bet``, the character he
    must show after ``privilege``) is followed by that choice, numbered, with buttons."""
    if not opened or ctx.identity is None:
        return
    short = channel_of(ctx.identity.channel).short
    listed = choices.options(opened, ctx.lang, short, seats=room.names())[0]
    ctx.reply_text(
        "svc.options",
        t(ctx.lang, render.sms_key("svc.options", short), options=listed),
        room.id,
        buttons=ctx.keyboard(opened, room.game.code, ctx.lang, phase=room.game.phase_no, seats=room.names()),
    )


def show_choice(ctx: Ctx, room: Room, name: str, chosen: str) -> None:
    """After a choice made by tapping, the keyboard it was made on shows it (marked), with the
    choices still open in this phase; once the phase is over (the move closed it), the choice alone."""
    assert ctx.tap is not None and ctx.identity is not None and room.state is not None
    game = room.game
    now = [a.text() for a in engine.legal_actions(room.state, name)] if game.phase_no == ctx.tap.phase else []
    texts = now if chosen in now else [chosen, *now]
    assert ctx.tap.phase is not None  # a tap of this very phase (``move``)
    keyboard = ctx.keyboard(texts, game.code, ctx.lang, phase=ctx.tap.phase, seats=room.names(), chosen=chosen)
    ctx.show_buttons(ctx.identity, ctx.tap, keyboard, f"in{ctx.inbound_id}:keyboard", game_id=room.id)


def stale_tap(ctx: Ctx, room: Room) -> None:
    """A tap on a button from a phase that is over, or from a game that is over: nothing is done.
    Its keyboard is taken away, and he is told so with what he may choose now (fresh buttons)."""
    assert ctx.tap is not None and ctx.identity is not None
    game, lang = room.game, ctx.lang
    ctx.show_buttons(ctx.identity, ctx.tap, None, f"in{ctx.inbound_id}:keyboard", game_id=room.id)
    if game.status != "running" or room.state is None:
        return ctx.reply("svc.tap.over", code=game.code)
    stale = t(lang, "svc.tap.stale", code=game.code)
    seat = room.seat_of(_me(ctx))
    actions = [a.text() for a in engine.legal_actions(room.state, seat.name)] if seat is not None else []
    if game.paused:
        return ctx.reply_text("svc.tap.stale", "\n".join([stale, t(lang, "svc.is_paused", code=game.code)]), room.id)
    if not actions:
        return ctx.reply_text("svc.tap.stale", "\n".join([stale, t(lang, "svc.tap.nothing")]), room.id)
    listed = choices.options(actions, lang, seats=room.names())[0]
    ctx.reply_text(
        "svc.tap.stale",
        "\n".join([stale, t(lang, "svc.options", options=listed)]),
        room.id,
        buttons=ctx.keyboard(actions, game.code, lang, phase=game.phase_no, seats=room.names()),
    )


#: The engine's refusals that are about the target named, not about the move itself.
TARGET_REFUSALS = frozenset(
    {
        "target.missing",
        "target.unknown",
        "target.self",
        "target.dead",
        "target.not_allowed",
        "target.not_house",
        "target.own",
        "target.own_last",
        "target.no_living",
        "vote.no_target",
        "ballot.not_suspect",
        "bet.not_player",
        "bet.self",
        "coin.not_number",
        "coin.not_drawn",
        "show.bad_side",
        "show.not_yours",
    }
)


def refusal(state: engine.GameState, actor: str, verb: Verb) -> IllegalAction | None:
    """Why ``verb`` cannot be played now whoever is named: the phase's or the card's own refusal
    ("votes are cast by day", "your character has no such power"). Asked of the engine before the
    target is read, with a stand-in target, so that ``votar 1`` at night is not answered "there is
    no player called 1". None when the refusal would be about the target (the reply to the target
    as typed says more)."""
    stand_in = next((p for p in state.players if p != actor), actor)
    try:
        engine.apply(state, Action(actor, verb, stand_in))
    except IllegalAction as e:
        return None if e.key in TARGET_REFUSALS else e
    return None


def help_(ctx: Ctx, room: Room) -> None:
    game, lang, me = room.game, ctx.lang, _me(ctx)
    if game.status == "lobby":
        ctx.reply("svc.help.lobby", code=game.code, count=len(room.seats))
        if room.is_host(me):
            ctx.reply("svc.help.host_lobby")
        return
    if game.status != "running" or room.state is None:
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
    if game.status == "lobby" or room.state is None:
        return ctx.reply("svc.status.lobby", code=game.code, players=render.names(room.names(), ctx.lang))
    reader = render.Reader(
        None,
        ctx.lang,
        room.is_moderator(_me(ctx)),
        sms=ctx.identity is not None and channel_of(ctx.identity.channel).short,
    )
    pv = engine.public_view(room.state)
    if game.status == "ended":  # ended by a host: no winner, every card shown
        roles = render.roles_line(engine.moderator_view(room.state)["roles"], {}, ctx.lang)
        return ctx.reply("svc.ended", code=game.code, roles=roles)
    mod = engine.moderator_view(room.state) if reader.moderator else None
    over = pv.get("status") == "over"
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
    if game.status not in ("over", "ended") and not room.is_moderator(_me(ctx)):
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
    if game.status != "running" or state is None:
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
    if game.status == "running" and state is not None and not moderator:
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
