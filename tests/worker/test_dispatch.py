"""The dispatch domain function, in process: exactly once, in order per chat, within the limits,
and what each kind of failure does (the real worker runs it in test_worker.py)."""

from __future__ import annotations

import time
from datetime import timedelta

from sqlmodel import Session

from service.channels.recording import RecordingSender
from service.delivery.dispatch import LATE, _at, deliver
from service.delivery.limiter import MemoryLimiter, Rate, Rule
from service.delivery.rows import ABANDONED, begin, claim
from service.delivery.senders import PermanentReason, SendResult
from service.delivery.wiring import DEFAULT_POLICY
from service.game.reminders import tell_hosts_unreachable
from service.store.models import Outbox

from .conftest import HOST, Table

# Limits no test here reaches, except the one about limits: waiting out real ones would be slow.
_FREE = Rate(10_000, 1.0, burst=10_000)
UNLIMITED = {k: [Rule("channel", _FREE), Rule("address", _FREE)] for k in DEFAULT_POLICY}


def _deliver(t: Table, sender: RecordingSender, limiter: MemoryLimiter | None = None, **kw: object):
    return deliver(
        t.db,
        {"telegram": sender},
        limiter or MemoryLimiter(UNLIMITED),
        clock=t.clock,
        on_unreachable=lambda i, r, g: tell_hosts_unreachable(t.svc, i, r.value, g),
        **kw,  # type: ignore[arg-type]
    )


def test_every_row_is_sent_once_in_order_per_chat(table: Table) -> None:
    table.open()
    sender = RecordingSender()
    report = _deliver(table, sender, budget=30)
    rows = table.rows()
    assert rows and all(r.status == "sent" for r in rows), {r.status for r in rows}
    assert report.sent == len(rows)
    assert set(sender.copies().values()) == {1} and len(sender.copies()) == len(rows)
    for address in {c.address for c in sender.calls}:  # each chat got its rows in outbox order
        keys = [c.dedup_key for c in sender.calls if c.address == address]
        by_key = {r.dedup_key: r.id for r in rows if r.id is not None}
        assert [by_key[k] for k in keys] == sorted(by_key[k] for k in keys)
    assert _deliver(table, sender).sent == 0  # nothing twice


def test_retry_after_defers_the_chat_and_those_behind_it(lite: Table) -> None:
    lite.open()
    ann = lite.addr["ann"]
    sender = RecordingSender(script={ann: [SendResult.retry(30)]})
    report = _deliver(lite, sender, budget=30)
    mine = [r for r in lite.rows() if r.identity_id == lite.person(ann).id]
    assert len(mine) >= 2 and all(r.status == "pending" for r in mine)
    assert all(r.not_before >= lite.clock.now + timedelta(seconds=29) for r in mine)
    assert all(r.attempts == 0 for r in mine)  # waiting for a rate limit is not a failed attempt
    assert report.deferred and 29 < (report.soonest() or 0) <= 30
    others = [r for r in lite.rows() if r.identity_id != lite.person(ann).id]
    assert all(r.status == "sent" for r in others)
    lite.advance(seconds=31)
    _deliver(lite, sender, budget=30)
    assert all(r.status == "sent" for r in lite.rows())
    assert [c.address for c in sender.calls].count(ann) == len(mine) + 1  # the refused one, once more


def test_transient_errors_back_off_then_give_up(lite: Table) -> None:
    lite.say(HOST, "help")
    sender = RecordingSender(script={HOST: [SendResult.transient("503")] * 3})
    _deliver(lite, sender, max_attempts=3)
    (row,) = lite.rows()
    assert (row.status, row.attempts, row.last_error) == ("pending", 1, "503")
    assert row.not_before > lite.clock.now + timedelta(seconds=9)
    for _ in range(2):
        lite.advance(hours=1)
        _deliver(lite, sender, max_attempts=3)
    (row,) = lite.rows()
    assert (row.status, row.attempts) == ("failed", 3)
    assert sender.delivered == []


def test_a_blocked_player_is_marked_and_the_host_told(lite: Table) -> None:
    lite.open()
    ann = lite.addr["ann"]
    sender = RecordingSender(blocked={ann: PermanentReason.BLOCKED})
    report = _deliver(lite, sender, budget=30)
    assert lite.person(ann).unreachable
    assert report.unreachable and report.unreachable[0][1] == "blocked"
    assert all(r.status == "failed" for r in lite.rows() if r.identity_id == lite.person(ann).id)
    _deliver(lite, sender)
    told = sender.texts(HOST)
    assert any("ann" in text and "blocked" in text for text in told), told
    assert sum(1 for c in sender.calls if c.address == ann) == 1  # one refusal, then nothing more


def test_an_opted_out_number_is_marked_opted_out(lite: Table) -> None:
    lite.open()
    bob = lite.addr["bob"]
    sender = RecordingSender(blocked={bob: PermanentReason.OPTED_OUT})
    _deliver(lite, sender, budget=30)
    person = lite.person(bob)
    assert person.opted_out and not person.unreachable
    _deliver(lite, sender)
    assert any("bob" in text and "STOP" in text for text in sender.texts(HOST))


def _lease_over(t: Table, outbox_id: int) -> None:
    """The wall clock passes the row's lease (its worker died minutes ago)."""
    with Session(t.db) as s:
        held = s.get(Outbox, outbox_id)
        assert held is not None and held.status == "sending"
        held.not_before -= timedelta(minutes=5)
        s.add(held)
        s.commit()


