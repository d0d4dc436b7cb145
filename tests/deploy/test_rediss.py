"""Heroku's Redis: a `rediss://` URL whose server presents a self-signed certificate. Here a local
redis-server speaks TLS with a certificate made on the spot, which a default client refuses; every
part that reaches Redis from REDIS_URL must still get through: the Celery broker (the Procfile's
`worker` and `beat`, a task going from one to the other), the worker's rate limiter and marks, the
health check and `lupus outbox`."""

from __future__ import annotations

import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis

from service.ops.queue import broker_depth
from service.sandbox.server import ServerThread
from service.settings import Settings, get_settings
from service.web import create_app
from worker import runtime

from .procfile import procfile
from .test_processes import free_port, start, stop, wait_for

pytestmark = [pytest.mark.redis, pytest.mark.processes]


@pytest.fixture(scope="module")
def rediss(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not (shutil.which("redis-server") and shutil.which("openssl")):
        pytest.skip("redis-server and openssl are needed")
    folder = tmp_path_factory.mktemp("tls")
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=heroku-like",
            "-keyout",
            str(folder / "key.pem"),
            "-out",
            str(folder / "cert.pem"),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    port = free_port()
    server = subprocess.Popen(
        [
            "redis-server",
            "--port",
            "0",
            "--bind",
            "127.0.0.1",
            "--tls-port",
            str(port),
            "--tls-cert-file",
            str(folder / "cert.pem"),
            "--tls-key-file",
            str(folder / "key.pem"),
            "--tls-auth-clients",
            "no",
            "--save",
            "",
            "--appendonly",
            "no",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    url = f"rediss://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url, ssl_cert_reqs=None, socket_timeout=5)
    try:
        end = time.monotonic() + 30
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if server.poll() is not None:
                    pytest.skip("this redis-server cannot serve TLS")
                if time.monotonic() > end:
                    raise
                time.sleep(0.2)
        # The certificate is one no client trusts: a client left at its defaults is refused.
        with pytest.raises(redis.ConnectionError, match="CERTIFICATE_VERIFY_FAILED"):
            redis.Redis.from_url(url, socket_timeout=5).ping()
        yield url
    finally:
        client.close()
        server.terminate()
        server.wait(30)


def test_the_worker_and_beat_use_the_broker_over_tls(rediss: str, tmp_path: Path) -> None:
    """Beat enqueues its sweeps over TLS and the worker takes and runs them."""
    url = rediss.replace("/0", "/1")
    sqlite = f"sqlite:///{tmp_path / 'app.db'}"
    from service.store.db import upgrade

    upgrade(sqlite)
    beat_cmd = procfile()["beat"].replace("/tmp/celerybeat-schedule", str(tmp_path / "beat-schedule"))
    worker_log, beat_log = tmp_path / "worker.log", tmp_path / "beat.log"
    worker = start(procfile()["worker"], tmp_path, worker_log, DATABASE_URL=sqlite, REDIS_URL=url)
    beat = None
    try:
        wait_for(worker_log, worker, "ready.")
        assert "Connected to rediss://" in worker_log.read_text()
        beat = start(beat_cmd, tmp_path, beat_log, DATABASE_URL=sqlite, REDIS_URL=url)
        wait_for(beat_log, beat, "Sending due task sweep-deadlines")
        wait_for(worker_log, worker, "succeeded in")
        assert "lupus.sweep_deadlines[" in worker_log.read_text()
    finally:
        codes = [stop(p, log) for p, log in ((beat, beat_log), (worker, worker_log)) if p is not None]
    assert codes == [0, 0], worker_log.read_text()[-3000:]
    assert not (tmp_path / "var" / "celery.db").exists()  # Redis it was, not the embedded broker


def test_limiter_marks_health_and_cli_reach_redis_over_tls(
    rediss: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = rediss.replace("/0", "/2")
    monkeypatch.setenv("REDIS_URL", url)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'app.db'}")
    get_settings.cache_clear()
    try:
        # The worker's process: its shared rate limiter and its marks.
        assert runtime.delivery().limiter.try_acquire("telegram", "private", "42") == 0
        key = f"rediss-test-{uuid.uuid4().hex}"
        assert runtime.marks().first([key], 60) == [True]
        assert runtime.marks().first([key], 60) == [False]
    finally:
        runtime.shutdown()
        get_settings.cache_clear()

    settings = Settings(
        _env_file=None,
        DATABASE_URL=f"sqlite:///{tmp_path / 'web.db'}",  # type: ignore[call-arg]
        REDIS_URL=url,
    )
    with ServerThread(create_app(settings)) as web, httpx.Client(timeout=30) as http:
        health = http.get(web + "/healthz")
    # The broker answers over TLS (the 503 is for the liveness this unmigrated database cannot tell).
    assert health.json()["broker"] == "ok", health.text
    assert not [p for p in health.json()["problems"] if p.startswith("broker")], health.text

    assert broker_depth(url) == "redis, 0 queued"
