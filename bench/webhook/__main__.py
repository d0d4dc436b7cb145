"""How many game actions a second the Telegram webhook takes, and how fast it answers.

    .venv/bin/python bench/webhook [--seconds 10] [--concurrency 16] [--games 40] [--web-processes 1]
                                   [--client wrk|httpx] [--rounds 1] [--rate 300] [--max-connections 40]
                                   [--profile FILE]

uvicorn serves the real app (``service.web``, settings from the environment as in production, on a
PostgreSQL database of its own) with a bare FastAPI endpoint added beside it (``POST /bare``,
answering ``{}``; ``bench/webhook/server.py``), so the ratio compares like with like on the same
server, with the same number of web processes (``--web-processes``, uvicorn's ``--workers``, which
a deployment sets with ``WEB_CONCURRENCY``).

The load: ``wrk`` (Debian's package; C, with ``bench/webhook/post.lua`` posting prepared bodies, each
once) with ``--concurrency`` connections, each with one request in flight, for ``--seconds`` per
endpoint, the bare endpoint first. wrk takes a few per cent of a core where a Python client took
half of the two: ``--client httpx`` is the earlier asyncio httpx client, for comparison. Each webhook
request is a valid Telegram update carrying a game action that changes the game: a secret ballot
vote (a voter may change it until the ballot closes), in one of ``--games`` games of 12 players set
up through the webhook itself. After the run the inbound log is counted: every 2xx is one action.

Two loads, two questions. The closed loop above (16 in flight, each sent when the last answered)
asks how many actions a second the webhook takes at most; its latency is then the queue's by
construction (Little's law: 16 in flight at 300 a second is a mean of 53 ms). Telegram does not
wait for an answer before it sends the next player's update: it sends updates as players write
them, on up to 40 connections (``setWebhook``'s ``max_connections``). So the latency target is
measured the second way, open loop (``load_rate``): ``--rate`` updates a second, each due at its
time whatever became of the ones before, latency counted from when it was due (a server that falls
behind is charged for it), for ``--seconds``.

Targets (issue 9): at least 300 actions a second on this 2-core machine, p99 under 50 ms (at those
300 a second, offered), and at least a third of the bare endpoint's throughput.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

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


# -- the server --------------------------------------------------------------------------------------
def start_server(port: int, db: str, telegram_api: str, processes: int) -> subprocess.Popen[bytes]:
    """uvicorn as a deployment runs it (uvloop and httptools when installed), settings from the
    environment, ``processes`` web processes on one socket."""
    env = dict(os.environ, DATABASE_URL=db, TELEGRAM_BOT_TOKEN=TOKEN, TELEGRAM_WEBHOOK_SECRET=SECRET,
               TELEGRAM_API_URL=telegram_api, PYTHONPATH=str(ROOT))
    env.pop("REDIS_URL", None)
    cmd = [sys.executable, "-m", "uvicorn", "--factory", "bench.webhook.server:app", "--host", "127.0.0.1",
           "--port", str(port), "--workers", str(processes), "--log-level", "warning", "--no-access-log"]
    return subprocess.Popen(cmd, cwd=ROOT, env=env)


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
    from service.game.app import Service
    from service.settings import Settings
    from service.store.db import make_engine
    from service.store.models import Game

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


async def load_httpx(url: str, path: str, bodies: list[bytes], concurrency: int) -> Result:
    """Send every body once, `concurrency` at a time, with httpx (the bench's first client)."""
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
        secs = time.perf_counter() - t0
    return Result(len(bodies), secs, pct(latencies, 50), pct(latencies, 99), bad, 0)


def load_wrk(url: str, path: str, bodies: list[bytes], concurrency: int, seconds: float) -> Result:
    """wrk with post.lua: `concurrency` connections for `seconds`, each body sent at most once."""
    threads = 2 if concurrency >= 2 else 1
    with tempfile.NamedTemporaryFile("wb", suffix=".jsonl", delete=False) as f:
        f.write(b"\n".join(bodies) + b"\n")
    try:
        secs = f"{max(1, round(seconds))}s"
        out = subprocess.run(["wrk", "-t", str(threads), "-c", str(concurrency), "-d", secs,
                              "--timeout", "30s", "-s", str(Path(__file__).with_name("post.lua")), url + path,
                              "--", f.name, str(threads), SECRET], capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    if out.returncode != 0 or "WRK " not in out.stdout:
        raise SystemExit(f"wrk failed: {out.stdout}{out.stderr}")
    line = next(x for x in out.stdout.splitlines() if x.startswith("WRK "))
    v = dict(kv.split("=") for kv in line.split()[1:])
    if v["ran_out"] == "true":
        raise SystemExit(f"wrk ran out of bodies ({len(bodies)}): raise the count or lower --seconds")
    return Result(int(v["requests"]), float(v["seconds"]), int(v["p50"]) / 1000, int(v["p99"]) / 1000,
                  int(v["non2xx"]), int(v["errors"]))


async def load_rate(url: str, path: str, bodies: list[bytes], rate: float, seconds: float,
                    max_connections: int) -> Result:
    """Open loop: update k is due at ``k / rate`` seconds from the start, whatever became of the ones
    before, as Telegram sends updates when players write them and not when the last answer came
    (up to ``max_connections`` at once, its setWebhook default being 40). Latency counts from when
    an update was due, so a server that falls behind is charged the wait (no coordinated omission).
    Plain asyncio streams with keep-alive: a few per cent of a core at these rates."""
    host, port = url.removeprefix("http://").split(":")
    head = (f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"X-Telegram-Bot-Api-Secret-Token: {SECRET}\r\n").encode()
    idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
    slots = asyncio.Semaphore(max_connections)
    latencies: list[float] = []
    late = bad = errors = 0

    async def exchange(conn: tuple[asyncio.StreamReader, asyncio.StreamWriter], body: bytes) -> bytes:
        reader, writer = conn
        writer.write(head + b"Content-Length: %d\r\n\r\n" % len(body) + body)
        status_and_headers = await reader.readuntil(b"\r\n\r\n")
        length = next(int(h.split(b":")[1]) for h in status_and_headers.lower().split(b"\r\n")
                      if h.startswith(b"content-length:"))
        await reader.readexactly(length)
        return status_and_headers

    async def send(body: bytes, due: float) -> None:
        nonlocal late, bad, errors
        async with slots:
            if time.perf_counter() - due > 0.005:
                late += 1
            # A kept-alive connection the server closed while idle (uvicorn's keep-alive timeout is
            # 5 s) fails at once: sent again on a new one, as any HTTP client (and Telegram) would.
            for attempt in (idle.pop() if idle else None, None):
                conn = attempt or await asyncio.open_connection(host, int(port))
                try:
                    status = await exchange(conn, body)
                    break
                except (OSError, asyncio.IncompleteReadError, StopIteration):
                    conn[1].close()
                    if attempt is None:
                        errors += 1
                        return
            latencies.append(time.perf_counter() - due)
            bad += not status.startswith((b"HTTP/1.1 2", b"HTTP/1.0 2"))
            idle.append(conn)

    n = min(len(bodies), int(rate * seconds))
    tasks = []
    t0 = time.perf_counter()
    for k in range(n):
        due = t0 + k / rate
        wait = due - time.perf_counter()
        if wait > 0:
            await asyncio.sleep(wait)
        tasks.append(asyncio.create_task(send(bodies[k], due)))
    await asyncio.gather(*tasks)
    secs = time.perf_counter() - t0
    for _, writer in idle:
        writer.close()
    r = Result(len(latencies), secs, pct(latencies, 50), pct(latencies, 99), bad, errors)
    r.late, r.max = late, max(latencies, default=0) * 1000
    return r


@dataclass
class Result:
    requests: int
    seconds: float
    p50: float
    p99: float
    bad: int
    errors: int

    web_cpu: float = 0.0
    """CPU seconds the web processes used in the round."""
    db_cpu: float = 0.0
    """CPU seconds the PostgreSQL backends of the bench's database used in the round (those alive
    at its end: a backend that ended meanwhile is not counted)."""
    sessions: int = 0
    """Connections opened to the database in the round."""
    late: int = 0
    """Open loop (``--rate``): updates sent more than 5 ms after they were due (the client fell
    behind, or all ``max_connections`` were waiting for answers)."""
    max: float = 0.0

    @property
    def rate(self) -> float:
        return self.requests / self.seconds


def pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(p / 100 * len(s)))] * 1000


