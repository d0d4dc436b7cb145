"""Kills: how often a worker SIGKILLed in the middle of a burst of sends makes a text reach its
reader twice, and how soon the texts it held go again (issue 31, decision 0260).

    .venv/bin/python bench/kills [--kills 20] [--chats 120] [--texts 5] [--telegram-latency 0.1]
                                 [--redis redis://127.0.0.1:6379/11]

A burst of `--chats` x `--texts` Telegram texts (each naming its outbox row) waits in the outbox of
a throwaway PostgreSQL database; two workers (`celery -A worker.app worker`, one pool process each,
the product's settings: DISPATCH_LEASE_SECONDS, OUTBOX_SWEEP_SECONDS) send them to the capacity
bench's stand-in Telegram (Telegram's limits, `--telegram-latency` seconds an answer), the bench
playing beat's outbox sweep. `--kills` times, at a random moment while texts are being sent, one of
the two workers is SIGKILLed (its main process and its pool) and a new one started in its place;
the burst is written again whenever it has drained. At the end: each row's copies as the stand-in
received them, per kill (a copy beyond the first is a double: Telegram keeps no client key), the
rows a kill left in flight (`last_error` "abandoned"), any failed (abandoned twice). How soon a
killed worker's texts go again is measured by `tests/reliability/test_send_taken_over.py`, where one
kill is timed alone (here a row left in flight may be sent again after a later kill, so which kill
held it is not known).
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "capacity"))

import httpx
import procs
import redis
from sqlalchemy import text

from bench.scratch import create_database, drop_database
from service.settings import Settings
from service.store.db import make_engine, upgrade
from worker.celery_app import make_celery

TOKEN = "987651:BENCH-kills"


def burst(db: object, chats: int, texts: int, round_no: int) -> None:
    with db.begin() as c:  # type: ignore[attr-defined]
        if round_no == 0:
            c.execute(
                text(
                    "insert into identities (channel, address, language, opted_out, unreachable, digest, "
                    "direct, created_at) select 'telegram', (1000 + g)::text, 'en', false, false, "
                    "false, true, now() "
                    "from generate_series(1, :n) g"
                ),
                {"n": chats},
            )
        c.execute(
            text(
                "insert into outbox (identity_id, channel, key, text, status, attempts, not_before, dedup_key, "
                "created_at, parts_sent) select i.id, 'telegram', 'bench.kills', "
                "'row ' || :r || '.' || t || ' to ' || i.address, 'pending', 0, now(), "
                "'k' || :r || ':' || i.id || ':' || t, now(), 0 from identities i, generate_series(1, :t) t "
                "order by t, i.id"
            ),
            {"r": round_no, "t": texts},
        )


def pending(db: object) -> int:
    with db.connect() as c:  # type: ignore[attr-defined]
        return int(c.execute(text("select count(*) from outbox where status in ('pending', 'sending')")).scalar())


def kill(p: procs.Proc) -> None:
    os.killpg(p.proc.pid, signal.SIGKILL)
    p.proc.wait()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--chats", type=int, default=120)
    ap.add_argument("--texts", type=int, default=5, help="texts a chat in each burst")
    ap.add_argument("--telegram-latency", type=float, default=0.1)
    ap.add_argument("--redis", default="redis://127.0.0.1:6379/11", help="a Redis database the bench may flush")
    args = ap.parse_args()
    rnd = random.Random(31)
    name, url = create_database("lupus_bench_kills")
    redis.Redis.from_url(args.redis).flushdb()
    started: list[procs.Proc] = []
    cfg = Settings()
    try:
        upgrade(url)
        db = make_engine(url)
        tg, tg_url = procs.stand_in(TOKEN, args.telegram_latency)
        started.append(tg)
        env = procs.base_env(url, args.redis, TOKEN, "bench-kills-secret", tg_url, 5.0)
        workers = [procs.worker(env, 1, f"worker{i + 1}") for i in range(2)]
        started += workers
        beat = make_celery(args.redis, include=[])
        kills: list[tuple[float, float]] = []  # (wall clock of the kill, monotonic)
        rounds, next_sweep = 0, 0.0
        burst(db, args.chats, args.texts, rounds)
        while len(kills) < args.kills:
            if pending(db) == 0:
                rounds += 1
                burst(db, args.chats, args.texts, rounds)
            beat.send_task("lupus.sweep_outbox", expires=60.0)
            time.sleep(rnd.uniform(1.0, 3.0))  # a random moment of the sending
            victim = rnd.randrange(2)
            kills.append((time.time(), time.monotonic()))
            kill(workers[victim])
            started.remove(workers[victim])
            workers[victim] = procs.worker(env, 1, f"worker{victim + 1}-{len(kills)}")
            started.append(workers[victim])
        end = time.monotonic() + 300
        while pending(db) and time.monotonic() < end:
            if time.monotonic() >= next_sweep:
                beat.send_task("lupus.sweep_outbox", expires=60.0)
                next_sweep = time.monotonic() + cfg.OUTBOX_SWEEP_SECONDS
            time.sleep(0.5)
        report(db, tg_url, args, kills, rounds)
        db.dispose()
    finally:
        for p in reversed(started):
            p.stop()
        drop_database(name)


def report(db: object, tg_url: str, args: argparse.Namespace, kills: list[tuple[float, float]], rounds: int) -> None:
    stats = httpx.get(f"{tg_url}/bench/stats?texts=1", timeout=60).json()
    copies = Counter(t for _, t in stats["texts"])
    with db.connect() as c:  # type: ignore[attr-defined]
        rows = c.execute(text("select text, status, last_error, extract(epoch from sent_at) from outbox")).all()
    doubles = sum(max(0, copies[t] - 1) for t, *_ in rows)
    abandoned = [(t, s, float(at or 0)) for t, s, err, at in rows if (err or "").startswith("abandoned")]
    failed = [t for t, s, *_ in rows if s == "failed"]
    lost = [t for t, s, *_ in rows if s == "sent" and copies[t] == 0]
    k = len(kills)
    print(
        f"burst                {rounds + 1} bursts of {args.chats} chats x {args.texts} texts "
        f"({len(rows)} rows), two workers, Telegram answering in {args.telegram_latency * 1000:.0f} ms, "
        f"DISPATCH_LEASE_SECONDS {Settings().DISPATCH_LEASE_SECONDS}, "
        f"OUTBOX_SWEEP_SECONDS {Settings().OUTBOX_SWEEP_SECONDS:g}"
    )
    print(f"kills                {k} SIGKILLs of a sending worker")
    print(
        f"doubles              {doubles} texts received twice: {doubles / k:.2f} a kill "
        f"(of {len(abandoned)} rows a kill left in flight: {len(abandoned) / k:.2f} a kill)"
    )
    print(f"failed / lost        {len(failed)} failed (abandoned twice), {len(lost)} marked sent and never received")
    counts = Counter(copies[t] for t, *_ in rows)
    print("copies a row         " + ", ".join(f"{n}: {c}" for n, c in sorted(counts.items())))


if __name__ == "__main__":
    main()
