"""Texts that never reached a reader who is still reachable: the platform refused them for good (a
text it will not take, whatever the retries) or could not be reached for as long as the retries
last. The worker's dispatch marks them ``failed`` and reports them (``Report.lost``); the operator
reads them in the log (an error each) and on the sandbox page (``recent``), and the hosts of the
game are told here, each in his language, once per text: the reader may have missed something, and
``status`` tells him where the game stands. The text itself is never shown to the host (it may be a
secret); nor is the notice sent to the reader it failed for (a host whose own text failed is left
to his co-hosts, if any). A reader who blocked the bot or texted STOP is another matter, told by
``service.game.reminders.tell_hosts_unreachable``.

An act refused for the bot's rights (muting Ghosts in a group where it may not) is told to the hosts
here too, once, and muting stops in that game (``tell_hosts_mute_refused``, ``service.game.ghosts``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from functools import partial

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from service.delivery.outcomes import GAVE_UP
from service.game import ghosts
from service.game.app import Service
from service.game.context import Ctx
from service.game.reminders import hosts
from service.game.room import Room
from service.store.db import lock_game
from service.store.models import Game, Identity, Outbox
from service.store.status import GameStatus, OutboxStatus
from service.texts.i18n import t


def tell_hosts_lost(svc: Service, row_ids: Iterable[int]) -> None:
    """Tell the hosts of each game concerned that these failed rows did not reach their reader."""
    with Session(svc.db) as s:
        rows = s.exec(
            select(Outbox).where(
                col(Outbox.id).in_(list(row_ids)),
                Outbox.status == OutboxStatus.FAILED,
                col(Outbox.game_id).is_not(None),
                col(Outbox.action).is_(None),
            )
        ).all()
    by_game: dict[int, list[Outbox]] = {}
    for row in rows:
        if row.game_id is not None:
            by_game.setdefault(row.game_id, []).append(row)
    for game_id, lost in by_game.items():
        for row in lost:
            try:
                svc.run(partial(_tell, svc, game_id=game_id, row=row))
            except IntegrityError:  # told already (the dispatch that reported it ran twice)
                continue


def _tell(svc: Service, session: Session, now: datetime, *, game_id: int, row: Outbox) -> tuple[None, Ctx | None]:
    game = lock_game(session, game_id)
    if game is None or game.status not in (GameStatus.LOBBY, GameStatus.RUNNING):
        return None, None
    ctx = Ctx(session, svc, now)
    room = Room(ctx, game)
    group = room.group()
    seat = room.seat_of(row.identity_id)
    if (
        seat is None
        and (group is None or group.id != row.identity_id)
        and row.identity_id not in {h.id for h in hosts(room)}
    ):
        return None, None  # not one of this game's readers any more
    reason = "gave_up" if (row.last_error or "").startswith(GAVE_UP) else "rejected"
    for host in hosts(room):
        if host.id == row.identity_id:
            continue
        lang = host.language
        if group is not None and group.id == row.identity_id:
            text = t(lang, "svc.lost.group", code=game.code, reason=t(lang, f"svc.lost.{reason}"))
        else:
            name = seat.name if seat is not None else _name(session, row.identity_id)
            text = t(lang, "svc.lost", code=game.code, name=name, reason=t(lang, f"svc.lost.{reason}"))
        ctx.send(host, "svc.lost", text, f"g{game_id}:lost:o{row.id}:h{host.id}", game_id=game_id)
    return None, ctx


def tell_hosts_mute_refused(svc: Service, outbox_ids: Iterable[int]) -> None:
    """The worker's report of acts Telegram refused: where the reason is the bot's rights, tell the
    game's hosts once and turn muting off for that game (it would be refused every time)."""
    with Session(svc.db) as s:
        rows = s.exec(select(Outbox).where(col(Outbox.id).in_(list(outbox_ids)))).all()
    for game_id in ghosts.refused_for_rights(rows):
        try:
            svc.run(partial(_mute_refused, svc, game_id=game_id))
        except IntegrityError:  # told already (a retried dispatch)
            continue


def _mute_refused(svc: Service, session: Session, now: datetime, *, game_id: int) -> tuple[None, Ctx | None]:
    game = lock_game(session, game_id)
    if game is None or not ghosts.enabled(game):
        return None, None
    game.options = {**game.options, ghosts.OPTION: False}
    session.add(game)
    ctx = Ctx(session, svc, now)
    room = Room(ctx, game)
    for host in hosts(room):
        ctx.send(
            host,
            "svc.mute.refused",
            t(host.language, "svc.mute.refused", code=game.code),
            f"g{game_id}:mute_refused:v{game.version}:i{host.id}",
            game_id=game_id,
        )
    return None, ctx


def _name(session: Session, identity_id: int) -> str:
    person = session.get(Identity, identity_id)
    return (person.display_name or person.address) if person is not None else "?"


@dataclass(frozen=True)
class Lost:
    """One text that failed for good, as the sandbox page shows it."""

    id: int
    at: datetime
    game: str | None
    channel: str
    address: str
    key: str
    chars: int
    error: str


def recent(db: Engine, limit: int = 20) -> list[Lost]:
    """The texts that failed for good, newest first (readers who blocked the bot or texted STOP
    included: their rows fail too, with the reason)."""
    with Session(db) as s:
        found = s.exec(
            select(Outbox, Identity, Game.code)
            .join(Identity, col(Identity.id) == col(Outbox.identity_id))
            .join(Game, col(Game.id) == col(Outbox.game_id), isouter=True)
            .where(Outbox.status == OutboxStatus.FAILED)
            .order_by(col(Outbox.id).desc())
            .limit(limit)
        ).all()
    return [
        Lost(r.id or 0, r.sent_at or r.created_at, code, r.channel, p.address, r.key, len(r.text), r.last_error or "")
        for r, p, code in found
    ]
