"""/healthz names a channel that cannot send, as the issue met it: a web with Telegram's token and a
worker without it (each its own environment, as separate apps or a compose file give them). The
worker started first (nothing in use yet) runs; /healthz names the channel the web carries and the
worker does not, then, once a player's text has waited longer than TEXTS_LATE_SECONDS, the channel
whose texts wait; a second worker like the first is refused at start."""

from __future__ import annotations

import contextlib
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import sqlalchemy.exc

from service.sandbox.fake_telegram import FakeTelegram
from service.sandbox.inbound import telegram_headers, telegram_user, text_update
from service.sandbox.server import ServerThread
from tests.databases import flushed_redis, no_postgres, redis_url, throwaway_pg

from .procfile import ROOT, procfile
from .test_operating import until
from .test_processes import env, free_port, start, stop

pytestmark = pytest.mark.processes  # starts the real processes: not in the fast lane

TOKEN = "123456:TEST-token_carried"
SECRET = "carried-secret"
LATE = 3.0  # TEXTS_LATE_SECONDS


@pytest.fixture
def deployment(tmp_path: Path) -> Iterator[tuple[dict[str, str], dict[str, str], str]]:
    """The worker's environment, the web's (the worker's and Telegram's), and the web's address."""
    with contextlib.ExitStack() as stack:
        try:
            db_url = stack.enter_context(throwaway_pg("lupus_carried"))
        except sqlalchemy.exc.OperationalError:
            no_postgres()
        broker = redis_url(14)
        stack.enter_context(flushed_redis(broker))
        telegram_url = stack.enter_context(ServerThread(FakeTelegram(TOKEN, enforce_limits=False).app))
        port = free_port()
        worker = {
            "DATABASE_URL": db_url,
            "REDIS_URL": broker,
            "HEARTBEAT_SECONDS": "0.5",
            "TEXTS_LATE_SECONDS": str(LATE),
            "START_WAIT_SECONDS": "0",
        }
        web = {
            **worker,
            "PORT": str(port),
            "PUBLIC_URL": f"http://127.0.0.1:{port}",
            "TELEGRAM_BOT_TOKEN": TOKEN,
            "TELEGRAM_WEBHOOK_SECRET": SECRET,
            "TELEGRAM_API_URL": telegram_url,
        }
        yield worker, web, f"http://127.0.0.1:{port}"


def problems(url: str) -> list[str]:
    try:
        answer = httpx.get(url + "/healthz", timeout=30)
    except httpx.TransportError:
        return []
    return list(answer.json()["problems"]) if answer.status_code == 503 else []


def test_healthz_names_the_channel_the_worker_cannot_send(
    deployment: tuple[dict[str, str], dict[str, str], str], tmp_path: Path
) -> None:
    worker_env, web_env, url = deployment
    procs: list[tuple[subprocess.Popen[bytes], Path]] = []
    worker_log, web_log = tmp_path / "worker.log", tmp_path / "web.log"
    try:
        procs.append((start(procfile()["worker"], ROOT, worker_log, **worker_env), worker_log))
        until(
            lambda: "ready." in worker_log.read_text(errors="replace"),
            120,
            lambda: worker_log.read_text(errors="replace")[-3000:],
        )
        procs.append((start(procfile()["web"], ROOT, web_log, **web_env), web_log))

        uneven = until(
            lambda: [p for p in problems(url) if p.startswith("telegram is set up on the web")],
            120,
            lambda: f"{problems(url)}\n{web_log.read_text(errors='replace')[-3000:]}",
        )
        assert "but not on 1 process (worker " in uneven[0], uneven
        assert "a worker without it leaves its texts unsent" in uneven[0], uneven

        ann = telegram_user(1001, "Ann", language_code="en")
        answer = httpx.post(
            url + "/telegram/webhook", json=text_update(ann, "new"), headers=telegram_headers(SECRET), timeout=60
        )
        assert answer.status_code == 200, answer.text
        written = time.monotonic()
        late = until(
            lambda: [p for p in problems(url) if p.startswith("telegram texts wait")],
            60,
            lambda: f"never named: {problems(url)}",
        )
        assert time.monotonic() - written >= LATE
        assert "no live worker carries it: set its credentials on the worker" in late[0], late

        second = subprocess.run(
            ["bash", "-c", "exec " + procfile()["worker"]],
            cwd=tmp_path,
            env=env(**worker_env),
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert second.returncode == 2, second.stderr
        assert [
            line for line in second.stderr.splitlines() if line.startswith("lupus worker: telegram is in use (web ")
        ], second.stderr
    finally:
        for proc, log in procs:
            stop(proc, log)
