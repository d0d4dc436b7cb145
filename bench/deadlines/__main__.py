"""How late phases close, and what the deadline sweep costs as games pile up.

    .venv/bin/python bench/deadlines [--active 10000] [--due 400] [--window 30] [--sweep 5] [--workers 2]
                                     [--redis redis://127.0.0.1:6379/13]

1. Lateness: `--active` running games of eight (clones of one real game started through the
   service), of which `--due` have deadlines spread over the next `--window` seconds and the rest
   days away. The real worker runs (`celery -A worker.app worker`, prefork, `--workers` processes,
   on Redis) and the bench sends it `lupus.sweep_deadlines` every `--sweep` seconds, as beat would;
   the sweep enqueues one `lupus.close_phase` per due game, which the worker processes share. A
   phase's lateness is the time from its deadline to the close (the game's `updated_at`, the close
   command's clock). Target (issue 7): p99 under the sweep interval plus 2 seconds.
2. Cost: one sweep's query when nothing is due, with 1,000 and with 100,000 running games (filler
   games carry no engine state: the query never reads it). Target: it does not grow with the games
   that are not due.
Needs PostgreSQL and Redis on localhost (a throwaway database is created and dropped; the Redis
database given is flushed).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import redis
from sqlalchemy import Engine, text

from service.app import Service
from service.db import make_engine, upgrade
from service.models import utcnow
from service.settings import Settings
from worker.celery_app import make_celery

ROOT = Path(__file__).resolve().parents[2]
ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
COLS = ("code, rules, status, setup, options, state, phase_no, deadline, paused, paused_remaining, timezone, "
        "language, seed, host_id, version, created_at, updated_at")


def template_game(svc: Service) -> int:
    say = iter(range(10**6))
    svc.handle_inbound("bench", "host", f"m{next(say)}", "new")
    for n in ("ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal"):
        svc.handle_inbound("bench", n, f"m{next(say)}", "join " + _code(svc) + " " + n)
    svc.handle_inbound("bench", "host", f"m{next(say)}", "start")
    with svc.db.connect() as c:
        return int(c.execute(text("select id from games")).scalar_one())


def _code(svc: Service) -> str:
    with svc.db.connect() as c:
        return str(c.execute(text("select code from games order by id desc limit 1")).scalar_one())


def clone(db: Engine, template: int, n: int, with_state: bool, deadline_sql: str) -> None:
    """`n` copies of the template game (and its seats), deadlines from `deadline_sql` (uses g)."""
    state = "state" if with_state else "NULL"
    cols = COLS.replace("state, ", "").replace("code, ", "").replace("deadline, ", "")
    with db.begin() as c:
        c.execute(text(f"""
            insert into games (code, state, deadline, {cols})
            select 'C' || upper(to_hex(g + (select coalesce(max(id), 0) from games) * 1000)), {state},
                   {deadline_sql}, {cols}
            from games, generate_series(1, :n) g where games.id = :t"""), {"n": n, "t": template})
        if with_state:
            c.execute(text("""
                insert into seats (game_id, identity_id, name, position, status, cohost, joined_at)
                select g.id, s.identity_id, s.name, s.position, s.status, s.cohost, s.joined_at
                from games g join seats s on s.game_id = :t
                where g.id <> :t and g.state is not null and not exists
                      (select 1 from seats x where x.game_id = g.id)"""), {"t": template})
        c.execute(text("analyze"))


class Worker:
    """The product's worker, as the Procfile runs it (without beat: the bench plays beat)."""

    def __init__(self, url: str, redis_url: str, processes: int, sweep: float) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "TWILIO_"))}
        # The worker's sweep looks as far ahead as the interval it is told beat sweeps at.
        env.update(DATABASE_URL=url, REDIS_URL=redis_url, SWEEP_SECONDS=str(sweep))
        self.log = Path(tempfile.mkstemp(prefix="lupus-bench-worker-", suffix=".log")[1])
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "worker.app", "worker", "-P", "prefork",
                 "-c", str(processes), "--without-mingle", "--without-gossip", "--without-heartbeat", "-l", "info"],
                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        end = time.monotonic() + 180
        while " ready." not in self.log.read_text(errors="replace"):
            if time.monotonic() > end or self.proc.poll() is not None:
                raise SystemExit(f"the worker did not start:\n{self.log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.2)

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)  # the pool's children too
        self.proc.wait()


