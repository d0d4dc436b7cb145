"""``more``: the town square of a reader's last summary, whole.

By SMS the summary that comes with each phase's text keeps the talk short (``digest.square_lines``):
each item cut to a line, the talk stopping at a few lines with the rest counted, and a word on how
to read it all. ``more`` answers with every item of that summary's square as it was said, in pages
that each fit one text (``more 2`` for the second page), since a long day's talk would otherwise
cost segments nobody asked for. Followed by anything but a page number, the word begins talk.
"""

from __future__ import annotations

from sqlmodel import col, select

from service.channels import channel as channel_of
from service.game import play
from service.game.context import Ctx
from service.game.room import Room
from service.store.models import Inbound, Outbox
from service.store.status import OutboxStatus
from service.texts.digest import SQUARE_KEYS
from service.texts.grammar import Parsed
from service.texts.i18n import t

#: A page's length: ten GSM-7 segments, within Twilio's 1,600 characters a text.
PAGE = 1530


def more(ctx: Ctx, room: Room, p: Parsed) -> None:
    assert ctx.identity is not None
    if p.args and not (len(p.args) == 1 and p.args[0].isdecimal() and len(p.args[0]) < 4):
        return play.talk(ctx, room, _as_written(ctx, p))  # "More votes on bob, please" is talk
    me = ctx.identity.id
    page = int(p.args[0]) if p.args else 1
    digests = ctx.session.exec(
        select(Outbox.id)
        .where(Outbox.identity_id == me, Outbox.game_id == room.id, Outbox.key == "svc.digest")
        .order_by(col(Outbox.id).desc())
        .limit(2)
    ).all()
    if not digests:
        return ctx.reply("svc.more.none")
    last, before = digests[0], digests[1] if len(digests) > 1 else 0
    # The held talk a summary took in was written before it (and after the summary before it).
    rows = ctx.session.exec(
        select(Outbox.text)
        .where(
            Outbox.identity_id == me,
            Outbox.game_id == room.id,
            col(Outbox.key).in_(SQUARE_KEYS),
            Outbox.status == OutboxStatus.MERGED,
            col(Outbox.id) > before,
            col(Outbox.id) < (last or 0),
        )
        .order_by(col(Outbox.id))
    ).all()
    if not rows:
        return ctx.reply("svc.more.none")
    lang = ctx.lang
    room_for = PAGE - len(t(lang, "svc.more.next", page=999))
    pages = paginate(list(rows), room_for if channel_of(ctx.identity.channel).short else 4000)
    if page > len(pages):
        return ctx.reply("svc.more.end")
    text = pages[page - 1]
    if page < len(pages):
        text += "\n" + t(lang, "svc.more.next", page=page + 1)
    ctx.reply_text("svc.more", text, room.id)


def _as_written(ctx: Ctx, p: Parsed) -> str:
    """The message as he typed it (the parsed form has lost its first word), without ``#CODE``."""
    row = ctx.session.get(Inbound, ctx.inbound_id) if ctx.inbound_id is not None else None
    text = row.text.strip() if row is not None else f"more {p.rest}"
    return text.split(None, 1)[1] if p.code and len(text.split(None, 1)) > 1 else text


def paginate(items: list[str], size: int) -> list[str]:
    """The items, one a line, in pages of at most ``size`` characters; an item longer than a page
    is broken at a word where one is near."""
    pages: list[str] = []
    current = ""
    for item in items:
        while item:
            free = size - len(current) - (1 if current else 0)
            if len(item) <= free:
                current = f"{current}\n{item}" if current else item
                break
            if current and free < size // 4:  # too little room left for a useful piece of it
                pages.append(current)
                current = ""
                continue
            cut = item.rfind(" ", 0, free + 1)
            cut = cut if cut > free // 2 else free
            piece, item = item[:cut].rstrip(), item[cut:].lstrip()
            current = f"{current}\n{piece}" if current else piece
            pages.append(current)
            current = ""
    if current:
        pages.append(current)
    return pages
