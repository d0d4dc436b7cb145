"""What the sandbox page shows of the games, read from the service's database: each game's phase and
deadline (in UTC and in the game's zone, each named), its seats with the dead marked, and what
the worker gave up sending. ``phones`` maps a (channel, address) to the phone's name."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import Engine
from sqlmodel import Session, col, select

import engine
from service.store.models import Game, Identity, Outbox, Seat

Phones = dict[tuple[str, str], str]


def games(db: Engine, phones: Phones) -> list[dict[str, Any]]:
    """Each game as the page shows it: its phase, its deadline in UTC and in the game's own
    zone (each labelled), and its seats: who sits where, the dead marked."""
    with Session(db) as s:
        rows = s.exec(select(Game).order_by(col(Game.id))).all()
        seats = s.exec(select(Seat, Identity).join(Identity, col(Identity.id) == col(Seat.identity_id))
                       .where(col(Seat.status) == "joined").order_by(col(Seat.position), col(Seat.id))).all()
        hosts = {i.id: i for i in s.exec(select(Identity).where(
            col(Identity.id).in_([g.host_id for g in rows if g.host_id is not None])))}
    out = []
    for g in rows:
        pv = engine.public_view(engine.from_json(g.state)) if g.state else {}
        dead = set(pv.get("dead", ()))
        host = hosts.get(g.host_id) if g.host_id is not None else None
        out.append({
            "code": g.code, "status": g.status, "phase": phase(g) if g.state else "",
            "phase_no": g.phase_no, "paused": g.paused,
            "deadline": g.deadline.isoformat() if g.deadline else None,
            "deadline_text": deadline_text(g), "timezone": g.timezone,
            "host": phones.get((host.channel, host.address)) if host else None,
            "players": [seat.name for seat, _ in seats if seat.game_id == g.id],
            "seats": [{"name": seat.name, "phone": phones.get((who.channel, who.address)),
                       "dead": seat.name in dead} for seat, who in seats if seat.game_id == g.id]})
    return out


def failures(db: Engine, phones: Phones) -> list[dict[str, Any]]:
    """What the worker gave up sending (failed outbox rows), newest first, and to whom."""
    with Session(db) as s:
        rows = s.exec(select(Outbox, Identity).join(Identity, col(Identity.id) == col(Outbox.identity_id))
                      .where(col(Outbox.status) == "failed").order_by(col(Outbox.id).desc()).limit(50)).all()
    return [{"to": phones.get((who.channel, who.address)) or f"{who.channel} {who.address}",
             "channel": row.channel, "key": row.key, "error": row.last_error or "",
             "text": row.text[:160], "length": len(row.text), "at": row.created_at.isoformat()}
            for row, who in rows]


def phase(game: Game) -> str:
    """``night 2``, ``day 1 nominations``, ``day 1 ballot``, ``over``: where a game stands."""
    if game.status != "running" or not game.state:
        return game.status
    pv = engine.public_view(engine.from_json(game.state))
    name = str(pv.get("phase", ""))
    if name == "night":
        return f"night {pv.get('night')}"
    if name in ("nominations", "ballot"):
        return f"day {pv.get('day')} {name}"
    return name


def deadline_text(game: Game) -> str:
    """The deadline in UTC and in the game's own zone, each named: the phones' texts use the latter."""
    if game.deadline is None:
        return "paused" if game.paused else ""
    local = game.deadline.astimezone(ZoneInfo(game.timezone))
    return f"{game.deadline:%a %d %b %H:%M} UTC ({local:%H:%M} {game.timezone})"


def duration(span: timedelta) -> str:
    """``8 h 30 min``: how far the clock moved."""
    minutes = int(span.total_seconds() // 60)
    days, hours, mins = minutes // 1440, minutes // 60 % 24, minutes % 60
    return " ".join(f"{n} {unit}" for n, unit in ((days, "d"), (hours, "h"), (mins, "min")) if n) or "under a minute"
