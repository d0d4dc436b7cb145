"""Capacity: many slow games over a compressed day on the cheapest deployment (issue 21's moonshot).

    .venv/bin/python bench/capacity [--games 10000] [--due 60] [--window 20] [--sweep 5] [--played 20]
                                    [--talk 20] [--max-run 300] [--pool-processes 1] [--workers 1]
                                    [--telegram-latency 0.1] [--redis redis://127.0.0.1:6379/10]

One web process (`lupus web`, WEB_CONCURRENCY=1: uvicorn serving `worker.web:app`, the real app with
the worker's hand-off) and one worker (`celery -A worker.app worker`, one pool process; `--workers N`
runs N of them, as N worker dynos or machines would, sharing the limiter in Redis), on
PostgreSQL and Redis, as the cheapest Heroku dynos would run them; the bench plays beat (it sends
`lupus.sweep_deadlines` every `--sweep` seconds, `lupus.sweep_outbox` every 15 and
`lupus.reminders` every 60, as beat does). The worker sends to a stand-in Telegram in a process of
its own that enforces Telegram's limits (`FakeTelegram(enforce_limits=True)`: 30 a second for the
bot, a private chat's burst of three then one a second, a group's 20 a minute; 429 otherwise) and
answers each call `--telegram-latency` seconds later (0.1: the round trip from a dyno in Europe or
the US east to Telegram's servers is tens to a hundred and more milliseconds).

`--games` running games of eight: one real game started through the service (hosted from its
Telegram group, phases of one minute: the compressed day) and clones of it, each with its own ten
Telegram chats (`world.py`). `--due` of them have their first deadline spread over the next
`--window` seconds, the others days away. Each due game then goes night, nominations, ballot,
night, a phase a minute, closed by the worker. Meanwhile an open-loop client (`client.py`) POSTs
players' updates to the webhook: every move of `--played` due games, as each enters a phase, and
`--talk` messages a second to random due games. The run ends when every due game has closed its
second night (or ended), or after `--max-run` seconds.

Reported, one line a figure, the target beside it where there is one:
1. deadlines: the phases due in the run that closed, lateness from the deadline to the commit of
   the close's texts (the close's clock on the outbox rows it wrote, as bench/deadlines measures
   it) p50/p99/max; target p99 < sweep + 2 s;
2. Telegram: messages the stand-in delivered a second (at most ~30: the ceiling printed beside it),
   for the number of worker processes run, the busiest second, 429s
   (target 0), the texts still pending at the end (a compressed day writes far more than 30 a
   second carries: the backlog is expected, and reported);
3. memory: VmRSS (/proc) of the web process, the worker's main process and its pool process,
   sampled every second, peak (with the kernel's VmHWM) and end; target < 200 MB each;
4. capacity: COMPUTED, 30/s x 86,400 s / the Telegram messages of one game-day (counted from the
   outbox rows of the games that went through a night and a day in the run, times the messages a
   sent row became); the per-group 20/minute weighed against the group's share. MEASURED, what the
   run sustained: the delivered rate scaled to a day over the same messages a game-day, and the
   game-days wholly delivered during the run scaled to a day.
Needs PostgreSQL and Redis on localhost (a throwaway database is created and dropped; the Redis
database given is flushed).
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing as mp
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import client
import figures
import httpx
import procs
import redis
import world
from sqlalchemy import text

from bench.scratch import create_database, drop_database
from service.store.db import make_engine, upgrade
from worker.celery_app import make_celery

TOKEN = "987650:BENCH-capacity"
SECRET = "bench-capacity-secret"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=10_000, help="running games of eight")
    ap.add_argument("--due", type=int, default=60, help="games whose first deadline falls in the window")
    ap.add_argument("--window", type=float, default=20.0, help="seconds over which the first deadlines spread")
    ap.add_argument("--sweep", type=float, default=5.0, help="beat's deadline sweep interval (SWEEP_SECONDS)")
    ap.add_argument("--played", type=int, default=20, help="due games whose every move is POSTed")
    ap.add_argument("--talk", type=float, default=20.0, help="talk messages a second to random due games")
    ap.add_argument("--pool-processes", type=int, default=1, help="the worker's pool processes (--concurrency)")
    ap.add_argument("--workers", type=int, default=1, help="worker processes (dynos or machines), each with its pool")
    ap.add_argument("--telegram-latency", type=float, default=0.1, help="seconds the stand-in takes to answer a call")
    ap.add_argument("--max-run", type=float, default=300.0, help="seconds the run lasts at most")
    ap.add_argument("--redis", default="redis://127.0.0.1:6379/10", help="a Redis database the bench may flush")
    args = ap.parse_args()
    args.due = min(args.due, args.games - 1)
    args.played = min(args.played, args.due)
    t0 = time.monotonic()
    name, url = create_database("lupus_bench_capacity")
    r = redis.Redis.from_url(args.redis)
    r.flushdb()
    started: list[procs.Proc] = []
    try:
        upgrade(url)
        template = world.template_game(url)
        db = make_engine(url)
        with db.begin() as c:
            c.execute(text("update games set deadline = now() + interval '7 days' where id = :t"), {"t": template})
        rest = args.games - args.due - 1
        world.clone(db, template, 1, rest, "now() + interval '7 days' + g * interval '1 second'")
        tg, tg_url = procs.stand_in(TOKEN, args.telegram_latency)
        started.append(tg)
        env = procs.base_env(url, args.redis, TOKEN, SECRET, tg_url, args.sweep)
        web, web_url = procs.web(env)
        started.append(web)
        wks = [procs.worker(env, args.pool_processes, f"worker{i + 1}") for i in range(args.workers)]
        started += wks
        first = rest + 1
        world.clone(
            db,
            template,
            first,
            args.due,
            f"now() + interval '3 seconds' + (g * {args.window / args.due}) * interval '1 second'",
        )
        with db.connect() as c:
            due = {
                int(g): (str(code), int(code[1:], 16))
                for g, code in c.execute(
                    text("select id, code from games where deadline < now() + interval '1 day' order by deadline")
                )
            }
        setup_s = time.monotonic() - t0
        run(args, db, url, web_url, tg_url, due, web, wks, setup_s, t0)
        db.dispose()
    finally:
        for p in reversed(started):
            p.stop()
        r.flushdb()
        drop_database(name)
    elapsed = time.monotonic() - t0
    print(
        f"elapsed              {elapsed:.0f} s, from the start to the end of the teardown "
        f"(target < 600 s: {'yes' if elapsed < 600 else 'no'})"
    )


def run(
    args: argparse.Namespace,
    db: object,
    url: str,
    web_url: str,
    tg_url: str,
    due: dict[int, tuple[str, int]],
    web: procs.Proc,
    wks: list[procs.Proc],
    setup_s: float,
    t0: float,
) -> None:
    ids = list(due)
    played = ids[:: max(1, len(ids) // max(1, args.played))][: args.played]
    beat = make_celery(args.redis, include=[])
    memory = procs.Memory(web.pid, wks[0].pid)
    ctx = mp.get_context("fork")
    stop, out = ctx.Event(), ctx.Queue()
    begin = time.time()
    player = ctx.Process(
        target=client.main, args=(url, web_url, SECRET, due, played, args.talk, 40.0, begin + args.max_run, stop, out)
    )
    player.start()
    seen: dict[tuple[int, int], datetime] = {}
    start_phase: dict[int, int] = {}
    next_sweep = next_outbox = next_remind = 0.0
    load_start = os.getloadavg()
    while time.time() < begin + args.max_run:
        now = time.time()
        if now >= next_sweep:
            beat.send_task("lupus.sweep_deadlines", expires=max(60.0, 3 * args.sweep))
            next_sweep = now + args.sweep
        if now >= next_outbox:
            beat.send_task("lupus.sweep_outbox", expires=60.0)
            next_outbox = now + 15
        if now >= next_remind:
            beat.send_task("lupus.reminders", expires=180.0)
            next_remind = now + 60
        memory.sample()
        state = world.deadlines(db, ids)  # type: ignore[arg-type]
        for g, (phase, deadline, _status) in state.items():
            start_phase.setdefault(g, phase)
            if deadline is not None:
                seen.setdefault((g, phase), deadline.astimezone(UTC))
        # Done: every due game has closed its second night (four closes) or is over.
        if all(s != "running" or p >= start_phase[g] + 4 for g, (p, _, s) in state.items()):
            break
        time.sleep(max(0.0, 1.0 - (time.time() - now)))
    end = datetime.now(UTC)
    stop.set()
    stats_client = out.get(timeout=120)
    player.join(30)
    memory.sample()
    run_s = time.time() - begin
    stats = httpx.get(f"{tg_url}/bench/stats", timeout=60).json()
    late = figures.closes(db, seen, end)  # type: ignore[arg-type]
    day = figures.game_day(db, ids)  # type: ignore[arg-type]
    day_played = figures.game_day(db, ids, set(played))  # type: ignore[arg-type]
    busy = figures.worker_busy("".join(wk.log.read_text(errors="replace") for wk in wks))
    tx = figures.texts(db, stats, begin)  # type: ignore[arg-type]
    load = f"{load_start[0]:.1f} at the start, {os.getloadavg()[0]:.1f} at the end"
    with contextlib.suppress(Exception):
        beat.close()
    figures.print_report(args, late, tx, day, day_played, busy, memory, stats_client, run_s, setup_s, load)


if __name__ == "__main__":
    main()
