"""``guide [NAME]``: what a character or a theme is, or the list of them (``service.texts.guide``),
in or out of a game: the rule set listed is the one of the game he is in (or was last), since a
player asks about the cards on his table."""

from __future__ import annotations

from service.channels import channel as channel_of
from service.game.context import Ctx
from service.store.models import Game
from service.store.status import GameStatus
from service.texts import guide as guide_texts
from service.texts.grammar import Parsed


def guide(ctx: Ctx, p: Parsed) -> None:
    assert ctx.identity is not None
    me = ctx.identity
    game = ctx.session.get(Game, me.current_game_id) if me.current_game_id else None
    rules = game.rules if game is not None and game.status != GameStatus.ENDED else None
    sms = channel_of(me.channel).short
    ctx.reply_text("svc.guide", guide_texts.answer(ctx.lang, p.args, rules, sms))
