"""How many game actions a second the Telegram webhook takes, and how fast it answers.

    .venv/bin/python bench/webhook [--requests 3000] [--concurrency 16] [--games 40]

One web process (uvicorn, one worker, the real app from ``service.web.create_app`` on a
PostgreSQL database of its own) serves both ``POST /telegram/webhook`` and a bare FastAPI
endpoint added beside it (``POST /bare``, answering ``{}``), so the ratio compares like with like
on the same server. This process is the load generator: httpx on 127.0.0.1 with a bounded number
of requests in flight. Each webhook request is a valid Telegram update carrying a game action
that changes the game: a secret ballot vote (a voter may change it until the ballot closes), in
one of ``--games`` games of 12 players set up through the webhook itself.

Targets (issue 9): at least 300 actions a second on this 2-core machine, p99 under 50 ms, and at
least a third of the bare endpoint's throughput.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

TOKEN = "123456:BENCH-token"
SECRET = "bench-secret"
ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
NAMES = ["ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal", "ivy", "jon", "kim", "lou"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# -- the server process ----------------------------------------------------------------------------
def serve(port: int, db: str, telegram_api: str) -> None:
    import uvicorn
    from fastapi.responses import JSONResponse

    from service import web
    from service.settings import Settings

    settings = Settings(DATABASE_URL=db, TELEGRAM_BOT_TOKEN=TOKEN, TELEGRAM_WEBHOOK_SECRET=SECRET,
                        TELEGRAM_API_URL=telegram_api)
    app = web.create_app(settings)

    @app.post("/bare")
    async def bare() -> JSONResponse:
        return JSONResponse({})

    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


# -- the load generator ----------------------------------------------------------------------------
class Updates:
    def __init__(self) -> None:
        self.next_id = 1

    def text(self, user_id: int, name: str, text: str) -> bytes:
        self.next_id += 1
        user = {"id": user_id, "is_bot": False, "first_name": name}
        msg = {"message_id": self.next_id, "from": user, "chat": {"id": user_id, "first_name": name,
                                                                  "type": "private"},
               "date": int(time.time()), "text": text}
        return json.dumps({"update_id": self.next_id, "message": msg}).encode()


HEADERS = {"Content-Type": "application/json", "X-Telegram-Bot-Api-Secret-Token": SECRET}


def setup_games(client: httpx.Client, db: str, games: int,
                updates: Updates) -> list[tuple[str, list[int], list[str]]]:
    """Games of 12 opened, joined and started through the webhook, then moved on to the ballot by
    closing their phases with the service (as the worker would, with a clock past the deadline)."""
    from sqlmodel import Session, col, select

    import engine
    from engine import Phase
    from service.app import Service
    from service.db import make_engine
    from service.models import Game
    from service.settings import Settings

    def post(body: bytes) -> None:
        r = client.post("/telegram/webhook", content=body, headers=HEADERS)
        r.raise_for_status()

    eng = make_engine(db)
    clock = [datetime.now(UTC)]  # moved to each deadline before its phase is closed
    svc = Service(Settings(DATABASE_URL=db), eng, clock=lambda: clock[0])
    out = []
    for g in range(games):
        uids = [10_000_000 + g * 100 + i for i in range(len(NAMES))]
        post(updates.text(uids[0], NAMES[0], "new"))
        with Session(eng) as s:
            game = s.exec(select(Game).order_by(col(Game.id).desc())).first()
            assert game is not None and game.id is not None
            code, gid = game.code, game.id
        for uid, name in zip(uids, NAMES, strict=True):
            post(updates.text(uid, name, f"join {code} {name}"))
        post(updates.text(uids[0], NAMES[0], f"#{code} start"))
        for _ in range(3):
            with Session(eng) as s:
                game = s.get(Game, gid)
                assert game is not None and game.state is not None
            state = engine.from_json(game.state)
            if state.phase is Phase.BALLOT:
                break
            if state.phase is Phase.NOMINATIONS:
                for uid, name in zip(uids, NAMES, strict=True):
                    targets = [a.target for a in engine.legal_actions(state, name)]
                    if targets:
                        post(updates.text(uid, name, f"#{code} vote {random.choice(targets)}"))
            assert game.deadline is not None
            clock[0] = max(clock[0], game.deadline)
            svc.close_phase(gid, game.phase_no)
        with Session(eng) as s:
            game = s.get(Game, gid)
            assert game is not None and game.state is not None
        state = engine.from_json(game.state)
        if state.phase is not Phase.BALLOT:
            continue  # the first night ended the game (it cannot with 12, but do not count on it)
        voters = {n: uid for uid, n in zip(uids, NAMES, strict=True)
                  if any(a.target for a in engine.legal_actions(state, n))}
        out.append((code, list(voters.values()), list(state.suspects)))  # type: ignore[attr-defined]
    eng.dispose()
    return out


async def load(url: str, path: str, bodies: list[bytes], concurrency: int) -> tuple[float, list[float], int]:
    """Send every body once, `concurrency` at a time; (seconds, latencies, non-2xx count)."""
    latencies: list[float] = []
    bad = 0
    it = iter(bodies)
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=30) as client:
        async def worker() -> None:
            nonlocal bad
            for body in it:
                t = time.perf_counter()
                r = await client.post(path, content=body, headers=HEADERS)
                latencies.append(time.perf_counter() - t)
                bad += not r.is_success
        t0 = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - t0, latencies, bad


def pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(p / 100 * len(s)))] * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=3000)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--serve", nargs=3, metavar=("PORT", "DB", "TELEGRAM_API"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        return serve(int(args.serve[0]), args.serve[1], args.serve[2])

    from sqlalchemy import text

    from service.db import make_engine, upgrade
    from service.sandbox.fake_telegram import FakeTelegram
    from service.sandbox.server import ServerThread

    name = f"lupus_bench_webhook_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    admin = make_engine(ADMIN, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'CREATE DATABASE "{name}"'))
    db = f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    server = None
    try:
        upgrade(db)
        fake = FakeTelegram(TOKEN)
        with ServerThread(fake.app) as tg_url:
            port = free_port()
            server = subprocess.Popen([sys.executable, __file__, "--serve", str(port), db, tg_url + "/bot"],
                                      cwd=ROOT)
            url = f"http://127.0.0.1:{port}"
            for _ in range(100):
                try:
                    httpx.get(url + "/healthz", timeout=1)
                    break
                except httpx.TransportError:
                    time.sleep(0.2)
            updates = Updates()
            with httpx.Client(base_url=url, timeout=30) as client:
                games = setup_games(client, db, args.games, updates)
            rnd = random.Random(300)
            bodies = []
            for _ in range(args.requests):
                code, voters, suspects = rnd.choice(games)
                uid = rnd.choice(voters)
                bodies.append(updates.text(uid, "x", f"#{code} vote {rnd.choice(suspects)}"))
            bare = [b"{}"] * args.requests
            asyncio.run(load(url, "/bare", bare[:200], args.concurrency))  # warm both paths
            secs_b, lat_b, bad_b = asyncio.run(load(url, "/bare", bare, args.concurrency))
            secs_w, lat_w, bad_w = asyncio.run(load(url, "/telegram/webhook", bodies, args.concurrency))
    finally:
        if server is not None:
            server.terminate()
            server.wait(10)
        with admin.connect() as c:
            c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
    rate_b, rate_w = len(bare) / secs_b, len(bodies) / secs_w
    print(f"webhook: {len(games)} games of 12 in the ballot; {args.requests} requests, {args.concurrency} in flight, "
          f"one uvicorn process, PostgreSQL")
    print(f"bare endpoint:     {rate_b:7.0f} requests/s, p50 {pct(lat_b, 50):5.1f} ms, p99 {pct(lat_b, 99):5.1f} ms"
          f" ({bad_b} not 2xx)")
    print(f"telegram webhook:  {rate_w:7.0f} actions/s (target >= 300), p50 {pct(lat_w, 50):5.1f} ms, "
          f"p99 {pct(lat_w, 99):5.1f} ms (target < 50) ({bad_w} not 2xx)")
    print(f"ratio: {rate_w / rate_b:.2f} of the bare endpoint's throughput (target >= 0.33)")


if __name__ == "__main__":
    main()