def lateness(url: str, redis_url: str, active: int, due: int, window: float, sweep: float,
             processes: int) -> tuple[list[float], int]:
    db = make_engine(url)
    svc = Service(Settings(DATABASE_URL=url), db)
    template = template_game(svc)
    with db.begin() as c:
        c.execute(text("update games set deadline = now() + interval '7 days' where id = :t"), {"t": template})
    clone(db, template, active - due - 1, True, "now() + interval '7 days' + g * interval '1 second'")
    worker = Worker(url, redis_url, processes, sweep)
    beat = make_celery(redis_url, include=[])
    try:
        start = utcnow() + timedelta(seconds=2)
        clone(db, template, due, True, f"timestamp with time zone '{start.isoformat()}' + "
                                       f"(g * {window / due}) * interval '1 second'")
        with db.connect() as c:
            deadlines = {int(i): (d, int(n)) for i, d, n in c.execute(text(
                "select id, deadline, phase_no from games where deadline < now() + interval '1 day'"))}
        end = time.monotonic() + window + 2 + 4 * sweep
        closed: dict[int, float] = {}
        while time.monotonic() < end and len(closed) < len(deadlines):
            tick = time.monotonic()
            beat.send_task("lupus.sweep_deadlines", expires=max(60.0, 3 * sweep))
            while time.monotonic() - tick < sweep:
                time.sleep(0.5)
                with db.connect() as c:
                    rows = c.execute(text("select id, phase_no, updated_at from games where id = any(:ids)"),
                                     {"ids": list(deadlines)}).all()
                for gid, phase_no, updated in rows:
                    if int(phase_no) != deadlines[int(gid)][1] and int(gid) not in closed:
                        closed[int(gid)] = (updated - deadlines[int(gid)][0].astimezone(UTC)).total_seconds()
    finally:
        worker.stop()
    db.dispose()
    return list(closed.values()), len(deadlines) - len(closed)


def sweep_cost(url: str, total: int) -> tuple[float, str]:
    db = make_engine(url)
    svc = Service(Settings(DATABASE_URL=url), db)
    with db.begin() as c:
        c.execute(text("truncate outbox, inbound, game_events, seats, games, identities restart identity cascade"))
        c.execute(text(f"""insert into games ({COLS}) select 'F' || to_hex(g), 'tabula', 'running', '{{}}',
            '{{}}', NULL, 1, now() + interval '1 day' + g * interval '1 second', false, NULL, 'Europe/Rome', 'en',
            0, NULL, 0, now(), now() from generate_series(1, :n) g"""), {"n": total})
        c.execute(text("analyze games"))
    times = []
    for _ in range(50):
        t0 = time.perf_counter()
        assert svc.due_games(limit=500) == []
        times.append(time.perf_counter() - t0)
    with db.connect() as c:
        plan = c.execute(text("explain select id, phase_no from games where deadline is not null and "
                              "deadline <= now() and status = 'running' and not paused order by deadline "
                              "limit 500")).scalars().all()
    db.dispose()
    return statistics.median(times) * 1000, " / ".join(p.strip() for p in plan)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--active", type=int, default=10_000)
    ap.add_argument("--due", type=int, default=400)
    ap.add_argument("--window", type=float, default=30.0)
    ap.add_argument("--sweep", type=float, default=5.0)
    ap.add_argument("--workers", type=int, default=2, help="worker processes (prefork concurrency)")
    ap.add_argument("--redis", default="redis://127.0.0.1:6379/13", help="a Redis database the bench may flush")
    args = ap.parse_args()
    name = f"lupus_bench_deadlines_{uuid.uuid4().hex[:8]}"
    admin = make_engine(ADMIN, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'CREATE DATABASE "{name}"'))
    url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    r = redis.Redis.from_url(args.redis)
    r.flushdb()
    try:
        upgrade(url)
        found, missing = lateness(url, args.redis, args.active, args.due, args.window, args.sweep, args.workers)
        late = sorted(found)
        p = lambda q: late[min(len(late) - 1, int(q * len(late)))]  # noqa: E731
        print(f"active games         {args.active} ({args.due} due over {args.window:.0f} s), sweep every "
              f"{args.sweep:.0f} s, {args.workers} worker processes")
        if missing:
            print(f"!! {missing} due phases were not closed within the run")
        print(f"phase closed late by p50 {p(0.5):.2f} s, p99 {p(0.99):.2f} s, max {late[-1]:.2f} s "
              f"(target p99 < {args.sweep + 2:.0f} s)")
        for total in (1_000, 100_000):
            ms, plan = sweep_cost(url, total)
            print(f"sweep query, {total:>7} running games, none due: {ms:.2f} ms (median of 50)  plan: {plan}")
    finally:
        r.flushdb()
        with admin.connect() as c:
            c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


if __name__ == "__main__":
    main()
