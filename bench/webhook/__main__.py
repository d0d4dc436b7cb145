"""How many moves of a real game day the Telegram webhook takes a second, beside PostgreSQL's own
floor for the same transactions, in one run.

    .venv/bin/python bench/webhook [--seconds 10] [--rounds 3] [--web-processes 2] [--concurrency 16]
                                   [--rate 300] [--max-connections 40] [--mix talk=36,nominate=12,...]
                                   [--scripts DIR] [--profile FILE]

uvicorn serves the real app (``service.web``, settings from the environment as in production, on a
PostgreSQL database of its own built by the migrations), ``--web-processes`` processes (uvicorn's
``--workers``, which a deployment sets with ``WEB_CONCURRENCY``). The games are set up through the
application service and parked in the night, the nominations and the ballot; each request is a
valid Telegram update carrying one move of the day's mix (``mix.py``: talk relayed to the town,
nominations, ballot votes, night choices, questions and host commands), drawn in its proportions.

Each round measures two loads:

- **at most** (closed loop): ``wrk`` (C, ``post.lua`` posting prepared bodies, each once) with
  ``--concurrency`` connections, each sending when the last was answered. Its latency is the
  queue's by construction (Little's law);
- **at ``--rate`` offered** (open loop, ``load.load_rate``): each update sent when it is due,
  whatever became of the ones before, as Telegram sends them, on up to ``--max-connections``; its
  latency counts from when an update was due. The latency target is read here.

For each: moves a second, latency, and CPU a move of the web processes and of the whole of
PostgreSQL (every backend, the WAL writer, the checkpointer: ``load.tree_cpu``).

Then the floor (``floor.py``): the transactions the web processes sent during a short capture under
the closed loop, replayed by pgbench on a replica of the database, one round per round of the app;
the **ratio** is the app's moves a second at most over the floor's (median rounds). Targets (issue
21): the ratio at least 1/3 on this 2-core machine; issue 9's: at least 300 moves a second, p99
under 50 ms at 300 a second offered. Needs PostgreSQL (localhost, trust), wrk and pgbench.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))

import floor  # noqa: E402
import httpx  # noqa: E402
import mix  # noqa: E402
from load import SECRET, Result, load_average, load_rate, load_wrk, postmaster, tree_cpu  # noqa: E402

TOKEN = "123456:BENCH-token"
BODIES_PER_SECOND = 1200  # prepared for each closed-loop second: more than the app takes
CAPTURE_SECONDS = 3
PY_SPY = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or "py-spy"  # the venv's, else PATH's


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(port: int, db: str, telegram_api: str, processes: int, capture: Path) -> subprocess.Popen[bytes]:
    """uvicorn as a deployment runs it (uvloop and httptools when installed), settings from the
    environment, ``processes`` web processes on one socket."""
    env = dict(
        os.environ,
        DATABASE_URL=db,
        TELEGRAM_BOT_TOKEN=TOKEN,
        TELEGRAM_WEBHOOK_SECRET=SECRET,
        TELEGRAM_API_URL=telegram_api,
        PYTHONPATH=str(ROOT),
        BENCH_CAPTURE=str(capture),
    )
    env.pop("REDIS_URL", None)
    cmd = [
        sys.executable,
        "-m",
        "uvicorn",
        "--factory",
        "bench.webhook.server:app",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        str(processes),
        "--log-level",
        "warning",
        "--no-access-log",
    ]
    return subprocess.Popen(cmd, cwd=ROOT, env=env)


def count(db: str, sql: str) -> int:
    from sqlalchemy import text

    from service.store.db import make_engine

    eng = make_engine(db)
    with eng.connect() as c:
        n = int(c.execute(text(sql)).scalar_one())
    eng.dispose()
    return n


def outbox_keys(db: str, after: int) -> Counter[str]:
    from sqlalchemy import text

    from service.store.db import make_engine

    eng = make_engine(db)
    with eng.connect() as c:
        rows = c.execute(text("select key, count(*) from outbox where id > :a group by key"), {"a": after}).all()
    eng.dispose()
    return Counter({k: int(n) for k, n in rows})


def spread(xs: list[float]) -> str:
    return f"{statistics.median(xs):.0f} (rounds {', '.join(f'{x:.0f}' for x in xs)})"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=10, help="per load and round")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--concurrency", type=int, default=16, help="closed loop: requests in flight")
    ap.add_argument("--web-processes", type=int, default=2)
    ap.add_argument("--rate", type=float, default=300, help="open loop: updates offered a second (0: none)")
    ap.add_argument("--max-connections", type=int, default=40, help="open loop: connections at most")
    ap.add_argument("--mix", help="moves of a game day, e.g. talk=36,nominate=12,ballot=14,night=6,command=6")
    ap.add_argument(
        "--scripts", metavar="DIR", help="keep the floor's pgbench scripts (and the captured statements) in DIR"
    )
    ap.add_argument(
        "--profile",
        metavar="FILE",
        help="py-spy's raw profile of the web processes' "
        "threads holding the GIL (their CPU) during the first closed loop, to FILE (needs py-spy)",
    )
    args = ap.parse_args()
    for tool in ("wrk", "pgbench"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} not found: apt-get install {tool if tool == 'wrk' else 'postgresql-contrib'}")
    day = mix.parse_mix(args.mix)

    from bench.scratch import create_database, drop_database
    from service.sandbox.fake_telegram import FakeTelegram
    from service.sandbox.server import ServerThread
    from service.store.db import make_engine, upgrade

    started = time.perf_counter()
    name, db = create_database(f"lupus_bench_webhook_{os.getpid()}")
    work = Path(args.scripts) if args.scripts else Path(tempfile.mkdtemp(prefix="bench-webhook-"))
    work.mkdir(parents=True, exist_ok=True)
    capture = work / "capture"
    capture.mkdir()
    server = None
    closed: list[Result] = []
    offered: list[Result] = []
    floors: list[floor.Floor] = []
    loads = [load_average()]
    pg = postmaster()
    try:
        upgrade(db)
        # Enough games that no nomination repeats: each player nominates once.
        bodies = int(args.seconds * (BODIES_PER_SECOND + args.rate)) * args.rounds + int(
            (1 + CAPTURE_SECONDS) * BODIES_PER_SECOND
        )
        share = day["nominate"] / sum(day.values())
        tables = mix.pools(db, night=40, nominations=int(bodies * share * 1.1 / 12) + 10, ballot=60)
        moves = mix.Moves(tables, day)
        fake = FakeTelegram(TOKEN)
        with ServerThread(fake.app) as tg_url:
            port = free_port()
            server = start_server(port, db, tg_url + "/bot", args.web_processes, capture)
            url = f"http://127.0.0.1:{port}"
            for _ in range(100):
                try:
                    httpx.get(url + "/healthz", timeout=1)
                    break
                except httpx.TransportError:
                    time.sleep(0.2)
            path = "/telegram/webhook"
            load_wrk(url, path, moves.bodies(BODIES_PER_SECOND), args.concurrency, 1)  # warm both processes
            (capture / "on").touch()
            load_wrk(url, path, moves.bodies(CAPTURE_SECONDS * BODIES_PER_SECOND), args.concurrency, CAPTURE_SECONDS)
            (capture / "on").unlink()
            logged, outbox_before = count(db, "select count(*) from inbound"), count(db, "select max(id) from outbox")
            drawn_before = dict(moves.drawn)

            def measured(rate: float, profile: str | None = None) -> Result:
                web = server.pid  # type: ignore[union-attr]
                n = int(args.seconds * (rate or BODIES_PER_SECOND))
                batch = moves.bodies(n)
                spy = None
                if profile:
                    spy = subprocess.Popen(
                        [
                            PY_SPY,
                            "record",
                            "--nonblocking",
                            "--gil",
                            "-r",
                            "200",
                            "-f",
                            "raw",
                            "-o",
                            profile,
                            "-d",
                            str(int(args.seconds)),
                            "-p",
                            str(web),
                            "--subprocesses",
                        ],
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                    )
                gc.collect()
                gc.freeze()  # the prepared bodies: the client's own collections would walk them
                c0 = tree_cpu(web), tree_cpu(pg)
                r = (
                    asyncio.run(load_rate(url, path, batch, rate, args.seconds, args.max_connections))
                    if rate
                    else load_wrk(url, path, batch, args.concurrency, args.seconds)
                )
                r.web_cpu, r.db_cpu = tree_cpu(web) - c0[0], tree_cpu(pg) - c0[1]
                if spy is not None:
                    spy.wait(30)
                loads.append(load_average())
                return r

            for i in range(args.rounds):
                closed.append(measured(0, args.profile if i == 0 else None))
                if args.rate:
                    offered.append(measured(args.rate))
            acted = count(db, "select count(*) from inbound") - logged
            keys = outbox_keys(db, outbox_before)
            drawn = {k: v - drawn_before[k] for k, v in moves.drawn.items()}
        server.terminate()
        server.wait(10)
        server = None
        # The floor: the captured transactions on a replica, one pgbench round per round of the app.
        captured = floor.transactions(capture)
        replica_of = make_engine(db)
        unique = floor.unique_columns(replica_of)
        replica_of.dispose()  # a database is copied only while nobody else is connected to it
        dealt = floor.buckets(captured, args.concurrency)
        floor.write_scripts(dealt, unique, work / "scripts")
        per_tx = sum(t.moves for b in dealt for t in b) / sum(map(len, dealt))
        for i in range(args.rounds):
            replica, replica_url = create_database(f"{name}_r{i}", template=name)
            try:
                ready = make_engine(replica_url)
                floor.prepare(ready)
                ready.dispose()
                c0 = tree_cpu(pg)
                f = floor.pgbench(replica, dealt, work / "scripts", args.seconds)
                f.pg_cpu = tree_cpu(pg) - c0
                floors.append(f)
                loads.append(load_average())
            finally:
                drop_database(replica)
    finally:
        if server is not None:
            server.terminate()
            server.wait(10)
        drop_database(name)
        if not args.scripts:
            shutil.rmtree(work, ignore_errors=True)
    report(args, tables, closed, offered, floors, captured, dealt, per_tx, acted, keys, drawn, loads, started)


def report(
    args: argparse.Namespace,
    tables: dict[str, list[mix.Table]],
    closed: list[Result],
    offered: list[Result],
    floors: list[floor.Floor],
    captured: list[floor.Captured],
    dealt: list[list[floor.Captured]],
    per_tx: float,
    acted: int,
    keys: Counter[str],
    drawn: dict[str, int],
    loads: list[str],
    started: float,
) -> None:
    answered = sum(r.requests for r in closed + offered)
    pools = ", ".join(f"{len(v)} in {k}" for k, v in tables.items())
    print(
        f"webhook: {sum(map(len, tables.values()))} games of 12 ({pools}); "
        f"{args.web_processes} uvicorn process(es), PostgreSQL; {args.rounds} rounds of {args.seconds:.0f} s; "
        f"load average {' -> '.join(loads)}"
    )
    total = sum(drawn.values())
    print("the day's mix, as played: " + ", ".join(f"{k} {v} ({v / max(total, 1):.0%})" for k, v in drawn.items()))
    print(
        f"{acted} moves in the inbound log for {answered} requests answered; {sum(keys.values())} outbox rows "
        f"({sum(keys.values()) / max(acted, 1):.1f} a move); most written: "
        + ", ".join(f"{k} {n}" for k, n in keys.most_common(6))
    )
    for i, r in enumerate(closed):
        print(
            f"round {i + 1}: at most ({args.concurrency} in flight) {r.rate:5.0f} moves/s, p50 {r.p50:5.1f} ms, p99 "
            f"{r.p99:5.1f} ms ({r.requests} answered, {r.bad} not 2xx, {r.errors} errors); CPU a move "
            f"{r.web_cpu / r.requests * 1000:.2f} ms web + {r.db_cpu / r.requests * 1000:.2f} ms PostgreSQL"
        )
        if i < len(offered):
            o = offered[i]
            print(
                f"round {i + 1}: at {args.rate:.0f}/s offered   {o.rate:5.0f} moves/s, p50 {o.p50:5.1f} ms, p99 "
                f"{o.p99:5.1f} ms, max {o.max:.0f} ms ({o.requests} answered, {o.late} sent late, {o.bad} not 2xx, "
                f"{o.errors} errors); CPU a move {o.web_cpu / max(o.requests, 1) * 1000:.2f} ms web + "
                f"{o.db_cpu / max(o.requests, 1) * 1000:.2f} ms PostgreSQL"
            )
        if i < len(floors):
            f = floors[i]
            print(
                f"round {i + 1}: floor (pgbench, {len(dealt)} clients) {f.tps:5.0f} transactions/s = "
                f"{f.moves:5.0f} moves/s; CPU a move {f.pg_cpu / (f.moves * f.seconds) * 1000:.2f} ms PostgreSQL + "
                f"{f.client_cpu / (f.moves * f.seconds) * 1000:.2f} ms pgbench"
            )
    app = [r.rate for r in closed]
    print(f"moves a second at most: {spread(app)} (target >= 300)")
    if offered:
        print(
            f"latency at {args.rate:.0f} moves/s offered: p99 {spread([o.p99 for o in offered])} ms (target < 50); "
            f"{sum(o.late for o in offered)} sent late"
        )
    if floors:
        floor_moves = [f.moves for f in floors]
        ratio = statistics.median(app) / statistics.median(floor_moves)
        print(
            f"floor: {spread(floor_moves)} moves/s, from {len(captured)} captured transactions "
            f"({sum(map(len, dealt))} replayed by {len(dealt)} clients sharing no game, {per_tx:.2f} moves each)"
        )
        print(
            f"ratio: {ratio:.2f} of PostgreSQL's floor (target >= 0.33); rounds "
            + ", ".join(f"{a / f:.2f}" for a, f in zip(app, floor_moves, strict=False))
        )
    print(f"bench took {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
