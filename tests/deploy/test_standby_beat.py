"""Two beats run from the Procfile's line on one Redis: one schedules, the other stands by; the
leader SIGKILLed, the standby schedules within 10 s (issue 31, "a standby beat";
docs/decisions/0250), and goes on after Redis lost its lock and schedule (``worker.standby``).

Who scheduled is read from the sweeps themselves: no worker runs, so every sweep beat sends stays
in its queue, and each message names the process that sent it (Celery's ``origin`` header,
``gen<pid>@<host>``).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest
import redis
import sqlalchemy.exc

from service.ops.doctor import beat_leader
from service.settings import Settings
from tests.databases import flushed_redis, no_postgres, redis_url, throwaway_pg
from worker.celery_app import BEAT_QUEUE

from .procfile import ROOT, procfile
from .test_operating import until
from .test_processes import start, stop

pytestmark = pytest.mark.processes  # starts the real processes: not in the fast lane

WITHIN = 10.0  # seconds from the leader's death to a sweep sent by the standby


def senders(client: redis.Redis) -> list[int]:
    """The process id of each sweep's sender, oldest first (kombu pushes new messages on the left)."""
    out = []
    for raw in reversed(client.lrange(BEAT_QUEUE, 0, -1)):
        origin = json.loads(raw)["headers"]["origin"]  # gen<pid>@<host>
        out.append(int(origin.split("@")[0].removeprefix("gen")))
    return out


@pytest.fixture
def deployment() -> Iterator[tuple[dict[str, str], redis.Redis]]:
    with contextlib.ExitStack() as stack:
        try:
            db_url = stack.enter_context(throwaway_pg("lupus_beats"))
        except sqlalchemy.exc.OperationalError:
            no_postgres()
        broker = redis_url(14)
        client = stack.enter_context(flushed_redis(broker))
        yield (
            {
                "DATABASE_URL": db_url,
                "REDIS_URL": broker,
                "SWEEP_SECONDS": "0.5",
                "HEARTBEAT_SECONDS": "0.5",
                "STANDBY_BEATS": "1",
            },
            client,
        )


def leading(env: dict[str, str]) -> str:
    """The beat `lupus doctor` names as the one that schedules."""
    return beat_leader(cast("Settings", SimpleNamespace(REDIS_URL=env["REDIS_URL"])))


def test_a_standby_beat_schedules_within_10_s_of_the_leader_killed(
    deployment: tuple[dict[str, str], redis.Redis], tmp_path: Path
) -> None:
    env, client = deployment
    command = procfile()["beat"]
    beats: list[subprocess.Popen[bytes]] = []

    def beat_up(n: int) -> subprocess.Popen[bytes]:
        log = tmp_path / f"beat.{n}.log"
        proc = start(command.replace("/tmp/celerybeat-schedule", str(tmp_path / f"schedule.{n}")), ROOT, log, **env)
        beats.append(proc)
        return proc

    def logs() -> str:
        return "\n".join(p.read_text(errors="replace")[-2000:] for p in sorted(tmp_path.glob("beat.*.log")))

    try:
        leader = beat_up(1)
        until(lambda: leader.pid in senders(client), 120, logs)
        standby = beat_up(2)
        until(lambda: "beat: Starting..." in (tmp_path / "beat.2.log").read_text(errors="replace"), 120, logs)
        time.sleep(3)  # standing by: the leader goes on alone
        assert set(senders(client)) == {leader.pid}, logs()
        assert leading(env).endswith(f":{leader.pid}"), "lupus doctor would not name the beat that leads"

        os.kill(leader.pid, signal.SIGKILL)
        leader.wait()
        dead_at, before = time.monotonic(), len(senders(client))
        until(lambda: standby.pid in senders(client)[before:], 60, logs)
        took = time.monotonic() - dead_at
        print(f"the standby scheduled {took:.2f} s after the leader's SIGKILL")
        assert took <= WITHIN, f"the standby took {took:.1f} s\n{logs()}"
        until(lambda: leading(env).endswith(f":{standby.pid}"), 10, logs)

        client.flushdb()  # Redis restarted empty: the lock and the schedule are gone, not the beat
        until(lambda: standby.pid in senders(client), 30, logs)
        assert standby.poll() is None
    finally:
        for proc in beats:
            stop(proc, tmp_path / "beat.x.log")
