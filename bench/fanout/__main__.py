"""Fan-out of real phase closes against the platforms' limits.

    .venv/bin/python bench/fanout [--games 100] [--sms-games 10] [--workers 2] [--concurrency 8]
                                  [--sms-per-second 1] [--redis redis://127.0.0.1:6379/12]

`--games` tables are played through the service as `tests/delivery/mixed.py`'s table is (a Telegram
group the game is hosted from, a host and players on Telegram who read it; at the first
`--sms-games` tables three of the eight play by SMS, elsewhere all eight are on Telegram). Each game
is started and its night acted (wolves kill), and what that wrote is taken as already delivered.
Then `--workers` processes run the product's dispatch (`service.delivery.dispatch.deliver`, the
shared Redis limiter, the Telegram and Twilio senders) while this process closes the night of every
game, one after the other as a sweep's closes come: the outbox is what 100 real closes write.

The stand-in Telegram enforces Telegram's limits (the bot's 30 a second, a private chat's burst of
three then one a second, a group's 20 a minute; 429 with retry_after, then held to it); the stand-in
Twilio refuses more than `--sms-per-second` messages in any second from the number (429; it counts
texts, not segments; with `--twilio-queues` it takes all, as Twilio queues a long code's texts), and
the limiter is told the same pace in segments (a long code: about one segment a second).

Reported: Telegram messages a second against the documented 30 (from the first send to the last,
and the busiest second), SMS segments a second against the pace given, 429s (goal 0), each chat's
delay from the commit of the close that decided a text to the text's arrival, p50/p99/max per chat
kind (private, group, SMS), and that every chat received its texts once, in the order decided
(`tests/delivery/mixed.py`'s `check_order` over `decided`). Needs PostgreSQL and Redis on localhost
(a throwaway database is created and dropped; the Redis database given is flushed).
"""

from __future__ import annotations

import argparse
import itertools
import logging
import multiprocessing as mp
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import redis
from sqlalchemy import text
from sqlmodel import Session, col, select
from tables import Table

from bench.scratch import create_database, drop_database
from service.channels.sms.gsm7 import sms_size
from service.delivery.dispatch import deliver
from service.delivery.wiring import make_delivery
from service.ops.logging import configure
from service.sandbox.fake_telegram import FakeTelegram
from service.sandbox.fake_twilio import FakeTwilio
from service.sandbox.server import ServerThread
from service.settings import Settings
from service.store.db import make_engine, upgrade
from service.store.models import Identity, Outbox
from tests.delivery.mixed import check_order, decided

TOKEN = "123456:BENCH-fanout"
FROM = "+15005550006"


def work(
    url: str,
    tg: str,
    tw: str,
    sid: str,
    auth: str,
    redis_url: str,
    concurrency: int,
    sms_rate: float,
    ready: Any,
    closed: Any,
    until: float,
) -> None:
    configure(level=logging.WARNING)  # not a line per claim and per HTTP request
    db = make_engine(url)
    d = make_delivery(
        Settings(
            _env_file=None,
            TELEGRAM_BOT_TOKEN=TOKEN,
            TELEGRAM_API_URL=tg,  # type: ignore[call-arg]
            TWILIO_ACCOUNT_SID=sid,
            TWILIO_AUTH_TOKEN=auth,
            TWILIO_FROM_NUMBER=FROM,
            TWILIO_API_URL=tw,
            REDIS_URL=redis_url,
            SMS_SEGMENTS_PER_SECOND=sms_rate,
        )
    )
    try:
        deliver(db, d.senders, d.limiter, budget=1)  # the senders set up (the bot's getMe) before the closes
        ready.release()
        while time.monotonic() < until:
            report = deliver(db, d.senders, d.limiter, budget=5, concurrency=concurrency)
            if not report.sent and not report.deferred:
                with db.connect() as c:
                    left = c.execute(text("select count(*) from outbox where status in ('pending','sending')")).scalar()
                if not left and closed.is_set():
                    return
                time.sleep(0.02)
    finally:
        d.close()
        db.dispose()


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--sms-games", type=int, default=10, help="tables where three of the eight play by SMS")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--concurrency", type=int, default=8, help="sends in flight per worker process")
    ap.add_argument("--sms-per-second", type=float, default=1.0, help="the number's pace (segments a second)")
    ap.add_argument(
        "--twilio-queues",
        action="store_true",
        help="the stand-in Twilio takes every text, as Twilio queues a long code's (no 429)",
    )
    ap.add_argument("--redis", default="redis://127.0.0.1:6379/12", help="a Redis database the bench may flush")
    args = ap.parse_args()
    name, url = create_database("lupus_bench_fanout")
    r = redis.Redis.from_url(args.redis)
    r.flushdb()
    tg = FakeTelegram(TOKEN, clock=time.time)
    tw = FakeTwilio(max_per_second=None if args.twilio_queues else max(1, int(args.sms_per_second)), clock=time.time)
    configure(level=logging.WARNING)
    try:
        upgrade(url)
        db = make_engine(url)
        t0 = time.monotonic()
        tables = [Table(db, n, sms=n < args.sms_games) for n in range(args.games)]
        for t in tables:
            t.begin()
            t.act()
        with db.begin() as c:  # the lobby's and the night's texts: taken as delivered, not measured
            watermark = int(c.execute(text("select coalesce(max(id), 0) from outbox")).scalar_one())
            c.execute(text("update outbox set status = 'sent' where status in ('pending', 'sending')"))
        setup = time.monotonic() - t0
        committed: dict[int, float] = {}  # outbox row -> when the close that wrote it committed

        def stamp(ids: Any) -> None:
            now = time.time()
            committed.update((int(i), now) for i in ids)

        for t in tables:
            t.svc.after_commit = stamp
        db.dispose()  # no connection of this process is inherited by the workers
        with ServerThread(tg.app) as tg_url, ServerThread(tw.app) as tw_url:
            closed, ready = mp.get_context("fork").Event(), mp.get_context("fork").Semaphore(0)
            started = time.monotonic()
            procs = [
                mp.get_context("fork").Process(
                    target=work,
                    args=(
                        url,
                        tg_url,
                        tw_url,
                        tw.account_sid,
                        tw.auth_token,
                        args.redis,
                        args.concurrency,
                        args.sms_per_second,
                        ready,
                        closed,
                        started + 900,
                    ),
                )
                for _ in range(args.workers)
            ]
            for p in procs:
                p.start()
            for _ in procs:
                ready.acquire()
            started = time.monotonic()
            for t in tables:
                t.close()
            closing = time.monotonic() - started
            closed.set()
            for p in procs:
                p.join()
            wall = time.monotonic() - started
        report(db, tg, tw, watermark, committed, args, setup, closing, wall)
        db.dispose()
    finally:
        r.flushdb()
        drop_database(name)


