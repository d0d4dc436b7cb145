"""How much memory a long-lived process holds after serving many games.

    .venv/bin/python bench/memory --split [--games 1000] [--players 8] [--parallel 20] [--workers 2]
                                  [--redis redis://127.0.0.1:6379/14]
    .venv/bin/python bench/memory [--games 1000] [--players 8] [--db URL]

With ``--split`` (the issue's figure: needs PostgreSQL and Redis on localhost) the web process and
the worker's processes are measured apart, each doing its own part: see ``split.py``. Without it,
one process plays whole games through the application service, as the web process (every
player's message: ``Service.handle_inbound``) and the worker (every deadline:
``Service.close_phase``) would between them, with robots sending random legal moves. Its
resident size (VmRSS, and the peak VmHWM) is printed as it goes, so growth per game shows.

Target (issue 9): under 200 MB each for a web process and a worker process after 1,000 games.
The one-process form measures the service both run, quickly and without PostgreSQL or Redis.
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from sqlmodel import Session, col, select

import engine
from engine.playout import random_moves
from service.game.app import Service
from service.settings import Settings
from service.store.db import make_engine, upgrade
from service.store.models import Game

NAMES = ["ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal", "ivy", "jon", "kim", "lou"]
TARGET_MB = 200


def rss_mb(field: str = "VmRSS") -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def play_game(svc: Service, clock: Clock, g: int, n: int, rnd: random.Random) -> None:
    ids = iter(range(10**9))

    def say(name: str, text: str) -> None:
        svc.handle_inbound("test", f"{name}{g}", f"g{g}m{next(ids)}", text)

    say("host", f"new lang {('en', 'it', 'es')[g % 3]}")
    with Session(svc.db) as s:
        game = s.exec(select(Game).order_by(col(Game.id).desc())).first()
        assert game is not None and game.id is not None
        code, gid = game.code, game.id
    for name in NAMES[:n]:
        say(name, f"join {code} {name}")
    say("host", f"#{code} start")
    for _ in range(200):
        with Session(svc.db) as s:
            game = s.get(Game, gid)
            assert game is not None
        if game.status != "running" or game.state is None or game.deadline is None:
            return
        for action in random_moves(engine.from_json(game.state), rnd):
            say(action.actor, f"#{code} {action.text()}")
        if rnd.random() < 0.3:
            say(rnd.choice(NAMES[:n]), f"#{code} status")
        clock.now = max(clock.now, game.deadline)
        svc.close_phase(gid, game.phase_no)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--players", type=int, default=8)
    ap.add_argument("--db", help="database URL (default: a fresh SQLite file)")
    ap.add_argument("--split", action="store_true", help="a web process and a Celery worker, measured apart")
    ap.add_argument("--parallel", type=int, default=20, help="--split: games in play at once")
    ap.add_argument("--workers", type=int, default=2, help="--split: the worker's pool processes")
    ap.add_argument("--redis", default="redis://127.0.0.1:6379/14", help="--split: a Redis database to flush and use")
    args = ap.parse_args()
    if args.split:
        import split

        split.run(args.games, args.players, args.parallel, args.workers, args.redis, TARGET_MB)
        return
    tmp = tempfile.TemporaryDirectory()
    url = args.db or f"sqlite:///{tmp.name}/memory.db"
    upgrade(url)
    clock = Clock()
    svc = Service(Settings(DATABASE_URL=url), make_engine(url), clock=clock)
    rnd = random.Random(7)
    play_game(svc, clock, -1, args.players, rnd)  # warm: imports, catalogs, compiled statements
    gc.collect()
    base = rss_mb()
    print(f"memory: after 1 game {base:.1f} MB resident")
    t0 = time.perf_counter()
    step = max(1, args.games // 10)
    for g in range(args.games):
        play_game(svc, clock, g, args.players, rnd)
        if (g + 1) % step == 0 or g + 1 == args.games:
            gc.collect()
            now = rss_mb()
            print(
                f"memory: after {g + 1:5d} games {now:6.1f} MB resident "
                f"({(now - base) * 1024 / (g + 1):.1f} KB a game; {time.perf_counter() - t0:.0f} s)",
                flush=True,
            )
    print(
        f"memory: service process after {args.games} games of {args.players} players: {rss_mb():.1f} MB "
        f"resident, peak {rss_mb('VmHWM'):.1f} MB (target < {TARGET_MB} MB)"
    )


if __name__ == "__main__":
    main()
