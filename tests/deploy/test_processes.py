"""The Procfile's commands start, as the platform starts them (each line in a shell, from the
project's root): `release` migrates an empty PostgreSQL database given as a `postgres://` URL, `web`
serves /healthz on $PORT, `worker` and `beat` start on the embedded broker and stop cleanly on
SIGTERM (what Heroku and Fly send at shutdown)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text

from service.store.db import make_engine, upgrade
from tests.databases import no_postgres

from .procfile import ROOT, procfile

pytestmark = pytest.mark.processes  # starts the real processes: not in the fast lane

PG_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
BIN = str(Path(sys.executable).parent)


def env(**extra: str) -> dict[str, str]:
    """A platform-like environment: the project's tools on PATH, nothing of ours inherited."""
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DATABASE_URL", "REDIS_URL", "TELEGRAM_", "TWILIO_", "PUBLIC_URL", "PORT"))
    }
    return {
        **base,
        "PATH": BIN + os.pathsep + base.get("PATH", ""),
        "PYTHONPATH": str(ROOT),
        "PYTHONUNBUFFERED": "1",
        **extra,
    }


def start(command: str, cwd: Path, log: Path, **extra: str) -> subprocess.Popen[bytes]:
    """The line in a shell, as Heroku runs it; `exec` so that the signal reaches the process itself
    (on a dyno every process gets SIGTERM; here only the one we started does)."""
    out = log.open("wb")
    return subprocess.Popen(
        ["bash", "-c", "exec " + command],
        cwd=cwd,
        env=env(**extra),
        stdout=out,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def wait_for(log: Path, proc: subprocess.Popen[bytes], needle: str, seconds: float = 60) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if needle in log.read_text(errors="replace"):
            return
        if proc.poll() is not None:
            break
        time.sleep(0.2)
    raise AssertionError(f"{needle!r} never came (exit {proc.poll()}):\n{log.read_text(errors='replace')[-3000:]}")


def stop(proc: subprocess.Popen[bytes], log: Path, seconds: float = 60) -> int:
    """SIGTERM, as a platform stops a process; a hang is killed and fails. uvicorn re-raises the
    signal once it has shut down, so its clean exit is -SIGTERM after "Finished server process"."""
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGTERM)
    try:
        return proc.wait(seconds)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise AssertionError(f"did not stop on SIGTERM:\n{log.read_text(errors='replace')[-3000:]}") from None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'app.db'}"
    upgrade(url)
    return url


@pytest.fixture
def empty_pg() -> Iterator[str]:
    try:
        admin = make_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
        with admin.connect() as c:
            c.execute(text("select 1"))
    except Exception:
        no_postgres()
    name = f"lupus_release_{uuid.uuid4().hex[:10]}"
    with admin.connect() as c:
        c.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield name
    finally:
        with admin.connect() as c:
            c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.mark.postgres
def test_release_migrates_an_empty_postgres_database(empty_pg: str, tmp_path: Path) -> None:
    # As Heroku and Fly give it: postgres://, which the settings rewrite for SQLAlchemy.
    url = f"postgres://postgres@127.0.0.1:5432/{empty_pg}"
    done = subprocess.run(
        ["bash", "-c", procfile()["release"]],
        cwd=ROOT,
        env=env(DATABASE_URL=url),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    db = make_engine(f"postgresql+psycopg://postgres@127.0.0.1:5432/{empty_pg}")
    try:
        with db.connect() as c:
            tables = set(c.execute(text("select tablename from pg_tables where schemaname = 'public'")).scalars())
            version = c.execute(text("select version_num from alembic_version")).scalar_one()
    finally:
        db.dispose()
    assert {"games", "seats", "identities", "outbox", "inbound", "game_events"} <= tables
    heads = subprocess.run(
        ["bash", "-c", "alembic heads"], cwd=ROOT, env=env(DATABASE_URL=url), capture_output=True, text=True, timeout=60
    )
    assert version in heads.stdout


def test_web_serves_healthz_on_port(sqlite_url: str, tmp_path: Path) -> None:
    port, log = free_port(), tmp_path / "web.log"
    proc = start(procfile()["web"], ROOT, log, PORT=str(port), DATABASE_URL=sqlite_url)
    try:
        end, answer = time.monotonic() + 60, None
        while time.monotonic() < end and proc.poll() is None:
            try:
                answer = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5)
                break
            except httpx.TransportError:
                time.sleep(0.3)
        assert answer is not None, log.read_text(errors="replace")
        # Without a shared broker no worker or beat of its own is expected (test_operating.py has them).
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body["database"] == "ok" and body["worker"]["status"] == body["beat"]["status"] == "silent"
        assert body["liveness"] == "not required (no REDIS_URL)"
        # What the platform's own check asks: this process, its database.
        assert httpx.get(f"http://127.0.0.1:{port}/livez", timeout=5).status_code == 200
    finally:
        code = stop(proc, log)
    assert code in (0, -signal.SIGTERM) and "Finished server process" in log.read_text(), log.read_text()
    # Structured logs where a platform reads them: uvicorn's own lines too, one JSON object each.
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    assert any(e["event"].startswith("Finished server process") and e["level"] == "info" for e in lines)


@pytest.mark.parametrize("name, ready", [("worker", "ready."), ("beat", "Sending due task sweep-deadlines")])
def test_worker_and_beat_start_and_stop_on_the_embedded_broker(
    name: str, ready: str, sqlite_url: str, tmp_path: Path
) -> None:
    # Run where a fresh machine would keep var/ (the embedded broker's file); beat's schedule file
    # moves into the test's folder so that parallel runs do not share /tmp/celerybeat-schedule.
    command = procfile()[name].replace("/tmp/celerybeat-schedule", str(tmp_path / "beat-schedule"))
    log = tmp_path / f"{name}.log"
    broker = tmp_path / "var" / "celery.db"  # the embedded broker, made where it ran
    proc = start(command, tmp_path, log, DATABASE_URL=sqlite_url, WORKER_CONCURRENCY="1")
    try:
        wait_for(log, proc, ready)
        # Beat logs "Sending due task" before it connects to the broker to send it: on a slow
        # machine a stop right after the line came before the file (seen once in CI).
        end = time.monotonic() + 30
        while not broker.exists() and proc.poll() is None and time.monotonic() < end:
            time.sleep(0.2)
    finally:
        code = stop(proc, log)
    assert code == 0, log.read_text(errors="replace")[-3000:]
    assert broker.exists(), log.read_text(errors="replace")[-3000:]
    if name == "worker":  # WORKER_CONCURRENCY, read by the app: the Procfile's line names no number
        assert "concurrency: 1 (prefork)" in log.read_text(errors="replace"), log.read_text(errors="replace")[:3000]
    # Celery's own log lines come out structured too (its banner and warnings are printed, not logged).
    assert any(ready in json.loads(line)["event"] for line in log.read_text().splitlines() if line.startswith("{")), (
        log.read_text(errors="replace")[-3000:]
    )