def report(
    db: Any,
    tg: FakeTelegram,
    tw: FakeTwilio,
    watermark: int,
    committed: dict[int, float],
    args: argparse.Namespace,
    setup: float,
    closing: float,
    wall: float,
) -> None:
    with Session(db) as s:
        rows = list(s.exec(select(Outbox).where(col(Outbox.id) > watermark).order_by(col(Outbox.id))))
        people = {p.id: p for p in s.exec(select(Identity))}
    sms_calls = [c for c in tw.calls() if c.status == 201]
    received: dict[tuple[str, str], list[tuple[str, float]]] = defaultdict(list)
    for m in tg.calls("sendMessage"):
        if m.status == 200:
            received[("telegram", str(m.params["chat_id"]))].append((str(m.params["text"]), m.at))
    for c in sms_calls:
        received[("sms", c.params["To"])].append((c.params["Body"], c.at))
    by_chat: dict[tuple[str, str], list[Outbox]] = defaultdict(list)
    for row in rows:
        who = people[row.identity_id]
        by_chat[(who.channel, who.address)].append(row)
    delays: dict[str, list[float]] = defaultdict(list)
    disorder: list[str] = []
    unstamped = 0
    for chat, chat_rows in by_chat.items():
        kind = "sms" if chat[0] == "sms" else "group" if chat[1].startswith("-") else "private"
        ordered = decided(chat_rows)
        got = received.get(chat, [])
        try:
            spans = check_order(ordered, [m for m, _ in got])
        except AssertionError as e:
            disorder.append(f"{chat}: {str(e)[:200]}")
            continue
        for (first, _last), (_m, at) in zip(spans, got, strict=True):
            when = committed.get(ordered[first].id or 0)
            if when is None:
                unstamped += 1
                continue
            delays[kind].append(at - when)
    stamps = sorted(m.at for m in tg.calls("sendMessage") if m.status == 200)
    span = stamps[-1] - stamps[0] if len(stamps) > 1 else float("nan")
    busiest = max((sum(1 for x in stamps[i : i + 40] if x < s0 + 1.0) for i, s0 in enumerate(stamps)), default=0)
    segments = [(c.at, sms_size(c.params["Body"]).segments) for c in sms_calls]
    gaps = [b[0] - a[0] for a, b in itertools.pairwise(segments)]
    sms_span = segments[-1][0] - segments[0][0] if len(segments) > 1 else float("nan")
    sent = sum(1 for r in rows if r.status == "sent")
    pending = sum(1 for r in rows if r.status in ("pending", "sending"))
    print(
        f"games                {args.games} of 8 ({args.sms_games} with 3 SMS players), a Telegram group each; "
        f"{args.workers} worker processes, {args.concurrency} sends in flight each"
    )
    print(f"setup                {setup:.1f} s (games started and acted through the service)")
    print(
        f"closes               {args.games} nights closed in {closing:.1f} s, one after the other; "
        f"{len(rows)} outbox rows written ({sent} sent, {pending} left), wall time {wall:.1f} s"
    )
    print(
        f"telegram             {len(stamps)} messages in {span:.1f} s = {(len(stamps) - 1) / span:.1f} msg/s "
        f"({100 * (len(stamps) - 1) / span / 30:.0f}% of the documented 30); busiest second {busiest}"
    )
    if segments:
        total = sum(n for _, n in segments)
        print(
            f"sms                  {len(segments)} texts, {total} segments in {sms_span:.1f} s = "
            f"{(total - segments[0][1]) / sms_span:.2f} segments/s (pace given {args.sms_per_second:g}); "
            f"gaps between sends p50 {pct(gaps, 0.5):.2f} s, max {max(gaps, default=float('nan')):.2f} s"
        )
    print(
        f"429 answers          telegram {tg.rejected(429)}, twilio "
        f"{sum(1 for c in tw.calls() if c.status == 429)} (goal 0)"
    )
    for kind in ("private", "group", "sms"):
        xs = delays.get(kind, [])
        chats = sum(
            1 for c in by_chat if ("sms" if c[0] == "sms" else "group" if c[1].startswith("-") else "private") == kind
        )
        if xs:
            print(
                f"delay {kind:<8}       {len(xs)} messages to {chats} chats, commit to arrival: "
                f"p50 {pct(xs, 0.5):.2f} s, p99 {pct(xs, 0.99):.2f} s, max {max(xs):.2f} s"
            )
    print(
        f"order                {len(by_chat) - len(disorder)} of {len(by_chat)} chats received every text once, "
        f"in the order decided" + (f"; {unstamped} messages without a commit stamp" if unstamped else "")
    )
    for line in disorder[:5]:
        print(f"!! {line}")


if __name__ == "__main__":
    main()
