"""The deployment as an operator meets it: the Procfile's real `web`, `worker` and `beat` commands on
PostgreSQL and Redis, with Telegram's stand-in. A configuration that cannot work is refused at once;
/healthz tells a silent worker or beat (503) from a working deployment (200); /metrics, summed over
two web processes and the worker's pool, shows a played game's texts, moves and phase closes."""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy.exc
from prometheus_client.parser import text_string_to_metric_families
from sqlmodel import Session, col, select

import engine
from service.sandbox.fake_telegram import FakeTelegram
from service.sandbox.inbound import telegram_headers, telegram_user, text_update
from service.sandbox.server import ServerThread
from service.store.db import make_engine
from service.store.models import Game
from tests.databases import flushed_redis, no_postgres, redis_url, throwaway_pg

from .procfile import ROOT, procfile
from .test_processes import env, free_port, start, stop

pytestmark = pytest.mark.processes  # starts the real processes: not in the fast lane

TOKEN = "123456:TEST-token_operating"
SECRET = "operating-secret"
HEARTBEAT = 0.5  # HEARTBEAT_SECONDS in these tests
STALE = 3.0  # HEARTBEAT_STALE_SECONDS: a worker or beat silent this long makes /healthz answer 503
SILENT_WITHIN = STALE + 4 * HEARTBEAT + 3.0
"""The stated time: a stopped beat is reported silent within its staleness threshold, a heartbeat
interval or two and a few seconds of a loaded machine's slack (a poll, a request)."""
PLAYERS = ("ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal")


# -- fail fast -------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["web", "worker", "beat"])
@pytest.mark.parametrize("missing", ["REDIS_URL", "DATABASE_URL"])
def test_a_deployment_without_its_broker_or_database_refuses_to_start(name: str, missing: str, tmp_path: Path) -> None:
    given = {
        "TELEGRAM_BOT_TOKEN": TOKEN,
        "TELEGRAM_WEBHOOK_SECRET": SECRET,
        "PORT": str(free_port()),
        "DATABASE_URL": "postgres://lupus@127.0.0.1:9/nowhere",
        "REDIS_URL": "redis://127.0.0.1:9/0",
    }
    del given[missing]  # unset: SQLite and the embedded broker, each process its own
    command = procfile()[name].replace("/tmp/celerybeat-schedule", str(tmp_path / "beat-schedule"))
    done = subprocess.run(
        ["bash", "-c", "exec " + command], cwd=tmp_path, env=env(**given), capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 2, done.stdout + done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith(f"lupus {name}: ")]
    assert len(lines) == 1 and missing in lines[0], done.stderr
    assert not (tmp_path / "var").exists()  # it never got as far as its own broker, nor left its folder


# -- the stack -------------------------------------------------------------------------------------
@dataclass
class Stack:
    tmp: Path
    env: dict[str, str]
    url: str
    db_url: str
    telegram: FakeTelegram
    procs: dict[str, tuple[subprocess.Popen[bytes], Path]] = field(default_factory=dict)

    def run(self, name: str) -> None:
        if name in self.procs and self.procs[name][0].poll() is None:
            return
        command = procfile()[name].replace("/tmp/celerybeat-schedule", str(self.tmp / "beat-schedule"))
        log = self.tmp / f"{name}.{time.monotonic_ns()}.log"
        self.procs[name] = (start(command, ROOT, log, **self.env), log)

    def stop(self, name: str) -> int:
        proc, log = self.procs.pop(name)
        return stop(proc, log)

    def logs(self) -> str:
        return "\n".join(
            f"--- {n} ---\n{log.read_text(errors='replace')[-2500:]}" for n, (_, log) in self.procs.items()
        )

    def health(self) -> httpx.Response:
        return httpx.get(self.url + "/healthz", timeout=30)

    def say(self, player: str, text: str) -> None:
        user = telegram_user(1001 + PLAYERS.index(player), player.title(), language_code="en")
        answer = httpx.post(
            self.url + "/telegram/webhook", json=text_update(user, text), headers=telegram_headers(SECRET), timeout=60
        )
        assert answer.status_code == 200, answer.text

    def game(self) -> Game:
        db = make_engine(self.db_url)
        try:
            with Session(db) as s:
                game = s.exec(select(Game).order_by(col(Game.id).desc())).first()
        finally:
            db.dispose()
        assert game is not None
        return game


