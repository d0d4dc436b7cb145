"""Every Telegram update delivered three times, out of order: each action applied once.

A whole game of eight is played through ``POST /telegram/webhook`` on PostgreSQL. In each phase
every player's update (one legal move each, so they commute) is posted three times, all copies
shuffled together; the lobby's joins likewise. The inbound log must hold each update once, the
game record one line per move, and every outbox row once.
"""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, select

import engine
from engine import Phase
from engine.playout import random_moves
from service import web
from service.game.app import Service
from service.settings import Settings
from service.store.models import Game, GameEvent, Inbound, Outbox
from tests.service.conftest import Clock

TOKEN = "7000000002:RELIABILITY-token"
SECRET = "reliability-secret"
HEADERS = {"Content-Type": "application/json", "X-Telegram-Bot-Api-Secret-Token": SECRET}
NAMES = ["ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal"]


class Updates:
    def __init__(self) -> None:
        self.next_id = 5000

    def text(self, who: str, text: str) -> dict[str, Any]:
        self.next_id += 1
        uid = 900_000 + NAMES.index(who)
        user = {"id": uid, "is_bot": False, "first_name": who, "language_code": "en"}
        msg = {
            "message_id": self.next_id,
            "from": user,
            "chat": {"id": uid, "first_name": who, "type": "private"},
            "date": 1_700_000_000,
            "text": text,
        }
        return {"update_id": self.next_id, "message": msg}


@pytest.mark.parametrize("at_once", [False, True], ids=["one-after-another", "all-at-once"])
def test_every_update_three_times_out_of_order_acts_once(pg: Any, at_once: bool) -> None:
    """``at_once``: a phase's copies are all posted concurrently, so the web process commits most of
    them together (``service.store.group_commit``), repeats in the same transaction as their originals."""
    settings = Settings(
        _env_file=None,
        DATABASE_URL=str(pg.url),
        TELEGRAM_BOT_TOKEN=TOKEN,  # type: ignore[call-arg]
        TELEGRAM_WEBHOOK_SECRET=SECRET,
        TELEGRAM_API_URL="http://127.0.0.1:9/bot",
    )
    clock = Clock()
    svc = Service(settings, pg, clock=clock)
    app = web.create_app(settings, svc)
    rnd = random.Random(3)
    updates = Updates()
    sent: list[dict[str, Any]] = []
    moves_sent = 0
    sizes: list[int] = []
    many = svc.handle_inbound_many

    def counted(messages: Any) -> Any:
        sizes.append(len(messages))
        return many(messages)

    svc.handle_inbound_many = counted  # type: ignore[method-assign]

    async def post_all(copies: list[dict[str, Any]]) -> list[httpx.Response]:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://lupus") as c:
            return await asyncio.gather(
                *(c.post("/telegram/webhook", content=json.dumps(u), headers=HEADERS) for u in copies)
            )

    with TestClient(app) as client:

        def deliver(batch: list[dict[str, Any]]) -> None:
            copies = [u for u in batch for _ in range(3)]
            rnd.shuffle(copies)
            if at_once:
                answers = asyncio.run(post_all(copies))
            else:
                answers = [client.post("/telegram/webhook", content=json.dumps(u), headers=HEADERS) for u in copies]
            for r in answers:
                assert r.status_code == 200, r.text
            sent.extend(batch)

        deliver([updates.text("ann", "new")])
        with Session(pg) as s:
            lobby = s.exec(select(Game)).one()
            code, gid = lobby.code, lobby.id
        assert gid is not None
        deliver([updates.text(n, f"join {code} {n}") for n in NAMES])
        deliver([updates.text("ann", f"#{code} start")])
        for _ in range(40):
            with Session(pg) as s:
                game = s.get(Game, gid)
                assert game is not None and game.state is not None
            state = engine.from_json(game.state)
            if state.phase is Phase.OVER:
                break
            batch = [updates.text(m.actor, f"#{code} {m.text()}") for m in random_moves(state, rnd, 1.0)]
            moves_sent += len(batch)
            deliver(batch)
            assert game.deadline is not None
            clock.now = max(clock.now, game.deadline)
            assert svc.close_phase(gid, game.phase_no)
        else:
            raise AssertionError("the game did not end")

    with Session(pg) as s:
        inbound = [int(i.external_id) for i in s.exec(select(Inbound))]
        moves = s.exec(select(GameEvent).where(GameEvent.kind == "move")).all()
        dedup = [o.dedup_key for o in s.exec(select(Outbox))]
        game = s.get(Game, gid)
    assert sorted(inbound) == sorted(u["update_id"] for u in sent)  # each update stored once
    assert len([m for m in moves if m.data.get("actor")]) == moves_sent  # each move applied once
    assert len(dedup) == len(set(dedup))
    assert game is not None and game.status == "over"
    assert max(sizes) > 1 if at_once else max(sizes) == 1
