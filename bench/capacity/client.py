"""The players: a light open-loop client POSTing Telegram updates to the web process's webhook.

`played` of the due games are played as people play them: each time one enters a new phase, every
player who can act gets one random legal move (`engine.playout.random_moves`), sent at a random
moment of the phase's first `spread` seconds, from his private chat (`#CODE move`). Besides,
`talk` messages a second go to random due games, a living player saying something (`say ...`).
Each message is sent when it is due, whatever the answers before it (the open loop: as Telegram
sends updates), by up to 16 threads; its latency counts from when it was due. Runs in a process
of its own; puts its figures on `out` when `until` (time.time) has passed.
"""

from __future__ import annotations

import heapq
import json
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
from sqlalchemy import text
from world import NAMES, address

import engine
from engine.playout import random_moves
from service.sandbox import inbound
from service.store.db import make_engine

TALK = ("I think {x} is lying", "who voted for {x}?", "{x} was quiet last night", "trust me, not {x}")


class Client:
    def __init__(
        self,
        url: str,
        web: str,
        secret: str,
        games: dict[int, tuple[str, int]],
        played: list[int],
        talk: float,
        spread: float,
        seed: int = 7,
    ) -> None:
        self.db = make_engine(url)
        self.web, self.games, self.played = web, games, played
        self.talk, self.spread = talk, spread
        self.rnd = random.Random(seed)
        self.headers = inbound.telegram_headers(secret)
        self.due: list[tuple[float, int, str, str]] = []  # (when, seq, user, text)
        self.seq = 0
        self.phase: dict[int, int] = {}
        self.lat: list[float] = []
        self.status: dict[int, int] = {}
        self.errors = 0
        self.lock = threading.Lock()
        self.http = httpx.Client(timeout=30, limits=httpx.Limits(max_connections=16))
        self.update_id = 1

    def _push(self, when: float, user: str, line: str) -> None:
        self.seq += 1
        heapq.heappush(self.due, (when, self.seq, user, line))

    def _new_phases(self) -> None:
        """Moves for each played game that entered a phase since the last look."""
        with self.db.connect() as c:
            rows = c.execute(
                text("select id, phase_no, status from games where id = any(:ids)"), {"ids": self.played}
            ).all()
            fresh = [int(g) for g, p, s in rows if s == "running" and self.phase.get(int(g)) != int(p)]
            states = (
                dict(c.execute(text("select id, state from games where id = any(:ids)"), {"ids": fresh}).all())
                if fresh
                else {}
            )
        now = time.time()
        for g, p, _ in rows:
            g = int(g)
            if g not in states or states[g] is None:
                continue
            self.phase[g] = int(p)
            code, k = self.games[g]
            for action in random_moves(engine.from_json(states[g]), self.rnd):
                user = address(k, NAMES.index(action.actor) + 1)
                self._push(now + self.rnd.uniform(0.5, self.spread), user, f"#{code} {action.text()}")

    def _talk_until(self, end: float) -> None:
        """Talk: a Poisson stream of `talk` a second to random due games, up to `end`."""
        t = time.time()
        ids = list(self.games)
        while self.talk > 0:
            t += self.rnd.expovariate(self.talk)
            if t > end:
                break
            g = self.rnd.choice(ids)
            code, k = self.games[g]
            who = self.rnd.randrange(len(NAMES))
            x = NAMES[(who + 1 + self.rnd.randrange(len(NAMES) - 1)) % len(NAMES)]
            self._push(t, address(k, who + 1), f"#{code} say " + self.rnd.choice(TALK).format(x=x))

    def _send(self, when: float, user: str, line: str, update_id: int) -> None:
        u = inbound.telegram_user(int(user), f"u{user}", language_code="en")
        body = json.dumps(inbound.text_update(u, line, update_id=update_id))
        try:
            r = self.http.post(f"{self.web}/telegram/webhook", content=body, headers=self.headers)
            code = r.status_code
        except httpx.HTTPError:
            code = -1
        with self.lock:
            self.lat.append(time.time() - when)
            self.status[code] = self.status.get(code, 0) + 1

    def run(self, until: float, stop: Any) -> dict[str, Any]:
        pool = ThreadPoolExecutor(16)
        look = 0.0
        talked_to = time.time()
        started = time.time()
        late = 0
        while time.time() < until and not stop.is_set():
            now = time.time()
            if now >= look:
                look = now + 1.0
                self._new_phases()
                if talked_to < now + 2:
                    self._talk_until(talked_to + 5)
                    talked_to += 5
            if self.due and self.due[0][0] <= now:
                when, _, user, line = heapq.heappop(self.due)
                if now - when > 1.0:
                    late += 1
                self.update_id += 1
                pool.submit(self._send, when, user, line, self.update_id)
                continue
            nxt = min(look, self.due[0][0] if self.due else look)
            time.sleep(max(0.0, min(0.05, nxt - time.time())))
        pool.shutdown(wait=True)
        self.db.dispose()
        lat = sorted(self.lat)
        p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] if lat else float("nan")  # noqa: E731
        return {
            "sent": len(lat),
            "seconds": time.time() - started,
            "status": self.status,
            "p50": p(0.5),
            "p99": p(0.99),
            "max": lat[-1] if lat else float("nan"),
            "late": late,
        }


def main(
    url: str,
    web: str,
    secret: str,
    games: dict[int, tuple[str, int]],
    played: list[int],
    talk: float,
    spread: float,
    until: float,
    stop: Any,
    out: Any,
) -> None:
    out.put(Client(url, web, secret, games, played, talk, spread).run(until, stop))
