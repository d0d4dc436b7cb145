"""The web process and the worker process measured apart (`bench/memory --split`).

This process is the web process: it serves the real FastAPI app (``service.web.create_app``) and
every player's move reaches it as a Telegram update on ``POST /telegram/webhook``. The worker is
the product's Celery worker in its own processes, as the Procfile runs it, on a Redis of the
bench's: it closes the phases (``lupus.close_phase``, sent when the bench has moved a game's
deadline into the past, as the beat's sweep would) and sends every outbox row to a stand-in
Telegram Bot API in a third process. Games run ``--parallel`` at a time; the resident size of the
web process and of each worker process is printed as games finish.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import text

import engine
from bench.scratch import scratch_database
from engine.playout import random_moves
from service.sandbox import inbound
from service.settings import Settings
from service.store.db import make_engine, upgrade
from service.web import create_app
from worker.celery_app import make_celery

ROOT = Path(__file__).resolve().parents[2]
SECRET = "bench-memory-secret"
TOKEN = "123:bench"
STAND_IN = (
    "import sys, uvicorn; from service.sandbox.fake_telegram import FakeTelegram; "
    "uvicorn.run(FakeTelegram(enforce_limits=False).app, host='127.0.0.1', port=int(sys.argv[1]), "
    "log_level='warning')"
)


def rss_of(pid: int, field: str = "VmRSS") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def children(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        out += [int(c) for c in (task / "children").read_text().split()]
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def process(args: list[str], env: dict[str, str], ready: Callable[[str], bool]) -> Iterator[subprocess.Popen[bytes]]:
    log = Path(tempfile.mkstemp(prefix="lupus-bench-memory-", suffix=".log")[1])
    with log.open("wb") as out:
        proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        end = time.monotonic() + 180
        while not ready(log.read_text(errors="replace")):
            if time.monotonic() > end or proc.poll() is not None:
                raise SystemExit(f"{args[:4]} did not start:\n{log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.2)
        yield proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


class Table:
    """One game of the bench, played by Telegram users ``base + seat``."""

    def __init__(self, client: TestClient, g: int, players: int, rnd: random.Random, ids: Iterator[int]) -> None:
        self.client, self.g, self.rnd, self.ids = client, g, rnd, ids
        self.names = [f"p{i}" for i in range(players)]
        self.users = {n: 1_000_000 + g * 100 + i for i, n in enumerate(self.names)}
        self.host = 1_000_000 + g * 100 + 99
        self.say(self.host, f"new lang {('en', 'it', 'es')[g % 3]}")

    def say(self, user: int, line: str) -> None:
        update = inbound.text_update(
            inbound.telegram_user(user, f"u{user}", language_code="en"), line, update_id=next(self.ids)
        )
        r = self.client.post("/telegram/webhook", json=update, headers=inbound.telegram_headers(SECRET))
        assert r.status_code == 200, (line, r.status_code, r.text)


def play(url: str, redis_url: str, games: int, players: int, parallel: int, workers: int, target_mb: float) -> None:
    fake_port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "TWILIO_"))}
    env.update(
        DATABASE_URL=url,
        REDIS_URL=redis_url,
        TELEGRAM_BOT_TOKEN=TOKEN,
        TELEGRAM_WEBHOOK_SECRET=SECRET,
        TELEGRAM_API_URL=f"http://127.0.0.1:{fake_port}/bot",
        TELEGRAM_PER_SECOND="1000",
        PUBLIC_URL="http://127.0.0.1:9",
    )
    os.environ.update(
        {
            k: env[k]
            for k in (
                "DATABASE_URL",
                "REDIS_URL",
                "TELEGRAM_BOT_TOKEN",
                "TELEGRAM_WEBHOOK_SECRET",
                "TELEGRAM_API_URL",
                "TELEGRAM_PER_SECOND",
            )
        }
    )
    celery_cmd = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "worker.app",
        "worker",
        "-P",
        "prefork",
        "-c",
        str(workers),
        "--without-mingle",
        "--without-gossip",
        "--without-heartbeat",
        "-l",
        "warning",
    ]
    with (
        process(
            [sys.executable, "-c", STAND_IN, str(fake_port)],
            env,
            lambda log: "Uvicorn running" in log or _listening(fake_port),
        ),
        process(celery_cmd, env | {"CELERY_LOGLEVEL": "info"}, lambda log: _celery_ready(redis_url)) as worker,
        TestClient(create_app(Settings())) as client,
    ):
        db = make_engine(url)
        beat = make_celery(redis_url, include=[])
        rnd = random.Random(7)
        ids = iter(range(1, 10**9))
        pending = list(range(games))
        tables: dict[int, Table] = {}
        done = 0
        step = max(1, games // 10)
        t0 = time.perf_counter()
        while pending or tables:
            while pending and len(tables) < parallel:
                table = Table(client, pending.pop(0), players, rnd, ids)
                tables[table.g] = table
                code = _code(db, table.g)
                for n in table.names:
                    table.say(table.users[n], f"join {code} {n}")
                table.say(table.host, f"#{code} start")
            rows = _games(db, [_GIDS[t.g] for t in tables.values()])
            for g, table in list(tables.items()):
                gid, code, status, state, phase_no = rows[_GIDS[g]]
                if status != "running" or state is None:
                    del tables[g]
                    done += 1
                    if done % step == 0 or done == games:
                        _report(done, worker.pid, t0)
                    continue
                for action in random_moves(engine.from_json(state), rnd):
                    table.say(table.users[action.actor], f"#{code} {action.text()}")
                with db.begin() as c:
                    c.execute(text("update games set deadline = now() - interval '1 second' where id = :g"), {"g": gid})
                beat.send_task("lupus.close_phase", args=[gid, phase_no])
            _wait_closed(db, {rows[_GIDS[g]][0]: rows[_GIDS[g]][4] for g in tables})
        _final(games, players, worker.pid, target_mb)
        db.dispose()


_GIDS: dict[int, int] = {}  # the bench's game number -> the game's id


def _code(db: Any, g: int) -> str:
    """The code of the game just created (this process creates games one at a time)."""
    with db.connect() as c:
        gid, code = c.execute(text("select id, code from games order by id desc limit 1")).one()
    _GIDS[g] = int(gid)
    return str(code)


def _games(db: Any, gids: list[int]) -> dict[int, tuple[int, str, str, str | None, int]]:
    with db.connect() as c:
        rows = c.execute(
            text("select id, code, status, state, phase_no from games where id = any(:ids)"), {"ids": gids}
        ).all()
    return {int(r[0]): (int(r[0]), str(r[1]), str(r[2]), r[3], int(r[4])) for r in rows}


def _wait_closed(db: Any, phases: dict[int, int]) -> None:
    end = time.monotonic() + 300
    while phases and time.monotonic() < end:
        with db.connect() as c:
            rows = c.execute(
                text("select id, phase_no, status from games where id = any(:ids)"), {"ids": list(phases)}
            ).all()
        for gid, phase_no, status in rows:
            if int(phase_no) != phases[int(gid)] or status != "running":
                phases.pop(int(gid))
        time.sleep(0.05)
    if phases:
        raise SystemExit(f"phases not closed after 300 s: {phases}")


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def _celery_ready(redis_url: str) -> bool:
    app = make_celery(redis_url, include=[])
    try:
        return bool(app.control.ping(timeout=0.5))
    finally:
        app.close()


def _report(done: int, worker_pid: int, t0: float) -> None:
    kids = children(worker_pid)
    sizes = ", ".join(f"{rss_of(k):.1f}" for k in kids)
    print(
        f"memory: after {done:5d} games: web {rss_of(os.getpid()):6.1f} MB; "
        f"worker main {rss_of(worker_pid):6.1f} MB, pool [{sizes}] MB ({time.perf_counter() - t0:.0f} s)",
        flush=True,
    )


def _final(games: int, players: int, worker_pid: int, target_mb: float) -> None:
    web, peak = rss_of(os.getpid()), rss_of(os.getpid(), "VmHWM")
    pool = [(rss_of(k), rss_of(k, "VmHWM")) for k in children(worker_pid)]
    print(
        f"memory: web process after {games} games of {players}: {web:.1f} MB resident, peak {peak:.1f} MB "
        f"(target < {target_mb:.0f} MB)"
    )
    print(
        f"memory: worker main process {rss_of(worker_pid):.1f} MB, peak {rss_of(worker_pid, 'VmHWM'):.1f} MB; "
        + "; ".join(f"pool process {i + 1} {r:.1f} MB, peak {h:.1f} MB" for i, (r, h) in enumerate(pool))
        + f" (target < {target_mb:.0f} MB each)",
        flush=True,
    )


def run(games: int, players: int, parallel: int, workers: int, redis_url: str, target_mb: float) -> None:
    with scratch_database("bench_memory") as url:
        upgrade(url)
        with contextlib.suppress(Exception):
            import redis

            redis.Redis.from_url(redis_url).flushdb()
        play(url, redis_url, games, players, parallel, workers, target_mb)
