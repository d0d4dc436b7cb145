"""Per chat, strictly in order, and a group's queued texts merged: the dispatch tasks as the worker
runs them (``simulated``), the product's limits on a clock that skips the waits, recording senders."""

from __future__ import annotations

from sqlalchemy import Engine

from service.delivery.limiter import DEFAULT_POLICY
from service.delivery.senders import RecordingSender, SendResult
from service.models import Outbox

from .mixed import GROUP, Mixed, check_order, decided
from .simulated import FlowingClock, Tasks


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
    # The day's talk makes the summary nearly all of an SMS: it goes merged with the texts after it
    # that fit, and the one that does not fit comes after them, not before.
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
        last = senders["sms"].texts(t.addr[reader])[-2:]
        assert "Ballot" in last[0] and last[1].startswith("Reply: vote"), last
    _check_every_chat(t, senders)
