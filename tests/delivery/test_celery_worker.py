"""A real Celery worker (solo pool, a subprocess) on the real Redis and on the embedded transport."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from worker.celery_app import broker_settings, make_celery

from .conftest import REDIS_URL

pytestmark = pytest.mark.processes  # starts the real processes: not in the fast lane

ROOT = Path(__file__).resolve().parents[2]


class Worker:
    def __init__(self, broker: str | None, tmp: Path, visibility: float = 3600) -> None:
        self.env = {
            **os.environ,
            "LUPUS_TEST_BROKER": broker or "",
            "LUPUS_TEST_DATA": str(tmp / "var"),
            "LUPUS_TEST_OUT": str(tmp),
            "LUPUS_TEST_VISIBILITY": str(visibility),
        }
        self.tmp = tmp
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, pool: str = "solo") -> None:
        cmd = [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "tests.delivery.celery_target",
            "worker",
            "-P",
            pool,
            "-c",
            "1",
            "--without-mingle",
            "--without-gossip",
            "--without-heartbeat",
            "-l",
            "warning",
        ]
        self.log = open(self.tmp / "worker.log", "ab")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT)

    def stop(self) -> None:
        # Killed: the tests have seen their tasks finish, and even a cold shutdown of a worker on the
        # SQL transport takes seconds.
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.log.close()

    def wait_for(self, lines: set[str], timeout: float = 30) -> list[str]:
        done = self.tmp / "done.log"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = done.read_text().splitlines() if done.exists() else []
            if lines <= set(got):
                return got
            time.sleep(0.05)
        log = (self.tmp / "worker.log").read_text(errors="replace")[-3000:]
        raise AssertionError(f"tasks did not run: wanted {lines}, got {got}\n--- worker log ---\n{log}")


def _producer(broker: str | None, tmp: Path, visibility: float = 3600):
    return make_celery(broker, data_dir=tmp / "var", include=[], visibility_timeout=visibility)


@pytest.mark.redis
def test_tasks_run_retry_and_defer_on_redis(tmp_path, redis_db):
    worker = Worker(REDIS_URL, tmp_path)
    worker.start()
    try:
        app = _producer(REDIS_URL, tmp_path)
        app.send_task("t.echo", args=["hello"])
        app.send_task("t.flaky", args=["after two failures"])
        app.send_task("t.deferred", args=["after two deferrals"])
        got = worker.wait_for({"echo:hello", "flaky:after two failures", "deferred:after two deferrals"})
        assert len(got) == 3  # each exactly once
        assert (tmp_path / "flaky.attempts").read_text() == "3"
        assert (tmp_path / "deferred.attempts").read_text() == "3"
    finally:
        worker.stop()
    assert redis_db.llen("lupus") == 0


@pytest.mark.redis
def test_a_task_whose_worker_dies_is_delivered_again(tmp_path, redis_db):
    # acks_late: the message stays unacknowledged when the worker dies mid-task; after the
    # visibility timeout (shortened here from an hour) a new worker gets it again.
    worker = Worker(REDIS_URL, tmp_path, visibility=1)
    worker.start()
    app = _producer(REDIS_URL, tmp_path, visibility=1)
    app.send_task("t.crash", args=["survived"])
    try:
        assert worker.proc is not None
        worker.proc.wait(30)
        assert (tmp_path / "crash.attempts").read_text() == "1"
        worker.log.close()
        # kombu restores abandoned messages older than the visibility timeout when a worker starts
        # (and on a slow periodic sweep): start the new worker once the timeout has passed.
        time.sleep(1.5)
        worker.start()
        worker.wait_for({"crash:survived"})
    finally:
        worker.stop()


def _order(worker: Worker, closes: int, slows: int) -> list[str]:
    want = {f"close:{i}" for i in range(closes)} | {f"slow:{i}" for i in range(slows)}
    return [line.split(":")[0] for line in worker.wait_for(want, timeout=60) if not line.startswith("echo")]


@pytest.mark.redis
def test_a_due_close_goes_before_every_waiting_send(tmp_path, redis_db):
    # One pool process, as on the cheapest dyno, busy with a backlog of sends when closes come due.
    worker = Worker(REDIS_URL, tmp_path)
    worker.start(pool="prefork")
    try:
        app = _producer(REDIS_URL, tmp_path)
        app.send_task("t.echo", args=["up"])
        worker.wait_for({"echo:up"})
        for i in range(10):
            app.send_task("t.slow", args=[i])
        time.sleep(0.1)  # the first send is running
        for i in range(3):
            app.send_task("lupus.close_phase", args=[i])
        order = _order(worker, 3, 10)
        # Taken in turn with the sends, the closes would be spread among them.
        assert order[:4] == ["slow", "close", "close", "close"], order
    finally:
        worker.stop()


def test_tasks_run_on_the_embedded_transport_without_redis(tmp_path):
    worker = Worker(None, tmp_path)
    worker.start()
    try:
        app = _producer(None, tmp_path)
        assert app.conf.broker_url.startswith("sqla+sqlite:///")
        app.send_task("t.echo", args=["no server needed"])
        app.send_task("t.deferred", args=["deferred twice"])
        worker.wait_for({"echo:no server needed", "deferred:deferred twice"})
    finally:
        worker.stop()
    assert (tmp_path / "var" / "celery.db").exists()


def test_the_app_is_configured_for_late_acks_and_json():
    app = make_celery("redis://example:6379/0")
    conf = app.conf
    assert conf.task_acks_late and conf.task_reject_on_worker_lost
    assert conf.worker_prefetch_multiplier == 1
    assert conf.accept_content == ["json"] and conf.task_serializer == "json"
    assert conf.broker_transport_options["visibility_timeout"] == 3600
    assert conf.broker_transport_options["queue_order_strategy"] == "priority"
    tls = broker_settings("rediss://h:6380/0")
    assert tls["broker_use_ssl"]["ssl_cert_reqs"] == 0  # ssl.CERT_NONE, for Heroku's certificate
