"""Group commit (``Service.handle_inbound_many``): messages committed together act exactly as the
same messages sent one by one, a repeat among them changes nothing, and one that fails costs the
others nothing."""

from __future__ import annotations

import asyncio
import random
import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, text
from sqlmodel import Session, col, select

from service.game import batching, inbound, lobby
from service.game.app import Incoming
from service.store.db import make_engine
from service.store.group_commit import GroupCommit
from service.store.models import Game, GameEvent, Inbound, Outbox
from tests.reliability.texts import hostile_texts

from .conftest import TABLES, Harness
from .play import open_game, start

NAMES = ["ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal"]
WHO = [*NAMES, "host", "newcomer", "stranger"]
SAID = [
    "vote ann",
    "vote bob",
    "vote cat",
    "vote zzz",
    "status",
    "line hello all",
    "help",
    "blorp",
    "kill ann",
    "lang it",
    "join ABCD",
    "players",
    "role",
    "vota dan",
    "vote " + "x" * 300,
    "",
]


def _harness(template: Path, where: Path) -> Harness:
    shutil.copy(template, where)
    return Harness(make_engine(f"sqlite:///{where}"))


def _nominations(h: Harness) -> str:
    code = open_game(h, names=NAMES)
    start(h)
    h.finish_phase()  # the first night passes: the nominations are open
    return code


def _everything(h: Harness) -> dict[str, Any]:
    """What the players could ever see, and what the game is: compared between two databases."""
    with Session(h.db) as s:
        game = s.exec(select(Game).order_by(col(Game.id))).all()
        return {
            "games": [(g.code, g.status, g.phase_no, g.state, g.version, g.deadline) for g in game],
            "outbox": [
                (o.identity_id, o.key, o.text, o.status, o.dedup_key, o.buttons)
                for o in s.exec(select(Outbox).order_by(col(Outbox.id)))
            ],
            "inbound": sorted((i.external_id, i.identity_id, i.text) for i in s.exec(select(Inbound))),
            "events": [
                (e.game_id, e.seq, e.kind, e.key, e.data, e.audience)
                for e in s.exec(select(GameEvent).order_by(col(GameEvent.id)))
            ],
        }


def messages(code: str) -> st.SearchStrategy[list[tuple[str, str, int]]]:
    """Who, what (a move or a question of this game, or anything hostile), and an external id:
    one drawn twice is a repeat delivery (Telegram retrying), whatever its text."""
    said = st.one_of(st.sampled_from(SAID), st.sampled_from(SAID).map(lambda t: f"#{code} {t}"), hostile_texts(code))
    return st.lists(st.tuples(st.sampled_from(WHO), said, st.integers(0, 40)), min_size=1, max_size=40)


chunks = st.lists(st.integers(1, 9), min_size=1, max_size=12)


