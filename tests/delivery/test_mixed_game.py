"""A game of eight through the real worker and the stand-ins, as a table would play it: five
players on Telegram who read the game in its group (ann hosts), three by SMS; bursts of votes, the
host moving a deadline (``extend``, ``shorten``), and a worker killed while a text to the group is
on its way. Two worker processes (one with beat) on PostgreSQL and Redis take the dispatch tasks as
they come, the stand-in Telegram enforces Telegram's limits for the bot, each private chat and the
group (429 with ``retry_after``), and the game's clock runs ahead of real time as the worker tests'
does. Then, for every chat: every text arrived, in the order the service decided it, once (a row
in flight when its worker died at most twice); a burst to the group arrived merged; and the
stand-in never had to say 429."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, text

from service.delivery.rows import ABANDONED
from service.sandbox.fake_telegram import FakeTelegram
from service.sandbox.fake_twilio import FakeTwilio
from service.sandbox.server import ServerThread
from service.store.db import make_engine
from tests.worker.test_worker import ROOT, TOKEN, FileClock, Worker, _env, _settled, _unsettled, drain_timeout, wait
from worker.celery_app import make_celery

from .conftest import REDIS_URL
from .mixed import GROUP, Mixed, check_order, decided

pytestmark = pytest.mark.processes  # starts the real processes: not in the fast lane

LEASE = 4  # seconds: a send in flight when its worker died is taken for abandoned after this


class KillableWorker(Worker):
    """``tests.worker``'s worker process (beat beside it or not), running ``killable_target``."""

    def start(self) -> None:
        celery = [sys.executable, "-m", "celery", "-A", "tests.delivery.killable_target"]
        before = self._starts()
        self.log = open(self.tmp / "worker.log", "ab")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [
                *celery,
                "worker",
                "-P",
                "solo",
                "--without-mingle",
                "--without-gossip",
                "--without-heartbeat",
                "-l",
                "info",
            ],
            cwd=ROOT,
            env=self.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.beat_proc = (
            subprocess.Popen(
                [*celery, "beat", "-s", str(self.tmp / "beat-schedule"), "-l", "warning"],
                cwd=ROOT,
                env=self.env,
                stdout=self.log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            if self.beat
            else None
        )
        self._ready(before)


class Both:
    """Two workers, as ``wait`` wants one: its log tail and stack dump cover both."""

    def __init__(self, *workers: KillableWorker) -> None:
        self.workers = workers

    def dump_stacks(self) -> None:
        for w in self.workers:
            w.dump_stacks()

    def tail(self) -> str:
        return "\n".join(f"--- worker {i} ---\n{w.tail()}" for i, w in enumerate(self.workers))


@pytest.fixture
def pg(pg_url: str) -> Iterator[Engine]:
    eng = make_engine(pg_url)
    with eng.begin() as c:
        c.execute(text("TRUNCATE outbox, inbound, game_events, seats, games, identities RESTART IDENTITY CASCADE"))
    yield eng
    eng.dispose()


@pytest.fixture
def stand_ins() -> Iterator[tuple[FakeTelegram, FakeTwilio, str, str]]:
    tg, tw = FakeTelegram(TOKEN), FakeTwilio()
    with ServerThread(tg.app) as tg_url, ServerThread(tw.app) as tw_url:
        tg.url = tg_url  # type: ignore[attr-defined]
        yield tg, tw, tg_url, tw_url


def _group_spans(t: Mixed, tg: FakeTelegram, keys: set[str]) -> list[tuple[int, int]]:
    """Which of the group's messages carried its rows of these keys: (first, last) row indices."""
    rows = decided([r for r in t.rows() if r.identity_id == t.person(GROUP).id])
    spans = check_order(rows, [m["text"] for m in tg.sent(int(GROUP))])
    mine = {i for i, r in enumerate(rows) if r.key in keys}
    return [s for s in spans if any(s[0] <= i <= s[1] for i in mine)]


@pytest.mark.redis
@pytest.mark.postgres
@pytest.mark.timeout(300)
def test_a_mixed_game_reaches_every_chat_in_order_merged_and_without_a_429(
    tmp_path: Path, pg: Engine, redis_db: Any, stand_ins: tuple[FakeTelegram, FakeTwilio, str, str]
) -> None:
    tg, tw, _, tw_url = stand_ins
    arm, marks = tmp_path / "arm", tmp_path / "marks"
    marks.touch()
    env = {
        **_env(tmp_path, pg, REDIS_URL, tg),
        "TWILIO_ACCOUNT_SID": tw.account_sid,
        "TWILIO_AUTH_TOKEN": tw.auth_token,
        "TWILIO_FROM_NUMBER": "+15005550006",
        "TWILIO_API_URL": tw_url,
        # A messaging service's pace rather than one long code's: the test is about order.
        "SMS_SEGMENTS_PER_SECOND": "30",
        "DISPATCH_LEASE_SECONDS": str(LEASE),
        "LUPUS_TEST_KILL_ARM": str(arm),
        "LUPUS_TEST_KILL_MARKS": str(marks),
    }
    dirs = [tmp_path / "a", tmp_path / "b"]
    for d in dirs:
        d.mkdir()
    workers = [KillableWorker(dirs[0], env, beat=True), KillableWorker(dirs[1], env, beat=False)]
    both = Both(*workers)
    producer = make_celery(REDIS_URL, include=[])
    t = Mixed(pg, FileClock(tmp_path / "clock"), host_plays=True)

    def enqueue(ids: Any) -> None:  # as worker.enqueue does
        with contextlib.suppress(Exception):
            producer.send_task("lupus.dispatch", args=[list(ids)], retry=False)

    t.svc.after_commit = enqueue

    def close() -> None:
        game = t.game()
        assert game.deadline is not None and isinstance(t.clock, FileClock)
        t.clock.set(max(t.clock.now, game.deadline))
        wait(lambda: t.game().phase_no != game.phase_no, both, timeout=60, why=f"phase {game.phase_no} to close")

    def drained() -> None:  # a phase lasts hours: what it wrote has gone before the next one
        wait(
            lambda: _settled(pg),
            both,
            timeout=drain_timeout(pg, floor=90),
            why="the outbox to drain",
            state=lambda: _unsettled(pg),
        )

    for w in workers:
        w.start()
    try:
        t.begin()  # eight joins and the start: a burst to the group
        drained()
        for wolf in t.wolves():
            t.say_as(wolf, f"kill {next(p for p in t.alive() if p not in t.wolves())}")
        arm.touch()  # the next text to the group that Telegram takes: its worker dies with it in flight
        close()  # the dawn
        mark = wait(lambda: marks.read_text().split(), both, timeout=60, why="a send to the group")
        killed = next(w for w in workers if w.proc is not None and w.proc.pid == int(mark[0]))
        killed.stop()
        killed.start()
        drained()
        for voter in t.alive():  # a burst of votes: each within a few ms of the last
            t.say_as(voter, f"vote {t.wolves()[0]}")
        t.say_as("host", "extend 1h", in_group=True)
        t.say_as("host", "shorten 30m", in_group=True)
        drained()
        close()  # the ballot
        suspects = t.state().suspects  # type: ignore[attr-defined]
        for voter in (p for p in t.alive() if p not in suspects):
            t.say_as(voter, f"vote {suspects[0]}")
        t.say_as("host", "shorten 10m", in_group=True)
        close()  # the lynching, and night 2
        drained()
    finally:
        for w in workers:
            w.stop()

    rows = t.rows()
    assert {r.status for r in rows} <= {"sent", "merged"}, [
        (r.id, r.status, r.last_error) for r in rows if r.status not in ("sent", "merged")
    ]
    assert tg.rejected(429) == 0, [c.response for c in tg.calls() if c.status == 429]
    assert not [c for c in tw.calls() if c.status != 201]
    assert any((r.last_error or "").startswith(ABANDONED) for r in rows), "the kill found no send in flight"
    for pid in {r.identity_id for r in rows}:
        mine = decided([r for r in rows if r.identity_id == pid])
        address = t.person_address(pid)
        if address.startswith("+"):
            check_order(mine, [m["body"] for m in tw.messages(address)])
        else:
            check_order(mine, [m["text"] for m in tg.sent(int(address))])
    # Bursts to the group went merged: eight joins, eight votes and the host's moves each in a few.
    assert len(_group_spans(t, tg, {"svc.joined"})) <= 5
    assert len(_group_spans(t, tg, {"day.vote", "svc.deadline_moved"})) <= 6
    group_rows = [r for r in rows if r.identity_id == t.person(GROUP).id and r.status == "sent"]
    assert len(tg.sent(int(GROUP))) < len(group_rows) / 2