def load(client: str, url: str, path: str, bodies: list[bytes], concurrency: int, seconds: float) -> Result:
    if client == "httpx":
        return asyncio.run(load_httpx(url, path, bodies, concurrency))
    return load_wrk(url, path, bodies, concurrency, seconds)


def actions_logged(db: str) -> int:
    from sqlalchemy import func, select

    from service.store.db import make_engine
    from service.store.models import Inbound

    eng = make_engine(db)
    with eng.connect() as c:
        n = int(c.execute(select(func.count()).select_from(Inbound)).scalar_one())
    eng.dispose()
    return n


def cpu_seconds(pids: list[int]) -> dict[int, float]:
    """User and system CPU seconds each process used so far (Linux /proc); gone ones left out."""
    out = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[pid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return out


def cpu_used(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU seconds used between two readings by the processes alive at the second one."""
    return sum(v - before.get(pid, 0.0) for pid, v in after.items())


def server_pids(root: int) -> list[int]:
    """The uvicorn process and its children (the web processes)."""
    out = [root]
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == root:
                out.append(int(stat.parent.name))
        except (OSError, ValueError):
            continue
    return out


def backend_pids(admin: Any, name: str) -> tuple[list[int], int]:
    """The PostgreSQL backends serving the bench's database, and how many sessions it has had."""
    from sqlalchemy import text

    with admin.connect() as c:
        pids = [int(r[0]) for r in c.execute(text("select pid from pg_stat_activity where datname = :n"), {"n": name})]
        sessions = c.execute(text("select sessions from pg_stat_database where datname = :n"), {"n": name}).scalar()
    return pids, int(sessions or 0)


def uptime_load() -> str:
    return Path("/proc/loadavg").read_text().split()[0]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=10, help="per endpoint and round (wrk)")
    ap.add_argument("--requests", type=int, default=3000, help="per endpoint and round (httpx)")
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--web-processes", type=int, default=1)
    ap.add_argument("--client", choices=("wrk", "httpx"), default="wrk")
    ap.add_argument("--rounds", type=int, default=1, help="bare, webhook, bare, webhook...")
    ap.add_argument("--rate", type=float, default=300, help="then updates offered at this rate (open loop; "
                    "0: none), for the latency at the target rate")
    ap.add_argument("--max-connections", type=int, default=40, help="open loop: connections at most")
    ap.add_argument("--profile", metavar="FILE", help="py-spy's raw profile of the web process(es) during "
                    "the webhook's load, to FILE (needs py-spy; it takes some CPU itself)")
    args = ap.parse_args()
    if args.client == "wrk" and shutil.which("wrk") is None:
        raise SystemExit("wrk not found: apt-get install wrk (or --client httpx)")

    from sqlalchemy import text

    from service.sandbox.fake_telegram import FakeTelegram
    from service.sandbox.server import ServerThread
    from service.store.db import make_engine, upgrade

    name = f"lupus_bench_webhook_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    admin = make_engine(ADMIN, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'CREATE DATABASE "{name}"'))
    db = f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    server = None
    bare: list[Result] = []
    hook: list[Result] = []
    offered: list[Result] = []
    loads: list[str] = [uptime_load()]
    try:
        upgrade(db)
        fake = FakeTelegram(TOKEN)
        with ServerThread(fake.app) as tg_url:
            port = free_port()
            server = start_server(port, db, tg_url + "/bot", args.web_processes)
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
            logged = actions_logged(db)
            rnd = random.Random(300)
            per_round = args.requests if args.client == "httpx" else int(args.seconds * 1500)

            def votes(n: int) -> list[bytes]:
                out = []
                for _ in range(n):
                    code, voters, suspects = rnd.choice(games)
                    out.append(updates.text(rnd.choice(voters), "x", f"#{code} vote {rnd.choice(suspects)}"))
                return out

            bare_body = [b"{}"] * (args.requests if args.client == "httpx" else int(args.seconds * 60_000))
            warm_n = 300 if args.client == "httpx" else None  # warm both paths: 300 requests, or a second
            load(args.client, url, "/bare", bare_body[:warm_n], args.concurrency, 1)
            load(args.client, url, "/telegram/webhook", votes(warm_n or 1500), args.concurrency, 1)
            warm = actions_logged(db) - logged
            def measured(path: str, bodies: list[bytes], rate: float = 0) -> Result:
                web, (pg, sessions) = server_pids(server.pid), backend_pids(admin, name)
                spy = None
                if args.profile and path != "/bare":
                    spy = subprocess.Popen(["py-spy", "record", "--nonblocking", "-r", "200", "-f", "raw", "-o",
                                            args.profile, "-d", str(int(args.seconds)), "-p", str(web[-1])],
                                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                # The client's own full collections walked the hundreds of thousands of prepared
                # bodies for 90 ms, late reads it then charged to the server: what exists is frozen.
                gc.collect()
                gc.freeze()
                c0 = cpu_seconds(web), cpu_seconds(pg)
                r = (asyncio.run(load_rate(url, path, bodies, rate, args.seconds, args.max_connections)) if rate
                     else load(args.client, url, path, bodies, args.concurrency, args.seconds))
                if spy is not None:
                    spy.wait(30)
                pg_after, sessions_after = backend_pids(admin, name)
                r.web_cpu, r.db_cpu = cpu_used(c0[0], cpu_seconds(web)), cpu_used(c0[1], cpu_seconds(pg_after))
                r.sessions = sessions_after - sessions
                loads.append(uptime_load())
                return r

            for _ in range(args.rounds):
                bare.append(measured("/bare", bare_body))
                hook.append(measured("/telegram/webhook", votes(per_round)))
                if args.rate:
                    offered.append(measured("/telegram/webhook", votes(int(args.rate * args.seconds)), args.rate))
            acted = actions_logged(db) - logged - warm
    finally:
        if server is not None:
            server.terminate()
            server.wait(10)
        with admin.connect() as c:
            c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
    print(f"webhook: {len(games)} games of 12 in the ballot; client {args.client}, {args.concurrency} in flight, "
          f"{args.web_processes} uvicorn process(es), PostgreSQL; load average {' -> '.join(loads)}")
    for i, (b, w) in enumerate(zip(bare, hook, strict=True)):
        print(f"round {i + 1}: bare endpoint    {b.rate:7.0f} requests/s, p50 {b.p50:6.1f} ms, p99 {b.p99:6.1f} ms "
              f"({b.requests} requests, {b.bad} not 2xx, {b.errors} errors)")
        print(f"round {i + 1}: telegram webhook {w.rate:7.0f} actions/s,  p50 {w.p50:6.1f} ms, p99 {w.p99:6.1f} ms "
              f"({w.requests} requests, {w.bad} not 2xx, {w.errors} errors); ratio {w.rate / b.rate:.2f}")
        print(f"round {i + 1}: CPU per request: bare {b.web_cpu / b.requests * 1000:.2f} ms web; webhook "
              f"{w.web_cpu / w.requests * 1000:.2f} ms web + {w.db_cpu / w.requests * 1000:.2f} ms PostgreSQL; "
              f"{w.sessions} connections opened")
    for i, o in enumerate(offered):
        web_ms, db_ms = (x / max(o.requests, 1) * 1000 for x in (o.web_cpu, o.db_cpu))
        print(f"round {i + 1}: webhook at {args.rate:.0f}/s offered {o.rate:7.0f} actions/s,  p50 {o.p50:6.1f} ms, "
              f"p99 {o.p99:6.1f} ms, max {o.max:.1f} ms ({o.requests} answered, {o.late} sent late, {o.bad} not 2xx, "
              f"{o.errors} errors; up to {args.max_connections} connections); CPU {web_ms:.2f} ms web + "
              f"{db_ms:.2f} ms PostgreSQL an action")
    rate_b = sum(b.requests for b in bare) / sum(b.seconds for b in bare)
    rate_w = sum(w.requests for w in hook) / sum(w.seconds for w in hook)
    answered = sum(w.requests for w in hook) + sum(o.requests for o in offered)
    print(f"telegram webhook: {rate_w:.0f} actions/s at {args.concurrency} in flight (target >= 300), p99 "
          f"{max(w.p99 for w in hook):.1f} ms there (worst round); {acted} actions in the inbound log for "
          f"{answered} requests answered")
    if offered:
        print(f"latency at {args.rate:.0f} actions/s offered: p99 {max(o.p99 for o in offered):.1f} ms (worst round; "
              f"target < 50), {sum(o.late for o in offered)} sent late")
    print(f"ratio: {rate_w / rate_b:.2f} of the bare endpoint's {rate_b:.0f} requests/s (target >= 0.33)")


if __name__ == "__main__":
    main()
