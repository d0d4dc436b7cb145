"""How late phases close, with a worker killed mid-close, and what the deadline sweep costs.

    .venv/bin/python bench/deadlines [--active 10000] [--due 400] [--window 30] [--sweep 5] [--workers 2]
                                     [--close-retry SECONDS] [--no-kill] [--redis redis://127.0.0.1:6379/13]

1. Lateness: `--active` running games of eight (clones of one real game started through the
   service), of which `--due` have deadlines spread over the next `--window` seconds and the rest
   days away. The real worker runs (`celery -A target worker`: `worker.app` plus a mark at every
   close, prefork, `--workers` processes, on Redis) and the bench sends it `lupus.sweep_deadlines`
   every `--sweep` seconds, as beat would; the sweep enqueues one `lupus.close_phase` per game due
   before the next sweep (with a countdown to its deadline), which the worker processes share. A
   phase's lateness is the time from its deadline to the commit of the close's texts (the newest
   `created_at` of the outbox rows it wrote, made inside its transaction just before the commit):
   when readers could first be told. Target (issue 7): p99 under the sweep interval plus 2 seconds.
   Unless `--no-kill`, the close of the game due a third of the way through the window is held
   inside its transaction, and the worker (main process and pool) is killed with SIGKILL there, as
   a machine loses a process, and started again. Every close the sweep had handed to that worker is
   lost with it (the one in progress and those waiting in its memory for their deadlines: Redis
   gives an unacknowledged task back only after its visibility timeout, an hour); the new worker
   drops the sweep's marks as it starts (`worker.app`), so the next sweep hands them out again.
   Those closes are reported apart.
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
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import redis
from sqlalchemy import Engine, text

from bench.scratch import create_database, drop_database
from service.game.app import Service
from service.settings import Settings
from service.store.db import make_engine, upgrade
from service.store.models import utcnow
from worker.celery_app import make_celery
from worker.marks import RedisMarks
from worker.tasks import SWEEP_MARGIN

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
MARKS = RedisMarks.PREFIX
COLS = (
    "code, rules, status, setup, options, state, phase_no, deadline, paused, paused_remaining, timezone, "
    "language, seed, host_id, version, created_at, updated_at"
)


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
        c.execute(
            text(f"""
            insert into games (code, state, deadline, {cols})
            select 'C' || upper(to_hex(g + (select coalesce(max(id), 0) from games) * 1000)), {state},
                   {deadline_sql}, {cols}
            from games, generate_series(1, :n) g where games.id = :t"""),
            {"n": n, "t": template},
        )
        if with_state:
            c.execute(
                text("""
                insert into seats (game_id, identity_id, name, position, status, cohost, joined_at)
                select g.id, s.identity_id, s.name, s.position, s.status, s.cohost, s.joined_at
                from games g join seats s on s.game_id = :t
                where g.id <> :t and g.state is not null and not exists
                      (select 1 from seats x where x.game_id = g.id)"""),
                {"t": template},
            )
        c.execute(text("analyze"))


class Worker:
    """The product's worker, as the Procfile runs it (without beat: the bench plays beat), through
    `target.py`: the same app, with a mark at every close and a pause in the armed one."""

    def __init__(self, url: str, redis_url: str, processes: int, sweep: float, extra: dict[str, str]) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "TWILIO_"))}
        # The worker's sweep looks as far ahead as the interval it is told beat sweeps at.
        env.update(
            DATABASE_URL=url,
            REDIS_URL=redis_url,
            SWEEP_SECONDS=str(sweep),
            PYTHONPATH=os.pathsep.join([str(HERE), str(ROOT)]),
            **extra,
        )
        self.log = Path(tempfile.mkstemp(prefix="lupus-bench-worker-", suffix=".log")[1])
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "target",
                    "worker",
                    "-P",
                    "prefork",
                    "-c",
                    str(processes),
                    "--without-mingle",
                    "--without-gossip",
                    "--without-heartbeat",
                    "-l",
                    "info",
                ],
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        end = time.monotonic() + 180
        while " ready." not in self.log.read_text(errors="replace"):
            if time.monotonic() > end or self.proc.poll() is not None:
                raise SystemExit(f"the worker did not start:\n{self.log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.2)

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)  # the pool's children too
        self.proc.wait()


@dataclass
class Run:
    late: dict[int, float]  # due game -> seconds from its deadline to its close's texts
    missing: int
    killed_at: datetime | None  # when the worker was killed, mid-close
    killed_game: int | None
    interrupted: list[int]  # games whose close the sweep had handed to the killed worker, not yet closed


def closes(db: Engine, ids: list[int]) -> dict[int, datetime]:
    """When each game's close wrote its texts: the newest created_at of its outbox rows (set as each
    row is made, inside the close's transaction, just before its commit; a close killed before its
    commit left none). The clones have no rows of their own until their phase closes."""
    with db.connect() as c:
        return {
            int(g): at
            for g, at in c.execute(
                text("select game_id, max(created_at) from outbox where game_id = any(:ids) group by game_id"),
                {"ids": ids},
            )
        }


def lateness(
    url: str,
    redis_url: str,
    active: int,
    due: int,
    window: float,
    sweep: float,
    processes: int,
    close_retry: float | None,
    kill: bool,
) -> Run:
    db = make_engine(url)
    svc = Service(Settings(DATABASE_URL=url), db)
    template = template_game(svc)
    with db.begin() as c:
        c.execute(text("update games set deadline = now() + interval '7 days' where id = :t"), {"t": template})
    clone(db, template, active - due - 1, True, "now() + interval '7 days' + g * interval '1 second'")
    tmp = Path(tempfile.mkdtemp(prefix="lupus-bench-deadlines-"))
    marks, arm = tmp / "marks", tmp / "arm"
    marks.touch()
    extra = {"LUPUS_BENCH_CLOSE_MARKS": str(marks), "LUPUS_BENCH_CLOSE_ARM": str(arm)}
    if close_retry is not None:
        extra["CLOSE_RETRY_SECONDS"] = str(close_retry)
    worker = Worker(url, redis_url, processes, sweep, extra)
    beat = make_celery(redis_url, include=[])
    ahead = sweep + SWEEP_MARGIN
    killed_at: datetime | None = None
    interrupted: list[int] = []
    marks_db = redis.Redis.from_url(redis_url)
    try:
        start = utcnow() + timedelta(seconds=2)
        clone(
            db,
            template,
            due,
            True,
            f"timestamp with time zone '{start.isoformat()}' + (g * {window / due}) * interval '1 second'",
        )
        with db.connect() as c:
            deadlines = {
                int(i): d.astimezone(UTC)
                for i, d in c.execute(
                    text("select id, deadline from games where deadline < now() + interval '1 day' order by deadline")
                )
            }
        # The kill lands in the close of the game due a third of the way through the window.
        victim = list(deadlines)[len(deadlines) // 3] if kill else None
        if victim is not None:
            arm.write_text(str(victim))
        retry = close_retry if close_retry is not None else Settings().CLOSE_RETRY_SECONDS
        end = time.monotonic() + window + 2 + 4 * sweep + (retry + ahead + 2 * sweep + 30 if kill else 0)
        closed: dict[int, datetime] = {}
        while time.monotonic() < end and len(closed) < len(deadlines):
            tick = time.monotonic()
            beat.send_task("lupus.sweep_deadlines", expires=max(60.0, 3 * sweep))
            while time.monotonic() - tick < sweep:
                time.sleep(0.2)
                if victim is not None and killed_at is None and f"close {victim} " in marks.read_text():
                    worker.stop()  # SIGKILL, mid-close: the armed close waits inside its transaction
                    killed_at = utcnow()
                    arm.unlink()
                    # What the sweep had handed out by then (its marks: `worker.marks`), and not closed.
                    handed = {int(k.split(b":")[3]) for k in marks_db.scan_iter(match=MARKS + "close:*")}
                    done = closes(db, list(deadlines))
                    interrupted = sorted(g for g in handed if g in deadlines and g not in done)
                    worker = Worker(url, redis_url, processes, sweep, extra)
                closed = closes(db, list(deadlines))
    finally:
        worker.stop()
    closed = closes(db, list(deadlines))
    db.dispose()
    return Run(
        {g: (closed[g] - deadlines[g]).total_seconds() for g in closed},
        len(deadlines) - len(closed),
        killed_at,
        victim,
        interrupted,
    )


def sweep_cost(url: str, total: int) -> tuple[float, str]:
    db = make_engine(url)
    svc = Service(Settings(DATABASE_URL=url), db)
    with db.begin() as c:
        c.execute(text("truncate outbox, inbound, game_events, seats, games, identities restart identity cascade"))
        c.execute(
            text(f"""insert into games ({COLS}) select 'F' || to_hex(g), 'tabula', 'running', '{{}}',
            '{{}}', NULL, 1, now() + interval '1 day' + g * interval '1 second', false, NULL, 'Europe/Rome', 'en',
            0, NULL, 0, now(), now() from generate_series(1, :n) g"""),
            {"n": total},
        )
        c.execute(text("analyze games"))
    times = []
    for _ in range(50):
        t0 = time.perf_counter()
        assert svc.due_games(limit=500) == []
        times.append(time.perf_counter() - t0)
    with db.connect() as c:
        plan = (
            c.execute(
                text(
                    "explain select id, phase_no from games where deadline is not null and "
                    "deadline <= now() and status = 'running' and not paused order by deadline "
                    "limit 500"
                )
            )
            .scalars()
            .all()
        )
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
    ap.add_argument(
        "--close-retry",
        type=float,
        default=None,
        help="CLOSE_RETRY_SECONDS for the worker (default: the setting's default)",
    )
    ap.add_argument("--no-kill", action="store_true", help="no worker is killed")
    args = ap.parse_args()
    name, url = create_database("lupus_bench_deadlines")
    r = redis.Redis.from_url(args.redis)
    r.flushdb()
    try:
        upgrade(url)
        run = lateness(
            url,
            args.redis,
            args.active,
            args.due,
            args.window,
            args.sweep,
            args.workers,
            args.close_retry,
            not args.no_kill,
        )
        late = sorted(run.late.values())
        p = lambda xs, q: xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")  # noqa: E731
        retry = args.close_retry if args.close_retry is not None else Settings().CLOSE_RETRY_SECONDS
        print(
            f"active games         {args.active} ({args.due} due over {args.window:.0f} s), sweep every "
            f"{args.sweep:.0f} s, {args.workers} worker processes, CLOSE_RETRY_SECONDS {retry:g}"
        )
        if run.killed_at is not None:
            print(
                f"worker killed        SIGKILL to the worker and its pool inside the close of game "
                f"{run.killed_game} (holding its lock), then started again"
            )
        if run.missing:
            print(f"!! {run.missing} due phases were not closed within the run")
        print(
            f"phase closed late by p50 {p(late, 0.5):.2f} s, p99 {p(late, 0.99):.2f} s, max {late[-1]:.2f} s "
            f"(deadline to the commit of the close's texts; target p99 < {args.sweep + 2:.0f} s)"
        )
        if run.killed_at is not None:
            hit = sorted(run.late[g] for g in run.interrupted if g in run.late)
            others = sorted(v for g, v in run.late.items() if g not in run.interrupted)
            print(
                f"  closes the kill interrupted: {len(run.interrupted)} (the one in progress and those the sweep "
                f"had handed to the killed worker, waiting for their deadlines), late by "
                f"min {hit[0] if hit else float('nan'):.2f} s, p50 {p(hit, 0.5):.2f} s, max "
                f"{hit[-1] if hit else float('nan'):.2f} s; the one in progress "
                f"{run.late.get(run.killed_game or 0, float('nan')):.2f} s"
            )
            print(
                f"  the other {len(others)} closes: p50 {p(others, 0.5):.2f} s, p99 {p(others, 0.99):.2f} s, "
                f"max {others[-1] if others else float('nan'):.2f} s"
            )
        for total in (1_000, 100_000):
            ms, plan = sweep_cost(url, total)
            print(f"sweep query, {total:>7} running games, none due: {ms:.2f} ms (median of 50)  plan: {plan}")
    finally:
        r.flushdb()
        drop_database(name)


if __name__ == "__main__":
    main()