def until(what: Callable[[], Any], seconds: float, why: Callable[[], str]) -> Any:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        got = what()
        if got:
            return got
        time.sleep(0.25)
    raise AssertionError(why())


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    tmp = tmp_path_factory.mktemp("operating")
    with contextlib.ExitStack() as cleanup:
        try:
            db_url = cleanup.enter_context(throwaway_pg("lupus_operating"))
        except sqlalchemy.exc.OperationalError:
            no_postgres()
        broker = redis_url(14)
        cleanup.enter_context(flushed_redis(broker))
        fake = FakeTelegram(TOKEN, enforce_limits=False)
        telegram_url = cleanup.enter_context(ServerThread(fake.app))
        port = free_port()
        settings = {
            "DATABASE_URL": db_url,
            "REDIS_URL": broker,
            "PORT": str(port),
            "PUBLIC_URL": f"http://127.0.0.1:{port}",
            "TELEGRAM_BOT_TOKEN": TOKEN,
            "TELEGRAM_WEBHOOK_SECRET": SECRET,
            "TELEGRAM_API_URL": telegram_url,
            "WEB_CONCURRENCY": "2",  # two uvicorn processes: /metrics must sum them
            "METRICS_DIR": str(tmp / "metrics"),
            "HEARTBEAT_SECONDS": str(HEARTBEAT),
            "HEARTBEAT_STALE_SECONDS": str(STALE),
            "SWEEP_SECONDS": "0.5",
            "OUTBOX_SWEEP_SECONDS": "1",
            "REMINDER_SWEEP_SECONDS": "5",
            "CLOSE_RETRY_SECONDS": "5",
        }
        s = Stack(tmp, settings, f"http://127.0.0.1:{port}", db_url, fake)
        cleanup.callback(lambda: [s.stop(name) for name in list(s.procs)])
        s.run("web")

        def up() -> bool:
            try:
                return s.health().status_code in (200, 503)
            except httpx.TransportError:
                return False

        until(up, 120, lambda: "web never answered\n" + s.logs())
        yield s


# -- liveness --------------------------------------------------------------------------------------
def test_healthz_tells_a_silent_worker_and_beat_and_sees_them_come_and_go(stack: Stack) -> None:
    # Web alone, on PostgreSQL and Redis: the database and the broker answer, yet nothing would close a phase.
    first = stack.health()
    assert first.status_code == 503, first.text
    body = first.json()
    assert body["database"] == "ok" and body["broker"] == "ok"
    assert body["worker"]["status"] == "silent" and body["beat"]["status"] == "silent"
    assert any(p.startswith("worker silent") for p in body["problems"]), body
    assert any(p.startswith("beat silent") for p in body["problems"]), body
    assert body["status"] == "failing"
    assert httpx.get(stack.url + "/livez", timeout=30).status_code == 200  # what Fly's check asks: the web is fine

    stack.run("worker")
    stack.run("beat")
    ok = until(
        lambda: (r := stack.health()).status_code == 200 and r,
        180,
        lambda: f"never healthy: {stack.health().text}\n{stack.logs()}",
    )
    body = ok.json()
    assert body["worker"]["status"] == body["beat"]["status"] == "ok" and body["problems"] == []
    assert body["worker"]["seconds_ago"] < STALE and body["phases_overdue"] == 0

    assert stack.stop("beat") == 0
    stopped = time.monotonic()
    silent = until(
        lambda: (r := stack.health()).status_code == 503 and r,
        SILENT_WITHIN + 30,
        lambda: f"beat still taken for alive: {stack.health().text}",
    )
    took = time.monotonic() - stopped
    assert took <= SILENT_WITHIN, f"beat reported silent only after {took:.1f} s"
    body = silent.json()
    assert body["beat"]["status"] == "silent" and body["worker"]["status"] == "ok", body
    # Stopped cleanly, it took its heartbeat with it: no beat runs, rather than one a while ago.
    assert [p for p in body["problems"] if p.startswith("beat silent (no heartbeat: stopped")], body

    stack.run("beat")  # healthy again for what follows
    until(lambda: stack.health().status_code == 200, 180, lambda: f"{stack.health().text}\n{stack.logs()}")