# No shrinking: an example takes about a second, and shrinking a failure took five minutes; the
# failing example is printed as drawn (at most 40 messages), which is enough to replay it.
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
@given(data=st.data(), sizes=chunks)
def test_a_batch_acts_exactly_like_the_same_messages_one_by_one(
    data: st.DataObject, sizes: list[int], sqlite_template: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    where = tmp_path_factory.mktemp("gc")
    alone, together = _harness(sqlite_template, where / "alone.db"), _harness(sqlite_template, where / "together.db")
    with pytest.MonkeyPatch.context() as mp:  # the same game codes in both, for this game and any new
        mp.setattr(lobby, "secrets", random.Random(7))
        code = _nominations(alone)
        said = data.draw(messages(code))
        incoming = [Incoming("test", who, f"x{n}", text) for who, text, n in said]
        replies_alone = [alone.svc.handle_inbound(m.channel, m.address, m.external_id, m.text) for m in incoming]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(lobby, "secrets", random.Random(7))
        assert _nominations(together) == code
        replies_together: list[Any] = []
        rest, i = list(incoming), 0
        while rest:
            size = sizes[i % len(sizes)]
            replies_together += together.svc.handle_inbound_many(rest[:size])
            rest, i = rest[size:], i + 1
    assert replies_together == replies_alone
    assert _everything(together) == _everything(alone)
    closed = []
    for h in (alone, together):  # and what follows from them is the same too (the messages may have
        deadline = h.game(code).deadline  # opened another game: the nominations' game goes on)
        assert deadline is not None
        h.clock.now = max(h.clock.now, deadline)
        closed.append(h.tick())
    assert closed[0] == closed[1] >= 1
    assert _everything(together) == _everything(alone)
    assert sorted(together.committed) == sorted(alone.committed)


def test_a_repeat_among_a_batch_changes_nothing_and_answers_nothing(h: Harness) -> None:
    code = _nominations(h)
    h.say("ann", f"#{code} vote bob", "first")
    version, rows = h.game().version, len(h.outbox())
    got = h.svc.handle_inbound_many(
        [
            Incoming("test", "ann", "first", f"#{code} vote cat"),
            Incoming("test", "bob", "second", f"#{code} vote ann"),
            Incoming("test", "bob", "second", f"#{code} vote cat"),
        ]
    )
    assert got[0] == [] and got[2] == []
    assert h.game().version == version + 1  # only bob's one vote
    assert len(h.outbox()) > rows
    votes = dict(h.state().votes)  # type: ignore[attr-defined]
    assert votes["ann"] == "bob" and votes["bob"] == "ann"


def test_a_message_that_fails_costs_the_others_nothing(h: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    code = _nominations(h)
    real = inbound.dispatch

    def failing(ctx: Any, p: Any) -> None:
        if ctx.identity.address == "cat":
            raise RuntimeError("a bug in one command")
        real(ctx, p)

    monkeypatch.setattr(inbound, "dispatch", failing)
    version = h.game().version
    committed_before = len(h.committed)
    got = h.svc.handle_inbound_many(
        [
            Incoming("test", "ann", "a1", f"#{code} vote bob"),
            Incoming("test", "cat", "c1", f"#{code} vote bob"),
            Incoming("test", "bob", "b1", f"#{code} vote ann"),
        ]
    )
    assert isinstance(got[1], RuntimeError)
    assert isinstance(got[0], list) and isinstance(got[2], list)
    assert h.game().version == version + 2
    votes = dict(h.state().votes)  # type: ignore[attr-defined]
    assert votes["ann"] == "bob" and votes["bob"] == "ann" and "cat" not in votes
    with Session(h.db) as s:  # cat's message was not logged: Telegram's retry will act on it
        logged = {i.external_id for i in s.exec(select(Inbound))}
    assert {"a1", "b1"} <= logged and "c1" not in logged
    assert len(h.committed) > committed_before
    monkeypatch.setattr(inbound, "dispatch", real)
    assert h.svc.handle_inbound_many([Incoming("test", "cat", "c1", f"#{code} vote bob")]) == [[]]
    assert dict(h.state().votes)["cat"] == "bob"  # type: ignore[attr-defined]


def test_after_commit_hears_of_a_batch_once(h: Harness) -> None:
    code = _nominations(h)
    calls: list[list[int]] = []
    h.svc.after_commit = lambda ids: calls.append(list(ids))
    h.svc.handle_inbound_many([Incoming("test", p, f"v{p}", f"#{code} vote ann") for p in NAMES[1:5]])
    assert len(calls) == 1
    with Session(h.db) as s:
        pending = {o.id for o in s.exec(select(Outbox).where(Outbox.status == "pending"))}
    assert set(calls[0]) <= pending and len(calls[0]) >= 4


@contextmanager
def _holding(db: Engine, code: str) -> Iterator[threading.Event]:
    """Another transaction holds the game's lock (as a worker closing its phase would) until the
    event given is set."""
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with db.connect() as c, c.begin():
            c.execute(text("SELECT id FROM games WHERE code = :c FOR UPDATE"), {"c": code})
            held.set()
            release.wait(20)

    holder = threading.Thread(target=hold)
    holder.start()
    assert held.wait(10)
    try:
        yield release
    finally:
        release.set()
        holder.join()


@pytest.mark.postgres
def test_a_batch_that_waits_on_a_locked_game_runs_one_by_one_instead(
    pg_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    db = make_engine(pg_url)
    with db.begin() as c:
        c.execute(text(f"TRUNCATE {TABLES} RESTART IDENTITY CASCADE"))
    h = Harness(db)
    code = _nominations(h)
    with _holding(db, code) as release, caplog.at_level("INFO", logger="service.game.app"):
        threading.Timer(0.6, release.set).start()
        t0 = time.monotonic()
        got = h.svc.handle_inbound_many(
            [Incoming("test", "ann", "a1", f"#{code} vote bob"), Incoming("test", "bob", "b1", f"#{code} vote ann")]
        )
    assert all(isinstance(r, list) for r in got)
    assert "one by one after OperationalError" in caplog.text
    assert time.monotonic() - t0 >= 0.5  # the one-by-one runs waited for the lock as usual
    votes = dict(h.state().votes)  # type: ignore[attr-defined]
    assert votes["ann"] == "bob" and votes["bob"] == "ann"
    db.dispose()


@pytest.mark.postgres
def test_a_batch_takes_its_games_in_the_order_of_their_ids_so_two_batches_never_lock_in_a_cycle(
    pg_url: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another transaction holds the older game A; a batch names B, then A. Had the batch locked B
    for its first command and then waited for A, a transaction wanting B next (another web
    process's batch, holding A) would wait for it in a cycle. It waits for A before it takes B."""
    db = make_engine(pg_url)
    with db.begin() as c:
        c.execute(text(f"TRUNCATE {TABLES} RESTART IDENTITY CASCADE"))
    h = Harness(db)
    h.say("newcomer", "new")
    older = h.game().code
    code = _nominations(h)
    monkeypatch.setattr(batching, "BATCH_LOCK_WAIT", "20s")  # the test, not the timeout, decides
    got: list[Any] = []
    batch = threading.Thread(
        target=lambda: got.extend(
            h.svc.handle_inbound_many(
                [
                    Incoming("test", "ann", "a1", f"#{code} vote bob"),
                    Incoming("test", "newcomer", "n1", f"#{older} status"),
                ]
            )
        )
    )
    with _holding(db, older) as release_a, caplog.at_level("INFO", logger="service.game.app"):
        batch.start()
        with db.connect() as c:
            end = time.monotonic() + 10
            while not c.execute(
                text(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                    "AND wait_event_type = 'Lock'"
                )
            ).scalar_one():
                assert time.monotonic() < end, "the batch never waited for game A"
                time.sleep(0.02)
            c.rollback()
            with c.begin():  # B is free while the batch waits for A
                c.execute(text("SET LOCAL lock_timeout = '2s'"))
                c.execute(text("SELECT id FROM games WHERE code = :c FOR UPDATE"), {"c": code})
        release_a.set()
        batch.join(20)
    assert len(got) == 2 and all(isinstance(r, list) for r in got), got
    assert "one by one" not in caplog.text
    assert dict(h.state().votes)["ann"] == "bob"  # type: ignore[attr-defined]
    db.dispose()


# -- the web process's side: GroupCommit ------------------------------------------------------------
def test_messages_that_come_while_a_transaction_runs_go_together_in_the_next() -> None:
    batches: list[list[int]] = []
    running, gate = threading.Event(), threading.Event()

    def run_many(messages: list[int]) -> list[int | Exception]:
        batches.append(list(messages))
        if len(batches) == 1:
            running.set()
            gate.wait(5)  # the first transaction is slow: everything else arrives meanwhile
        return [m * 10 if m != 13 else ValueError("thirteen") for m in messages]

    group: GroupCommit[int, int] = GroupCommit(run_many, limit=4)

    async def main() -> list[Any]:
        loop = asyncio.get_running_loop()
        first = asyncio.ensure_future(group(1))
        assert await loop.run_in_executor(None, running.wait, 5)  # its transaction has begun
        rest = [asyncio.ensure_future(group(m)) for m in (2, 3, 13, 5, 6, 7)]
        # Each new task runs up to its wait for a result (joining the queue) before a callback
        # scheduled after them: the loop runs ready callbacks in the order they were scheduled.
        queued = asyncio.Event()
        loop.call_soon(queued.set)
        await queued.wait()
        gate.set()
        return await asyncio.gather(first, *rest, return_exceptions=True)

    got = asyncio.run(main())
    assert batches == [[1], [2, 3, 13, 5], [6, 7]]  # in arrival order, at most `limit` at a time
    assert got[:3] == [10, 20, 30] and got[4:] == [50, 60, 70]
    assert isinstance(got[3], ValueError)  # only the message that failed sees its exception


def test_when_the_whole_run_fails_every_message_in_it_hears_why_and_the_next_ones_still_run() -> None:
    calls = 0

    def run_many(messages: list[str]) -> list[str | Exception]:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise ConnectionError("database gone")
        return [m.upper() for m in messages]

    group: GroupCommit[str, str] = GroupCommit(run_many)

    async def main() -> tuple[list[Any], str]:
        first = await asyncio.gather(group("a"), return_exceptions=True)
        return list(first), await group("b")

    first, second = asyncio.run(main())
    assert isinstance(first[0], ConnectionError) and second == "B"
