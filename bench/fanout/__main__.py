"""How fast the outbox reaches Telegram within its limits.

    .venv/bin/python bench/fanout [--messages 3000] [--games 100] [--workers 2] [--concurrency 8]
                                  [--redis redis://127.0.0.1:6379/12]

3,000 queued messages across 100 games (10 players each, so three texts a chat: a dawn's worth)
are sent by `--workers` processes running the worker's dispatch function (up to `--concurrency`
sends in flight each), sharing the Redis limiter (a database the bench flushes), against the
stand-in Telegram API enforcing Telegram's limits.
Target (issue 7): at least 90% of 30 messages a second, and zero 429s.
Needs PostgreSQL and Redis on localhost (a throwaway database is created and dropped).
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing as mp
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import redis
from sqlalchemy import text

from service.db import make_engine, transaction, upgrade
from service.delivery.dispatch import deliver
from service.delivery.wiring import make_delivery
from service.logging import configure
from service.models import Game, Identity, Outbox
from service.sandbox.fake_telegram import FakeTelegram
from service.sandbox.server import ServerThread
from service.settings import Settings

ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
TOKEN = "123456:BENCH-fanout"


def seed(url: str, messages: int, games: int) -> None:
    db = make_engine(url)
    per_game = messages // games
    with transaction(db) as s:
        for g in range(games):
            game = Game(code=f"B{g:04d}", status="running")
            s.add(game)
            s.flush()
            people = [Identity(channel="telegram", address=str(10_000 + g * 10 + i)) for i in range(10)]
            s.add_all(people)
            s.flush()
            for m in range(per_game):
                p = people[m % 10]
                assert p.id is not None
                s.add(Outbox(identity_id=p.id, channel="telegram", game_id=game.id, key="bench",
                             text=f"Dawn {m // 10} of game {g}: message {m}", dedup_key=f"b{g}:{m}"))
    db.dispose()


def work(url: str, api: str, redis_url: str, concurrency: int, until: float) -> None:
    configure(level=logging.WARNING)  # not a line per claim and per HTTP request
    db = make_engine(url)
    d = make_delivery(Settings(_env_file=None, TELEGRAM_BOT_TOKEN=TOKEN, TELEGRAM_API_URL=api,  # type: ignore[call-arg]
                               REDIS_URL=redis_url, TWILIO_ACCOUNT_SID=None))
    try:
        while time.monotonic() < until:
            report = deliver(db, d.senders, d.limiter, budget=5, concurrency=concurrency)
            if not report.sent and not report.deferred:
                with db.connect() as c:
                    left = c.execute(text("select count(*) from outbox where status in ('pending','sending')")).scalar()
                if not left:
                    return
                time.sleep(0.05)
    finally:
        d.close()
        db.dispose()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--messages", type=int, default=3000)
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--concurrency", type=int, default=8, help="sends in flight per worker process")
    ap.add_argument("--redis", default="redis://127.0.0.1:6379/12", help="a Redis database the bench may flush")
    args = ap.parse_args()
    name = f"lupus_bench_fanout_{uuid.uuid4().hex[:8]}"
    admin = make_engine(ADMIN, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'CREATE DATABASE "{name}"'))
    url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    r = redis.Redis.from_url(args.redis)
    r.flushdb()
    fake = FakeTelegram(TOKEN)
    try:
        upgrade(url)
        seed(url, args.messages, args.games)
        with ServerThread(fake.app) as api:
            started = time.monotonic()
            procs = [mp.get_context("fork").Process(target=work,
                                                    args=(url, api, args.redis, args.concurrency, started + 600))
                     for _ in range(args.workers)]
            for p in procs:
                p.start()
            for p in procs:
                p.join()
            ok = fake.sent()
            stamps = sorted(c.at for c in fake.calls("sendMessage") if c.status == 200)
        elapsed = stamps[-1] - stamps[0] if len(stamps) > 1 else float("nan")
        rate = (len(stamps) - 1) / elapsed
        with make_engine(url).connect() as c:
            sent = c.execute(text("select count(*) from outbox where status = 'sent'")).scalar()
        print(f"messages queued      {args.messages} across {args.games} games, {args.workers} worker processes, "
              f"{args.concurrency} sends in flight each")
        print(f"messages delivered   {len(ok)} (outbox rows sent: {sent})")
        print(f"delivery rate        {rate:.1f} msg/s = {100 * rate / 30:.1f}% of 30 msg/s (target >= 90%)")
        print(f"429 answers          {fake.rejected(429)} (target 0)")
        print(f"wall time            {time.monotonic() - started:.1f} s")
    finally:
        r.flushdb()
        with admin.connect() as c:
            c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


if __name__ == "__main__":
    main()