# -- metrics ---------------------------------------------------------------------------------------
def scrape(stack: Stack) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    answer = httpx.get(stack.url + "/metrics", timeout=30)
    assert answer.status_code == 200, answer.text
    out: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
    for family in text_string_to_metric_families(answer.text):
        for sample in family.samples:
            out[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return out


def total(samples: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str) -> float:
    return sum(v for (n, ls), v in samples.items() if n == name and set(labels.items()) <= set(ls))


def test_metrics_after_a_played_game_count_its_texts_moves_and_closes(stack: Stack) -> None:
    stack.run("worker")
    stack.run("beat")
    before = scrape(stack)
    updates = 0
    stack.say("ann", "new")
    code = stack.game().code
    for name in PLAYERS:
        stack.say(name, f"join {code} {name}")
    stack.say("ann", "start")
    updates += 2 + len(PLAYERS)
    game = stack.game()
    assert game.status == "running" and game.state is not None, stack.logs()
    # Every night role acts (the engine says who may do what), then the host ends the night now.
    state = engine.from_json(game.state)
    moves = [
        (name, acts[0].text())
        for name in PLAYERS
        if (acts := [a for a in engine.legal_actions(state, name) if a.target is not None])
    ]
    assert moves
    for name, move in moves:
        stack.say(name, move)
    stack.say("ann", "shorten 2d")
    updates += len(moves) + 1
    phase = game.phase_no
    until(lambda: stack.game().phase_no > phase, 120, lambda: f"the night never closed\n{stack.logs()}")
    # The day's announcements reach the players through the worker's senders.
    until(
        lambda: (
            total(scrape(stack), "lupus_texts_sent_total", channel="telegram")
            >= total(before, "lupus_texts_sent_total", channel="telegram") + len(PLAYERS)
        ),
        120,
        lambda: f"texts never counted: {len(stack.telegram.sent())} sent\n{stack.logs()}",
    )

    after = scrape(stack)
    applied = total(after, "lupus_actions_applied_total") - total(before, "lupus_actions_applied_total")
    refused = total(after, "lupus_refusals_total") - total(before, "lupus_refusals_total")
    assert applied >= 1 and applied + refused == len(moves), (applied, refused, moves)
    assert (
        total(after, "lupus_phases_closed_total", rules="tabula")
        - total(before, "lupus_phases_closed_total", rules="tabula")
        >= 1
    )
    lateness = "lupus_phase_close_lateness_seconds_count"
    assert total(after, lateness) > total(before, lateness)
    # Counted by two web processes, summed in one answer: every update once.
    assert (
        total(after, "lupus_updates_received_total", channel="telegram", status="200")
        - total(before, "lupus_updates_received_total", channel="telegram", status="200")
        == updates
    )
    sent_by_stand_in = len(stack.telegram.sent())
    assert total(after, "lupus_texts_sent_total", channel="telegram") <= sent_by_stand_in
    # The deployment's gauges, read from the database.
    assert ("lupus_phases_overdue", ()) in after and after[("lupus_phases_overdue", ())] == 0
    assert ("lupus_heartbeat_age_seconds", (("role", "worker"),)) in after
    assert total(after, "lupus_outbox_depth") >= 0
    assert os.path.isdir(stack.env["METRICS_DIR"] + "/web") and os.listdir(stack.env["METRICS_DIR"] + "/worker")
