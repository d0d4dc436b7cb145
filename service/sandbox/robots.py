"""Robot players: each plays one random legal move per phase, typed as a person would type it.

A robot is a sandbox phone like any other: its move goes through the real webhook as text
(``vote bob``), so the service cannot tell it from a person. Only the choice is made here, from the
engine's legal moves (engine.playout.random_moves, the property tests' random player).
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from sqlalchemy import Engine
from sqlmodel import Session, col, select

import engine
from engine.playout import random_moves
from service.store.models import Game, Identity, Seat
from service.store.status import GameStatus, SeatStatus

Address = tuple[str, str]  # (channel, address): how the service knows a person


def pending_moves(
    db: Engine, robots: Iterable[Address], done: set[tuple[int, int, str]], rnd: random.Random
) -> list[tuple[Address, str]]:
    """(robot, move text) for every robot seated in a running game who has not moved in its current
    phase yet; each one returned is added to `done` as (game id, phase number, seat name)."""
    wanted = set(robots)
    out: list[tuple[Address, str]] = []
    with Session(db) as session:
        games = session.exec(
            select(Game).where(col(Game.status) == GameStatus.RUNNING, col(Game.paused).is_(False))
        ).all()
        for game in games:
            if game.state is None or game.id is None:
                continue
            rows = session.exec(
                select(Seat.name, Identity.channel, Identity.address)
                .join(Identity, col(Identity.id) == col(Seat.identity_id))
                .where(col(Seat.game_id) == game.id, col(Seat.status) == SeatStatus.JOINED)
            ).all()
            mine = {name: (channel, address) for name, channel, address in rows if (channel, address) in wanted}
            if not mine:
                continue
            state = engine.from_json(game.state)
            for action in random_moves(state, rnd, eagerness=1.0):
                key = (game.id, state.phase_no, action.actor)
                if action.actor in mine and key not in done:
                    done.add(key)
                    out.append((mine[action.actor], action.text()))
    return out
