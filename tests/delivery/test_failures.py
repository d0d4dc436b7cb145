"""A text that fails for good though its reader is reachable is an error in the log, is told to the
hosts of its game in their language (once, never to the reader it failed for, never with what it
said), and is listed for the sandbox page; a reader who blocked the bot is a warning."""

from __future__ import annotations

from typing import Any

import pytest
import structlog
from sqlalchemy import Engine
from sqlmodel import Session

from service.channels.recording import RecordingSender
from service.delivery.dispatch import Report, deliver
from service.delivery.limiter import MemoryLimiter, Rate, Rule
from service.delivery.senders import PermanentReason, SendResult
from service.delivery.wiring import DEFAULT_POLICY
from service.game.failures import recent, tell_hosts_lost
from service.store.models import Identity

from .mixed import GROUP, HOST, Mixed
from .simulated import FlowingClock

_FREE = Rate(10_000, 1.0, burst=10_000)
UNLIMITED = {k: [Rule("channel", _FREE), Rule("address", _FREE)] for k in DEFAULT_POLICY}
TOLD = {"en": "could not be delivered", "it": "non è stato consegnato", "es": "no se pudo entregar"}


def _work(t: Mixed, senders: dict[str, RecordingSender], **kw: Any) -> Report:
    """What the worker's dispatch task does with a report, until nothing is left to send."""
    total = Report()
    while True:
        report = deliver(t.db, senders, MemoryLimiter(UNLIMITED), clock=t.clock, budget=10, **kw)
        if report.lost:
            tell_hosts_lost(t.svc, report.lost)
        total.lost += report.lost
        if not report.sent and not report.lost:
            return total


def _language(t: Mixed, address: str, lang: str) -> None:
    with Session(t.db) as s:
        person = t.person(address)
        person.language = lang
        s.add(person)
        s.commit()


def _senders() -> dict[str, RecordingSender]:
    return {"telegram": RecordingSender("telegram"), "sms": RecordingSender("sms")}


@pytest.mark.parametrize("lang", ["en", "it", "es"])
def test_a_refused_text_is_an_error_and_the_host_is_told_in_his_language(lite: Engine, lang: str) -> None:
    t = Mixed(lite, FlowingClock())
    t.begin()
    _language(t, HOST, lang)
    senders = _senders()
    _work(t, senders)
    fay = t.addr["fay"]
    senders["sms"].script[fay] = [
        SendResult.permanent(
            PermanentReason.REJECTED, "21617: The concatenated message body exceeds the 1600 character limit."
        )
    ]
    t.say_as("fay", "status")
    with structlog.testing.capture_logs() as logs:
        report = _work(t, senders)
    (lost,) = report.lost
    errors = [e for e in logs if e["log_level"] == "error"]
    assert [e["event"] for e in errors] == ["outbox.failed"] and errors[0]["id"] == lost
    told = [m for m in senders["telegram"].texts(HOST) if TOLD[lang] in m]
    assert len(told) == 1 and "fay" in told[0] and f"#{t.game().code}" in told[0]
    assert not any(TOLD["en"] in m for m in senders["sms"].texts(fay))  # not told to the one it failed for
    tell_hosts_lost(t.svc, report.lost)  # a dispatch reporting it twice: told once
    _work(t, senders)
    assert len([m for m in senders["telegram"].texts(HOST) if TOLD[lang] in m]) == 1
    (listed, *_) = recent(t.db)
    assert (listed.id, listed.channel, listed.address, listed.game) == (lost, "sms", fay, t.game().code)
    assert "21617" in listed.error


def test_a_text_to_the_group_that_never_goes_is_told_as_the_groups(lite: Engine) -> None:
    t = Mixed(lite, FlowingClock(), OUTBOX_MAX_ATTEMPTS=2)
    t.begin()
    senders = _senders()
    _work(t, senders)
    senders["telegram"].script[GROUP] = [SendResult.transient("502 Bad Gateway")] * 2
    t.say_as("host", "extend 1h", in_group=True)
    _work(t, senders, max_attempts=2)
    t.advance(hours=1)
    report = _work(t, senders, max_attempts=2)
    assert len(report.lost) == 1
    told = [m for m in senders["telegram"].texts(HOST) if "group could not be delivered" in m]
    assert len(told) == 1 and "could not be reached" in told[0]


def test_a_hosts_own_refused_text_is_not_told_to_himself(lite: Engine) -> None:
    t = Mixed(lite, FlowingClock())
    t.begin()
    senders = _senders()
    _work(t, senders)
    senders["telegram"].script[HOST] = [SendResult.permanent(PermanentReason.REJECTED, "Bad Request: can't parse")]
    t.say_as("host", "status")
    report = _work(t, senders)
    assert len(report.lost) == 1
    assert not any(TOLD["en"] in m for s in senders.values() for c in s.delivered for m in [c.text])


def test_a_reader_who_blocked_the_bot_is_a_warning_not_an_error(lite: Engine) -> None:
    t = Mixed(lite, FlowingClock())
    t.begin()
    senders = _senders()
    senders["telegram"].blocked[t.addr["ann"]] = PermanentReason.BLOCKED
    with structlog.testing.capture_logs() as logs:
        report = deliver(t.db, senders, MemoryLimiter(UNLIMITED), clock=t.clock, budget=10)
    assert report.unreachable and not report.lost
    assert [e["log_level"] for e in logs if e["event"] == "outbox.unreachable"] == ["warning"]
    assert not [e for e in logs if e["log_level"] == "error"]
    with Session(t.db) as s:
        ann = s.get(Identity, t.person(t.addr["ann"]).id)
        assert ann is not None and ann.unreachable
