"""The processes of the capacity bench: the web process (`lupus web`, WEB_CONCURRENCY=1), the
worker (`celery -A worker.app worker`, one pool process), the stand-in Telegram; and their
resident sizes, read from /proc."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
LUPUS = Path(sys.executable).parent / "lupus"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss(pid: int, field: str = "VmRSS") -> float:
    """MB, or nan once the process is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def children(pid: int) -> list[int]:
    out: list[int] = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            out += [int(c) for c in (task / "children").read_text().split()]
    return out


class Proc:
    """A child process in its own session, its output in a temporary log, killed (with its
    children) by `stop`."""

    def __init__(
        self, name: str, args: list[str], env: dict[str, str], ready: Callable[[str], bool], timeout: float = 180
    ) -> None:
        self.name = name
        self.log = Path(tempfile.mkstemp(prefix=f"lupus-bench-capacity-{name}-", suffix=".log")[1])
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                args, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        end = time.monotonic() + timeout
        while not ready(self.log.read_text(errors="replace")):
            if time.monotonic() > end or self.proc.poll() is not None:
                tail = self.log.read_text(errors="replace")[-3000:]
                self.stop()
                raise SystemExit(f"{name} did not start:\n{tail}")
            time.sleep(0.2)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=1).status_code < 500
    except httpx.HTTPError:
        return False


def base_env(url: str, redis_url: str, token: str, secret: str, tg_url: str, sweep: float) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "TWILIO_", "SENTRY_"))}
    env.update(
        DATABASE_URL=url,
        REDIS_URL=redis_url,
        TELEGRAM_BOT_TOKEN=token,
        TELEGRAM_WEBHOOK_SECRET=secret,
        TELEGRAM_API_URL=f"{tg_url}/bot",
        SWEEP_SECONDS=str(sweep),
        WEB_CONCURRENCY="1",
        WORKER_CONCURRENCY="1",
        PYTHONPATH=str(ROOT),
        PUBLIC_URL="http://127.0.0.1:9",
    )
    return env


def stand_in(token: str, latency: float = 0.0) -> tuple[Proc, str]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    p = Proc(
        "telegram",
        [sys.executable, str(HERE / "standin.py"), str(port), token, str(latency)],
        dict(os.environ),
        lambda _: _answers(f"{url}/bench/stats"),
    )
    return p, url


def web(env: dict[str, str]) -> tuple[Proc, str]:
    """`lupus web` as the Procfile runs it, one process (WEB_CONCURRENCY=1)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    p = Proc(
        "web", [str(LUPUS), "web", "--host", "127.0.0.1", "--port", str(port)], env, lambda _: _answers(f"{url}/livez")
    )
    return p, url


def worker(env: dict[str, str], processes: int = 1, name: str = "worker") -> Proc:
    """The Procfile's worker with one pool process (WORKER_CONCURRENCY=1), beat played by the bench;
    `name` tells several apart (as several dynos or machines would run)."""
    env = env | {"WORKER_CONCURRENCY": str(processes)}
    return Proc(
        name,
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "worker.app",
            "worker",
            "--loglevel=INFO",
            "-n",
            f"{name}@%h",
            f"--concurrency={processes}",
            "--prefetch-multiplier=1",
            "--task-events",
            "-P",
            "prefork",
            "--without-mingle",
            "--without-gossip",
            "--without-heartbeat",
        ],
        env,
        lambda log: " ready." in log,
    )


class Memory:
    """VmRSS of the web process, the (first) worker's main process and its pool, sampled; peak and end."""

    def __init__(self, web_pid: int, worker_pid: int) -> None:
        self.web_pid, self.worker_pid = web_pid, worker_pid
        self.peak: dict[str, float] = {}
        self.end: dict[str, float] = {}
        self.pool_pids: set[int] = set()

    def sample(self) -> None:
        pool = children(self.worker_pid)
        self.pool_pids.update(pool)
        now = {"web": rss(self.web_pid), "worker main": rss(self.worker_pid)}
        for i, pid in enumerate(sorted(pool)):
            now[f"worker pool {i + 1}" if len(pool) > 1 else "worker pool"] = rss(pid)
        for k, v in now.items():
            if v == v:  # not nan
                self.peak[k] = max(self.peak.get(k, 0.0), v)
                self.end[k] = v
        # The kernel's own peak (VmHWM) catches what fell between samples.
        for k, pid in (("web", self.web_pid), ("worker main", self.worker_pid)):
            h = rss(pid, "VmHWM")
            if h == h:
                self.peak[k] = max(self.peak.get(k, 0.0), h)
        for i, pid in enumerate(sorted(pool)):
            h = rss(pid, "VmHWM")
            if h == h:
                key = f"worker pool {i + 1}" if len(pool) > 1 else "worker pool"
                self.peak[key] = max(self.peak.get(key, 0.0), h)