def test_rows_a_dead_worker_only_reserved_are_sent_once_with_no_note(lite: Table) -> None:
    lite.say(HOST, "help")
    sender = RecordingSender()
    (reserved,) = claim(lite.db, lite.clock(), ["telegram"], lease=60)  # a worker died before sending
    assert claim(lite.db, lite.clock(), ["telegram"]) == []  # reserved: nobody else takes it
    lite.advance(seconds=61)
    assert claim(lite.db, lite.clock(), ["telegram"]) == []  # the game's clock moved, the wall's did not
    _lease_over(lite, reserved.id)
    _deliver(lite, sender)
    (row,) = lite.rows()
    assert row.status == "sent" and len(sender.delivered) == 1
    assert row.last_error is None  # it never went out before: no copy to warn about
    # The dead worker's reservation is stale: were it to wake up, it could not begin the send.
    assert begin(lite.db, [reserved]) == set()


def test_a_send_abandoned_half_way_is_sent_once_more_and_no_more(lite: Table) -> None:
    lite.say(HOST, "help")
    sender = RecordingSender()
    (crashed,) = claim(lite.db, lite.clock(), ["telegram"], lease=60)
    assert begin(lite.db, [crashed], lease=60) == {crashed.id}  # a worker died during the HTTP call
    lite.advance(seconds=61)
    assert claim(lite.db, lite.clock(), ["telegram"]) == []  # in flight, by the wall clock
    _lease_over(lite, crashed.id)
    _deliver(lite, sender)
    (row,) = lite.rows()
    assert row.status == "sent" and len(sender.delivered) == 1
    assert (row.last_error or "").startswith(ABANDONED)  # kept: the player may have it twice
    # A second crash of the same row, in flight again: it is not sent a third time.
    with Session(lite.db) as s:
        again = s.get(Outbox, crashed.id)
        assert again is not None
        again.status, again.last_error, again.sent_at = "sending", f"{ABANDONED} (attempt 1)", lite.clock()
        again.not_before = lite.clock()
        s.add(again)
        s.commit()
    _lease_over(lite, crashed.id)
    _deliver(lite, sender)
    (row,) = lite.rows()
    assert row.status == "failed" and len(sender.delivered) == 1


def test_a_crash_mid_pass_leaves_one_send_in_doubt_not_the_whole_claim(lite: Table) -> None:
    lite.open()
    sender = RecordingSender()
    rows = claim(lite.db, lite.clock(), ["telegram"], lease=60)  # the pass reserved many rows
    assert len(rows) > 3
    begin(lite.db, rows[:1], lease=60)  # and died sending the first
    for r in rows:
        _lease_over(lite, r.id)
    _deliver(lite, sender, budget=30)
    assert all(r.status == "sent" for r in lite.rows())
    noted = [r.id for r in lite.rows() if (r.last_error or "").startswith(ABANDONED)]
    assert noted == [rows[0].id]
    assert set(sender.copies().values()) == {1}


def test_queued_group_texts_go_out_merged(lite: Table) -> None:
    for i in range(5):
        lite.svc.handle_inbound("telegram", "-500", f"g{i}", "help")
    sender = RecordingSender()
    report = _deliver(lite, sender)
    assert report.sent == 5 and report.messages == 1
    (call,) = sender.calls
    assert call.address == "-500" and call.text.count("\n\n") == 4


def test_the_limiter_holds_a_chat_without_holding_the_others(lite: Table) -> None:
    for _ in range(6):
        lite.say(HOST, "help")
    lite.say("200", "help")
    sender = RecordingSender()
    policy = {("telegram", "private"): [Rule("channel", Rate(30, 1.0, burst=30)), Rule("address", Rate(1, 1.0, 3))]}
    frozen = MemoryLimiter(policy, clock=lambda: 1000.0)  # time stands still: only the bursts may go
    report = _deliver(lite, sender, frozen, budget=0)  # one pass: nothing waits in memory
    assert len(sender.texts("200")) == 1  # the other chat was not held up
    assert len(sender.texts(HOST)) == 3  # a private chat's burst, then the rest deferred
    assert sorted(report.deferred) == [r.id for r in lite.rows("pending")]
    assert len(report.deferred) == 3


def test_rows_no_sender_can_send_are_not_asked_for_again_and_again(lite: Table) -> None:
    # Telegram rows asked for by a process whose Telegram is off (no token): the task that asked
    # must not come back for them every second for ever; the outbox sweep is there for them.
    lite.open()
    ids = [r.id for r in lite.rows("pending") if r.id is not None]
    assert ids
    for senders in ({}, {"sms": RecordingSender()}):
        report = deliver(lite.db, senders, MemoryLimiter(UNLIMITED), clock=lite.clock, ids=ids)
        assert report.sent == 0 and not report.deferred
    assert {r.status for r in lite.rows()} == {"pending"}


def test_a_send_that_wakes_up_late_for_its_slot_takes_the_next_free_one() -> None:
    # A stalled thread must not send among the sends booked after its slot (they would overfill
    # the platform's one-second window together): it asks for a new slot and sends then.
    calls: list[float] = []
    booked: list[float] = []

    def rebook() -> float:
        booked.append(time.monotonic())
        return 0.05

    def send() -> SendResult:
        calls.append(time.monotonic())
        return SendResult.sent()

    on_time = time.monotonic() + 0.02
    assert _at(on_time, rebook, send).ok and not booked and calls[0] >= on_time
    missed = time.monotonic() - 2 * LATE
    assert _at(missed, rebook, send).ok
    assert len(booked) == 1 and calls[1] >= booked[0] + 0.05
