"""A player's move: who may move now, the target read from his words or asked for, the engine's
answer; the buttons it was tapped on, and a tap from a phase that is over."""

from __future__ import annotations

from collections.abc import Sequence

import engine
from engine import Action, IllegalAction, Verb
from engine.types import NO_TARGET_VERBS
from service.channels import channel as channel_of
from service.game.context import Ctx
from service.game.room import Room
from service.ops import metrics
from service.store.status import GameStatus
from service.texts import choices, grammar, houses, render
from service.texts.errors import error_text
from service.texts.grammar import Parsed
from service.texts.i18n import t


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
    if ctx.tap is not None and (ctx.tap.phase != game.phase_no or game.status != GameStatus.RUNNING):
        stale_tap(ctx, room)
    elif game.status != GameStatus.RUNNING or state is None:
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
    ctx.reply_text(
        "svc.options",
        choices.options_text(opened, ctx.lang, short, seats=room.names()),
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
    if game.status != GameStatus.RUNNING or room.state is None:
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
