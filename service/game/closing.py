"""A phase closed at its deadline, what the worker runs: the deadlines that are due, and the close."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from sqlalchemy import Engine
from sqlmodel import Session, col, select

import engine
from service.game.context import Ctx, Serving
from service.game.room import Room
from service.store.db import bump, lock_game
from service.store.models import Game
from service.store.status import GameStatus

BeforeClose = Callable[[Ctx, Room], None]
"""Called inside the close's transaction, under the game lock, before a close that does not end
the game is applied (``Service.before_close``)."""


def deadlines(db: Engine, until: datetime, limit: int | None = None) -> list[tuple[int, int, datetime]]:
    """(game id, phase number, deadline) of running games whose deadline is ``until`` or earlier,
    soonest first. Only running, unpaused games have a deadline, so the deadline index finds
    exactly these."""
    with Session(db) as session:
        stmt = (
            select(Game.id, Game.phase_no, Game.deadline)
            .where(
                col(Game.deadline).is_not(None),
                col(Game.deadline) <= until,
                col(Game.status) == GameStatus.RUNNING,
                col(Game.paused).is_(False),
            )
            .order_by(col(Game.deadline))
        )
        rows = session.exec(stmt.limit(limit) if limit else stmt).all()
    return [(int(i), int(n), d) for i, n, d in rows if i is not None and d is not None]


def close(
    svc: Serving, game_id: int, phase_no: int, skip_locked: bool, before_close: Sequence[BeforeClose]
) -> Callable[[Session, datetime], tuple[bool, Ctx | None]]:
    """The transaction's work that closes the phase if it is still the current one and its deadline
    has passed (True); ``skip_locked``: a game another transaction holds is left to it."""

    def work(session: Session, now: datetime) -> tuple[bool, Ctx | None]:
        game = _locked(session, game_id, skip_locked)
        if game is None or not _due(game, phase_no, now):
            return False, None
        ctx = Ctx(session, svc, now)
        room = Room(ctx, game)
        assert room.state is not None
        new, events = engine.close_phase(room.state, phase_no)
        for hook in before_close if new.phase is not engine.Phase.OVER else ():
            hook(ctx, room)
        room.advance(new, events, (None, "end"))
        session.add(game)
        bump(session, game)
        return True, ctx

    return work


def _locked(session: Session, game_id: int, skip_locked: bool) -> Game | None:
    if not skip_locked:
        return lock_game(session, game_id)
    return session.exec(
        select(Game)
        .where(Game.id == game_id)
        .with_for_update(skip_locked=True)
        .execution_options(populate_existing=True)
    ).first()


def _due(game: Game, phase_no: int, now: datetime) -> bool:
    """The game is still in this phase, running, and past its deadline."""
    return (
        game.status == GameStatus.RUNNING
        and not game.paused
        and game.phase_no == phase_no
        and game.deadline is not None
        and game.deadline <= now
        and game.state is not None
    )
