"""Creating a game, joining it, leaving it, starting it; listing games and players.

Deck choice for ``tabula``: the host names special characters (``deck seer medium``) or a theme,
in any language; the bot adds the Werewolves the count takes (two, three from 16 players; Lara
and any he names among them: more are refused) and fills with Villagers. Each ``set`` of the deck
is answered with the deck as it would be dealt now. Seating is shuffled at start from the seed.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from sqlmodel import select

import engine
from engine import GameConfig, InvalidSetup, RuleSet
from engine.rng import rng
from service.channels import channel as channel_of
from service.channels import shown_as
from service.game import ghosts, series
from service.game.context import Buttons, Ctx
from service.game.host_choices import PHASES, BadWord, Choices, ThemeList, parse_choices
from service.game.room import Room
from service.store.models import Game, Identity, Seat
from service.store.status import GameStatus, SeatStatus
from service.texts import cards, choices, player_texts, render
from service.texts.errors import error_text
from service.texts.grammar import Parsed, fold
from service.texts.i18n import duration_text, role_name, t, zone_of

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
MAX_NAME = 20


def _choices(ctx: Ctx, p: Parsed) -> Choices | None:
    """What the host chose, or None once he is told why it is not understood."""
    try:
        return parse_choices(list(p.args))
    except BadWord as e:
        ctx.reply("svc.new.bad", word=e.word)
    except ThemeList:
        ctx.reply("svc.themes", themes=cards.themes_list(ctx.lang))
    except InvalidSetup as e:
        ctx.reply("svc.new.bad_theme", reason=error_text(ctx.lang, e), themes=cards.theme_names(ctx.lang))
    return None


def new(ctx: Ctx, p: Parsed) -> None:
    assert ctx.identity is not None
    if (c := _choices(ctx, p)) is None:
        return None
    lang = c.lang or ctx.lang
    rules, tz = c.rules or RuleSet.TABULA.value, c.tz or zone_of(lang, ctx.svc.settings.DEFAULT_TIMEZONE)
    code = fresh_code(ctx)
    if ctx.newcomer or ctx.identity.language_from is None:  # he is new here, or never told his own
        ctx.identity.language, ctx.identity.language_from = lang, ctx.identity.language_from or "game"
    game = Game(
        code=code,
        rules=rules,
        setup=c.setup,
        options=c.options,
        timezone=tz,
        language=lang,
        seed=ctx.svc.random_bits(62),
        host_id=ctx.identity.id,
        created_at=ctx.now,
        updated_at=ctx.now,
    )
    group = ctx.chat
    if group is not None:  # created in a Telegram group: the game is played there
        game.group_id = group.id
        group.language = lang
        ctx.session.add(group)
    ctx.session.add(game)
    ctx.session.flush()
    ctx.identity.current_game_id = game.id
    theme = c.setup.get("theme")  # a theme says more than its box
    named = cards.theme_name(lang, theme) if theme else t(lang, f"rules.{rules}")
    ctx.reply("svc.created", code=code, rules=named, tz=tz)
    if group is not None:
        join = ctx.bot_link(group.channel, code)
        button = {"text": t(lang, "svc.tg.join_button", code=code), "url": join}
        ctx.send(
            group,
            "svc.tg.group_game",
            t(lang, "svc.tg.group_game", code=code, link=join),
            f"g{game.id}:group",
            game_id=game.id,
            buttons=[[button]] if join.startswith("http") else None,
        )
    _tell_mute(ctx, game, c)


def _tell_mute(ctx: Ctx, game: Game, c: Choices) -> None:
    """Muting Ghosts needs a Telegram group where the bot may restrict members: say so."""
    if ghosts.OPTION not in c.options:
        return
    if not c.options[ghosts.OPTION]:
        return ctx.reply("svc.mute.off", code=game.code)
    ctx.reply("svc.mute.on" if game.group_id is not None else "svc.mute.no_group", code=game.code)


def _phase_times(lang: str, options: dict[str, Any]) -> str:
    """The phase lengths or ends just chosen, in words: "notte 2 ore, votazione 4 ore"."""
    times = []
    for phase in PHASES:
        name = t(lang, f"phase.name.{phase}")
        if (minutes := options.get(f"{phase}_minutes")) is not None:
            times.append(f"{name} {duration_text(minutes * 60, lang)}")
        elif (at := options.get(f"{phase}_at")) is not None:
            times.append(t(lang, "svc.set.until", phase=name, time=at))
    return ", ".join(times)


def set_(ctx: Ctx, room: Room, p: Parsed) -> None:
    """A host changes what he chose: anything in the lobby; phase lengths and times later too."""
    game = room.game
    if not room.is_host(ctx.identity.id if ctx.identity else None):
        return ctx.reply("svc.not_host")
    if (c := _choices(ctx, p)) is None:
        return None
    if (
        not p.args
        or (game.status != GameStatus.LOBBY and not c.timing_only)
        or game.status in (GameStatus.OVER, GameStatus.ENDED)
    ):
        return ctx.reply("svc.set.bad", code=game.code)
    for phase in ("night", "nominations", "ballot"):
        if f"{phase}_at" in c.options or f"{phase}_minutes" in c.options:
            game.options = {k: v for k, v in game.options.items() if not k.startswith(phase + "_")}
    game.options = {**game.options, **c.options}
    if c.setup:  # a theme replaces named characters and the other way round
        drop = {"theme": "specials", "specials": "theme"}
        game.setup = {
            k: v
            for k, v in {**game.setup, **c.setup}.items()
            if not any(new in c.setup and k == old for new, old in drop.items())
        }
    game.rules = c.rules or game.rules
    if c.rules and c.rules != RuleSet.TABULA.value and not c.setup:
        # The Aura variant and Lupusburg deal their own fixed decks: a theme or named characters
        # chosen for tabula no longer apply (and would keep the game from starting).
        game.setup = {k: v for k, v in game.setup.items() if k not in ("theme", "specials")}
    if c.lang and not c.tz and game.timezone == zone_of(game.language, ctx.svc.settings.DEFAULT_TIMEZONE):
        game.timezone = zone_of(c.lang, ctx.svc.settings.DEFAULT_TIMEZONE)  # a zone nobody chose follows
    game.timezone, game.language = c.tz or game.timezone, c.lang or game.language
    room.log("host", "set", {"args": list(p.args)})
    if c.setup or c.rules:
        tell_deck(ctx, room)
    elif times := _phase_times(ctx.lang, c.options):  # said back, so that a host sees what was understood
        ctx.reply("svc.set.times", code=game.code, times=times)
    else:
        ctx.reply("svc.set.ok", code=game.code)
    _tell_mute(ctx, game, c)
    ghosts.sync(room)


def fresh_code(ctx: Ctx) -> str:
    while True:
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(4))
        if ctx.session.exec(select(Game).where(Game.code == code)).first() is None:
            return code


def valid_name(name: str) -> bool:
    return (
        0 < len(name) <= MAX_NAME
        and not name.isdigit()
        and not any(c in name for c in "#:")
        and not any(c.isspace() for c in name)
        and name.isprintable()
    )


def join(ctx: Ctx, p: Parsed, room: Room | None) -> None:
    assert ctx.identity is not None
    if room is None:
        return ctx.reply("svc.join.how")
    game, me = room.game, ctx.identity
    if me.language_from is None:  # nothing told his language yet: the game's
        me.language, me.language_from = game.language, "game"
    mine = room.seat_of(me.id)
    if mine is not None:
        return ctx.reply("svc.join.already", code=game.code, name=mine.name)
    if game.status == GameStatus.RUNNING:
        return _join_running(ctx, room, me)
    if game.status != GameStatus.LOBBY:
        return ctx.reply("svc.join.running", code=game.code)
    if (named := _name_to_join(ctx, p, room, me)) is not None:
        _add_seat(ctx, room, me, *named)


def _join_running(ctx: Ctx, room: Room, me: Identity) -> None:
    """Once the game runs, only a seat the host opened can be taken."""
    if room.is_moderator(me.id):  # he has read every secret: he may not play (as for volunteers)
        return ctx.reply("svc.volunteer.moderator", code=room.game.code)
    if room.is_former(me.id):
        return ctx.reply("svc.volunteer.former", code=room.game.code)
    return take_open_seat(ctx, room)


def _name_to_join(ctx: Ctx, p: Parsed, room: Room, me: Identity) -> tuple[str, set[str | None]] | None:
    """The name he joins with and how each channel shows it, or None once he is told why not."""
    game = room.game
    name = p.args[1] if len(p.args) > 1 else (me.display_name or "").strip()
    if len(p.args) > 2 or not name:
        ctx.reply("svc.join.need_name", code=game.code)
    elif not valid_name(name):
        ctx.reply("svc.join.bad_name")
    elif None in (shown := shown_as(name)):  # an emoji, a letter of another alphabet: some could not read or type it
        ctx.reply("svc.join.name_unshown", name=name)
    elif any(fold(s.name) == fold(name) for s in room.seats):
        ctx.reply("svc.join.name_taken", name=name, code=game.code)
    else:
        return name, shown
    return None


def _add_seat(ctx: Ctx, room: Room, me: Identity, name: str, shown: set[str | None]) -> None:
    seat = Seat(
        game_id=room.id,
        identity_id=me.id,
        name=name,
        joined_at=ctx.now,
        position=max((s.position for s in room.seats), default=0) + 1,
    )
    ctx.session.add(seat)
    room.seats.append(seat)
    room.people[me.id or 0] = me
    me.current_game_id = room.id
    room.broadcast("svc.joined", {"name": name, "count": len(room.seats)}, kind="lobby")
    if room.in_group(me):  # the line went to the group, in its language: he is answered here, in his
        ctx.reply("svc.join.private", code=room.game.code, name=name, count=len(room.seats))
    if other := sorted(str(n) for n in shown if n != name):  # Zoë reads Zoe by SMS: he learns how they see him
        ctx.reply("svc.join.shown_as", name=name, shown=", ".join(other))


def take_open_seat(ctx: Ctx, room: Room) -> None:
    """A substitute takes over a seat a host opened: the character and its secrets go with it."""
    assert ctx.identity is not None and room.state is not None
    seat = next((s for s in room.seats if s.status == SeatStatus.OPEN), None)
    if seat is None:
        return ctx.reply("svc.no_seat_open", code=room.game.code)

    def say(key: str, text: str, buttons: Buttons | None) -> None:
        ctx.reply_text(key, text, room.id, buttons=buttons)

    hand_over(ctx, room, seat, ctx.identity, say)


def hand_over(
    ctx: Ctx,
    room: Room,
    seat: Seat,
    person: Identity,
    say: Callable[[str, str, Buttons | None], None],
    options: bool = True,
) -> None:
    """``person`` takes over an open seat: the table is told, and he (through ``say``: a reply, or a
    private message when the worker seats a volunteer) learns the name he now plays, his card and
    everything it has learned (from the view function), and what he may do now (unless the phase
    is about to close: ``options`` False, the next phase's prompt follows)."""
    assert room.state is not None
    seat.identity_id, seat.status, seat.cohost = person.id, SeatStatus.JOINED, False
    ctx.session.add(seat)
    room.people[person.id or 0] = person
    person.current_game_id = room.id
    ctx.session.add(person)
    room.broadcast("svc.substituted", {"name": seat.name}, kind="host", exclude=[person.id or 0])
    ghosts.sync(room)  # taking a Ghost's seat in a group that mutes Ghosts
    lang = person.language
    say("svc.substitute.welcome", t(lang, "svc.substitute.welcome", code=room.game.code, name=seat.name), None)
    reader = room.reader(person, seat)
    view = engine.view(room.state, seat.name)
    say("svc.role", player_texts.role_text(view, reader, room.info(person)), None)
    actions = [a.text() for a in engine.legal_actions(room.state, seat.name)] if options else []
    if actions:
        seats = room.names()
        listed = choices.options(actions, lang, seats=seats)[0]
        say(
            "svc.options",
            t(lang, "svc.options", options=listed),
            channel_of(person.channel).keyboard(actions, room.game.code, lang, phase=room.game.phase_no, seats=seats),
        )


def leave(ctx: Ctx, room: Room) -> None:
    seat = room.seat_of(ctx.identity.id if ctx.identity else None)
    if seat is None:
        return ctx.reply("svc.not_member", code=room.game.code)
    if room.game.status != GameStatus.LOBBY:
        return ctx.reply("svc.leave.running")
    room.broadcast("svc.left", {"name": seat.name}, kind="lobby")
    room.seats.remove(seat)
    ctx.session.delete(seat)


def build_deck(setup: dict[str, Any], n: int) -> list[str] | None:
    specials = list(setup.get("specials") or [])
    if not specials:
        return None
    return engine.complete_deck(specials, n)


def tell_deck(ctx: Ctx, room: Room) -> None:
    """After a ``set`` of the deck, the theme or the rules: the deck as it would be dealt to the
    players in the lobby now, so that the host knows what he set (with fewer than the rules take,
    as it would be for the fewest), or why it cannot be dealt to them."""
    game = room.game
    theme = game.setup.get("theme")
    tabula = game.rules == RuleSet.TABULA.value
    now = len(room.seats)
    try:
        n = max(now, engine.player_range(game.rules, theme if tabula else None)[0])
        deck = build_deck(game.setup, n) if tabula else None
        dealt = engine.dealt_deck(game.rules, n, deck=deck, theme=theme, seed=game.seed)
    except InvalidSetup as e:
        return ctx.reply("svc.set.deck_bad", code=game.code, reason=error_text(ctx.lang, e))
    sms = ctx.identity is not None and channel_of(ctx.identity.channel).short
    line = render.deck_line(dealt["deck"], ctx.lang, sms)
    if "three_of" in dealt:
        line = t(
            ctx.lang, "svc.deck.three_of", deck=line, roles=", ".join(role_name(ctx.lang, r) for r in dealt["three_of"])
        )
    if now >= n:
        return ctx.reply("svc.set.deck", code=game.code, count=n, deck=line)
    ctx.reply("svc.set.deck_fewest", code=game.code, count=n, now=now, deck=line)


def start(ctx: Ctx, room: Room) -> None:
    game = room.game
    if not room.is_host(ctx.identity.id if ctx.identity else None):
        return ctx.reply("svc.not_host")
    if game.status != GameStatus.LOBBY:
        return ctx.reply("svc.join.running", code=game.code)
    far = [
        (s.name, p.channel)
        for s, p in room.seated()
        if channel_of(p.channel).writes_first and (not p.direct or p.unreachable)
    ]
    if far:  # Telegram refuses a bot's first word: they must open the bot before secrets can reach them
        names = ", ".join(name for name, _ in far)
        room.broadcast("svc.start.unreachable", {"names": names, "link": ctx.bot_link(far[0][1])}, kind="lobby")
        return None
    players = [s.name for s in room.seats]
    if game.options.get("shuffle", True):
        rng(game.seed, "seating").shuffle(players)
    setup = game.setup
    deck = build_deck(setup, len(players)) if game.rules == RuleSet.TABULA.value else None
    config = series.config(game, players) or GameConfig(
        RuleSet(game.rules),
        tuple(players),
        deck=tuple(deck) if deck else None,
        theme=setup.get("theme"),
        options=dict(setup.get("options", {})),
    )
    players = list(config.players)  # a series keeps its seating
    try:
        state, events = engine.new_game(config, game.seed)
    except InvalidSetup as e:
        return ctx.reply("svc.start.bad", reason=error_text(ctx.lang, e))
    for seat in room.seats:
        seat.position = players.index(seat.name) + 1
        ctx.session.add(seat)
    room.seats.sort(key=lambda s: s.position)
    game.status = GameStatus.RUNNING
    game.setup = {**setup, "players": players, "deck": deck, "options": dict(config.options)}
    room.log("host", "start", {"players": players})
    room.advance(state, events, None)


def players(ctx: Ctx, room: Room) -> None:
    """The table numbered by seat: the numbers every list of the game uses (``vote 3``)."""
    pv = engine.public_view(room.state) if room.state is not None else None
    key, text = player_texts.seating(room.names(), pv, ctx.lang)
    ctx.reply_text(key, text)


def games(ctx: Ctx, rows: list[tuple[Game, str | None]]) -> None:
    if not rows:
        return ctx.reply("svc.not_in_game")  # the same state as any command without a game: one text
    listed = ", ".join(f"#{g.code} ({t(ctx.lang, 'phase.name.' + _phase(g))}{', ' + n if n else ''})" for g, n in rows)
    ctx.reply("svc.games", games=listed)


def _phase(game: Game) -> str:
    if game.status == GameStatus.LOBBY:
        return "lobby"
    if game.status in (GameStatus.OVER, GameStatus.ENDED) or game.state is None:
        return "over"
    return str(engine.from_json(game.state).phase.value)
