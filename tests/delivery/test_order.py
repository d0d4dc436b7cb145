"""Per chat, strictly in order, and a group's queued texts merged: the dispatch tasks as the worker
runs them (``simulated``), the product's limits on a clock that skips the waits, recording senders."""

from __future__ import annotations

import itertools
from typing import Any, cast

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine
from sqlmodel import col, select

from service.channels.recording import RecordingSender
from service.channels.sms import TWILIO_MAX
from service.delivery.senders import SendResult
from service.delivery.wiring import DEFAULT_POLICY
from service.game.context import Ctx
from service.store.db import transaction
from service.store.models import Identity, Outbox, utcnow
from service.store.unit import unit_of

from .mixed import GROUP, Mixed, check_order, decided
from .simulated import FlowingClock, Tasks

_NUMBERS = itertools.count(1_000_000)


def _senders() -> dict[str, RecordingSender]:
    return {"telegram": RecordingSender("telegram"), "sms": RecordingSender("sms")}


def _rows(t: Mixed, address: str) -> list[Outbox]:
    pid = t.person(address).id
    return decided([r for r in t.rows() if r.identity_id == pid])


def _check_every_chat(t: Mixed, senders: dict[str, RecordingSender]) -> None:
    for sender in senders.values():
        for address in {c.address for c in sender.delivered}:
            check_order(_rows(t, address), sender.texts(address))


def test_a_burst_of_votes_and_a_deadline_move_reach_the_group_in_order(lite: Engine) -> None:
    t = Mixed(lite, FlowingClock())
    senders = _senders()
    tasks = Tasks(t, senders, DEFAULT_POLICY)
    t.begin()
    tasks.run()
    for wolf in t.wolves():
        t.say_as(wolf, f"kill {next(p for p in t.alive() if p not in t.wolves())}")
        tasks.due()
    t.close()
    tasks.run()
    for voter in t.alive():  # within a second, each command's task run as it commits
        t.say_as(voter, f"vote {t.wolves()[0]}")
        tasks.due()
    t.say_as("host", "extend 1h", in_group=True)
    tasks.due()
    tasks.busy(5)  # the worker closes another game's phase meanwhile
    tasks.run()
    group = senders["telegram"].texts(GROUP)
    assert any("Tally" in m for m in group) and "moved the deadline" in group[-1]
    _check_every_chat(t, senders)


def test_an_sms_players_start_text_comes_before_the_dawn(lite: Engine) -> None:
    t = Mixed(lite, FlowingClock())
    senders = _senders()
    gus = t.addr["gus"]
    tasks = Tasks(t, senders, DEFAULT_POLICY)
    t.lobby()
    tasks.run()
    senders["sms"].script[gus] = [SendResult.transient("503 Service Unavailable")] * 2  # a short Twilio outage
    t.say_as("host", "start", in_group=True)
    tasks.run(25, until_drained=False)  # the start text to gus backs off: 10 s, then 20 s
    for wolf in t.wolves():
        t.say_as(wolf, f"kill {next(p for p in t.alive() if p not in t.wolves())}")
        tasks.due()
    t.close()  # night 1 ends (the game's clock passes its deadline)
    tasks.run()
    received = senders["sms"].texts(gus)[1:]  # after his "joined"
    assert "card" in received[0] and any("Dawn" in m for m in received[1:]), received
    _check_every_chat(t, senders)


def test_thirty_joins_reach_the_group_in_a_few_merged_messages(lite: Engine) -> None:
    t = Mixed(lite, FlowingClock())
    senders = _senders()
    tasks = Tasks(t, senders, DEFAULT_POLICY)
    t.say_as("host", "/start")
    t.say_as("host", "new", in_group=True)
    code = t.game().code
    tasks.run()
    before = len(senders["telegram"].texts(GROUP))
    for n in range(30):  # within a second or two, each command's task run as it commits
        t.svc.handle_inbound("telegram", str(2000 + n), f"j{n}", f"join {code} P{n}", chat=GROUP)
        tasks.due()
    took = tasks.run()
    group = senders["telegram"].texts(GROUP)[before:]
    assert len(group) <= 5 and "(30 players)" in group[-1], group
    assert took < 15, took
    _check_every_chat(t, senders)


def test_a_long_summary_leaves_an_sms_readers_texts_in_their_order(lite: Engine) -> None:
    # A 1,500-character day message: each SMS reader's close of the nominations (his summary, the
    # ballot, his options) still reaches him in that order, whatever merging and splitting made of it.
    t = Mixed(lite, FlowingClock())
    senders = _senders()
    tasks = Tasks(t, senders, DEFAULT_POLICY)
    t.begin()
    for wolf in t.wolves():
        t.say_as(wolf, f"kill {next(p for p in t.alive() if p not in t.wolves())}")
    t.close()
    tasks.run()
    talker = next(p for p in t.alive() if t.channel(p) == "telegram")
    t.say_as(talker, "I think " + "that the wolf is among us and " * 51)
    t.close()
    tasks.run()
    suspects = t.state().suspects  # type: ignore[attr-defined]
    readers = [p for p in t.alive() if t.channel(p) == "sms" and p not in suspects]
    assert readers
    for reader in readers:
        stream = "\n".join(senders["sms"].texts(t.addr[reader]))
        square, ballot, reply = (stream.rfind(w) for w in ("Town square", "Secret ballot", "Reply: vote"))
        assert 0 <= square < ballot < reply, stream[-600:]
    _check_every_chat(t, senders)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lengths=st.lists(st.integers(1, 1_000), min_size=1, max_size=8), written=st.integers(0, 8))
# The case that matters, named: the first two merge, the third would pass Twilio's limit.
@example(lengths=[1_490, 90, 40], written=8)
@example(lengths=[1_490, 90, 40], written=1)
def test_an_sms_text_left_out_of_a_merge_goes_after_it(lite: Engine, lengths: list[int], written: int) -> None:
    # What one command writes to an SMS reader goes as few texts as fit (Ctx.merge_texts); a text that
    # fits no merge must still go after the merged text before it, whose row is written later than
    # its own: whether its row was only staged or already written when the merge came.
    with transaction(lite) as s:
        person = Identity(channel="sms", address=f"+39333{next(_NUMBERS)}")
        s.add(person)
        s.flush()
        ctx = Ctx(session=s, svc=cast("Any", None), now=utcnow())
        texts = [f"{i}:" + "x" * n for i, n in enumerate(lengths)]
        for i, text in enumerate(texts):
            if i == written:
                unit_of(s).at_commit()  # the rows staged so far written, as a read of the outbox would
            ctx.send(person, "test", text, f"p{person.id}:d{i}")
        ctx.merge_texts()
        with unit_of(s).reading(Outbox):
            sent = s.exec(
                select(Outbox)
                .where(Outbox.identity_id == person.id, Outbox.status == "pending")
                .order_by(col(Outbox.id))
            ).all()
    assert "\n".join(r.text for r in sent) == "\n".join(texts)
    assert all(len(r.text) <= TWILIO_MAX or "\n" not in r.text for r in sent)
