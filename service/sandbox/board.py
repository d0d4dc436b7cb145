"""What the sandbox page shows of the games, read from the service's database: each game in a line a
person reads (where it stands, until when as its phones write it), its seats with the dead marked,
and what the worker gave up sending. ``phones`` maps a (channel, address) to the phone's name."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, col, select

import engine
from service.store.models import Game, Identity, Outbox, Seat
from service.store.status import GameStatus, OutboxStatus, SeatStatus
from service.texts.i18n import deadline_text, has, t

Phones = dict[tuple[str, str], str]
#: The page lists the games being played first, then those waiting for players, then the finished
#: ones (over, ended), the newest first in each.
ORDER: dict[str, int] = {GameStatus.RUNNING: 0, GameStatus.LOBBY: 1}


def games(db: Engine, phones: Phones) -> list[dict[str, Any]]:
    """Each game as the page shows it (running ones first): its line, its phase, its deadline, and
    its seats: who sits where, the dead marked."""
    with Session(db) as s:
        rows = sorted(s.exec(select(Game)).all(), key=lambda g: (ORDER.get(g.status, 2), -(g.id or 0)))
        seats = s.exec(
            select(Seat, Identity)
            .join(Identity, col(Identity.id) == col(Seat.identity_id))
            .where(col(Seat.status) == SeatStatus.JOINED)
            .order_by(col(Seat.position), col(Seat.id))
        ).all()
        hosts = {
            i.id: i
            for i in s.exec(
                select(Identity).where(col(Identity.id).in_([g.host_id for g in rows if g.host_id is not None]))
            )
        }
    out = []
    for g in rows:
        pv = engine.public_view(engine.from_json(g.state)) if g.state else {}
        dead = set(pv.get("dead", ()))
        host = hosts.get(g.host_id) if g.host_id is not None else None
        players = [seat.name for seat, _ in seats if seat.game_id == g.id]
        out.append(
            {
                "code": g.code,
                "status": g.status,
                "phase": phase(g) if g.state else "",
                "line": line(g, pv, len(players)),
                "phase_no": g.phase_no,
                "paused": g.paused,
                "deadline": g.deadline.isoformat() if g.deadline else None,
                "timezone": g.timezone,
                "host": phones.get((host.channel, host.address)) if host else None,
                "players": players,
                "seats": [
                    {"name": seat.name, "phone": phones.get((who.channel, who.address)), "dead": seat.name in dead}
                    for seat, who in seats
                    if seat.game_id == g.id
                ],
            }
        )
    return out


def failures(db: Engine, phones: Phones) -> list[dict[str, Any]]:
    """What the worker gave up sending (failed outbox rows), newest first, and to whom."""
    with Session(db) as s:
        rows = s.exec(
            select(Outbox, Identity)
            .join(Identity, col(Identity.id) == col(Outbox.identity_id))
            .where(col(Outbox.status) == OutboxStatus.FAILED)
            .order_by(col(Outbox.id).desc())
            .limit(50)
        ).all()
    return [
        {
            "to": phones.get((who.channel, who.address)) or f"{who.channel} {who.address}",
            "channel": row.channel,
            "key": row.key,
            "error": row.last_error or "",
            "text": row.text[:160],
            "length": len(row.text),
            "at": row.created_at.isoformat(),
        }
        for row, who in rows
    ]


def phase(game: Game) -> str:
    """``night 2``, ``day 1 nominations``, ``day 1 ballot``, ``over``: where a game stands."""
    if game.status != GameStatus.RUNNING or not game.state:
        return game.status
    pv = engine.public_view(engine.from_json(game.state))
    name = str(pv.get("phase", ""))
    if name == "night":
        return f"night {pv.get('night')}"
    if name in ("nominations", "ballot"):
        return f"day {pv.get('day')} {name}"
    return name


def line(game: Game, pv: engine.PublicView, players: int) -> str:
    """The game in a line: "#GJMR · night 1 until Sat 5 Dec 21:55 CET · 8 players" (the deadline as
    its phones write it), "... · paused · ...", "#GJMR · over: the Humans won · 8 players"."""
    code, count = f"#{game.code}", f"{players} player{'' if players == 1 else 's'}"
    if game.status == GameStatus.LOBBY:
        return f"{code} · waiting for players · {count if players else 'none yet'} (its host writes start)"
    if game.status == GameStatus.ENDED:
        return f"{code} · ended by its host · {count}"
    if game.status == GameStatus.OVER:
        return f"{code} · over{_won(pv)} · {count}"
    if game.paused:
        return f"{code} · {phase(game)} · paused · {count}"
    if game.deadline is None:
        return f"{code} · {phase(game)} · no deadline · {count}"
    return f"{code} · {phase(game)} until {deadline_text(game.deadline, game.timezone, 'en')} · {count}"


def _won(pv: engine.PublicView) -> str:
    team = pv.get("team")
    if team and has("en", f"team.{team}"):
        return f": {t('en', f'team.{team}')} won"
    winners = pv.get("winners") or ()
    return f": {', '.join(winners)} won" if winners else ""
