"""The webhook bench's two loads (``wrk``, closed loop; ``load_rate``, open loop), what one round
of either measured (``Result``), and the CPU of a process tree read from /proc."""

from __future__ import annotations

import asyncio
import os
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

SECRET = "bench-secret"
HEADERS = {"Content-Type": "application/json", "X-Telegram-Bot-Api-Secret-Token": SECRET}


def load_wrk(url: str, path: str, bodies: list[bytes], concurrency: int, seconds: float) -> Result:
    """wrk with post.lua: `concurrency` connections for `seconds`, each body sent at most once."""
    threads = 2 if concurrency >= 2 else 1
    with tempfile.NamedTemporaryFile("wb", suffix=".jsonl", delete=False) as f:
        f.write(b"\n".join(bodies) + b"\n")
    try:
        secs = f"{max(1, round(seconds))}s"
        out = subprocess.run(
            [
                "wrk",
                "-t",
                str(threads),
                "-c",
                str(concurrency),
                "-d",
                secs,
                "--timeout",
                "30s",
                "-s",
                str(Path(__file__).with_name("post.lua")),
                url + path,
                "--",
                f.name,
                str(threads),
                SECRET,
            ],
            capture_output=True,
            text=True,
        )
    finally:
        os.unlink(f.name)
    if out.returncode != 0 or "WRK " not in out.stdout:
        raise SystemExit(f"wrk failed: {out.stdout}{out.stderr}")
    line = next(x for x in out.stdout.splitlines() if x.startswith("WRK "))
    v = dict(kv.split("=") for kv in line.split()[1:])
    if v["ran_out"] == "true":
        raise SystemExit(f"wrk ran out of bodies ({len(bodies)}): raise the count or lower --seconds")
    return Result(
        int(v["requests"]),
        float(v["seconds"]),
        int(v["p50"]) / 1000,
        int(v["p99"]) / 1000,
        int(v["non2xx"]),
        int(v["errors"]),
    )


async def load_rate(
    url: str, path: str, bodies: list[bytes], rate: float, seconds: float, max_connections: int
) -> Result:
    """Open loop: update k is due at ``k / rate`` seconds from the start, whatever became of the ones
    before, as Telegram sends updates when players write them and not when the last answer came
    (up to ``max_connections`` at once, its setWebhook default being 40). Latency counts from when
    an update was due, so a server that falls behind is charged the wait (no coordinated omission).
    Plain asyncio streams with keep-alive: a few per cent of a core at these rates."""
    host, port = url.removeprefix("http://").split(":")
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"X-Telegram-Bot-Api-Secret-Token: {SECRET}\r\n"
    ).encode()
    idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
    slots = asyncio.Semaphore(max_connections)
    latencies: list[float] = []
    late = bad = errors = 0

    async def exchange(conn: tuple[asyncio.StreamReader, asyncio.StreamWriter], body: bytes) -> bytes:
        reader, writer = conn
        writer.write(head + b"Content-Length: %d\r\n\r\n" % len(body) + body)
        status_and_headers = await reader.readuntil(b"\r\n\r\n")
        length = next(
            int(h.split(b":")[1]) for h in status_and_headers.lower().split(b"\r\n") if h.startswith(b"content-length:")
        )
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
    """CPU seconds all of PostgreSQL used in the round: every backend (those that ended too), the
    WAL writer, the checkpointer, the background writer (``tree_cpu`` of the postmaster)."""
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


def _stat(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def tree_cpu(root: int) -> float:
    """CPU seconds used so far by ``root`` and its children, those that ended included (a parent's
    cutime and cstime count the children it waited for: uvicorn's, the postmaster's)."""
    tick = os.sysconf("SC_CLK_TCK")
    fields = _stat(root)
    if fields is None:
        return 0.0
    total = sum(int(fields[i]) for i in (11, 12, 13, 14))
    for stat in Path("/proc").glob("[0-9]*/stat"):
        f = _stat(int(stat.parent.name))
        if f is not None and int(f[1]) == root:
            total += int(f[11]) + int(f[12])
    return total / tick


def postmaster() -> int:
    """The PostgreSQL server's main process: the ``postgres`` process whose parent is not one."""
    comm = {}
    for p in Path("/proc").glob("[0-9]*/comm"):
        try:
            comm[int(p.parent.name)] = p.read_text().strip()
        except OSError:
            continue
    for pid, name in comm.items():
        f = _stat(pid)
        if name == "postgres" and f is not None and comm.get(int(f[1])) != "postgres":
            return pid
    raise SystemExit("no PostgreSQL server process found on this machine")


def load_average() -> str:
    return Path("/proc/loadavg").read_text().split()[0]
