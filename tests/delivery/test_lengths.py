"""No text fails for its length: one longer than its platform takes (Twilio 1,600 characters, error
21617; Telegram 4,096) goes as consecutive parts, in order, and a part the platform took is never
sent again, whether the next one met an error or the worker died sending it."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from service.channels.recording import RecordingSender
from service.channels.sms import TWILIO_MAX
from service.channels.sms.sender import TwilioSender
from service.delivery.dispatch import Report, deliver
from service.delivery.limiter import MemoryLimiter, Rate, Rule
from service.delivery.rows import ABANDONED, begin, claim, settle
from service.delivery.senders import SendResult
from service.delivery.wiring import DEFAULT_POLICY
from service.sandbox.fake_twilio import FakeTwilio
from service.store.db import transaction
from service.store.models import Identity, Outbox, utcnow

from .mixed import Mixed, check_order, decided
from .simulated import FlowingClock, Tasks

_FREE = Rate(10_000, 1.0, burst=10_000)
UNLIMITED = {k: [Rule("channel", _FREE), Rule("address", _FREE)] for k in DEFAULT_POLICY}
TO = "+393330001122"
PARAGRAPH = "Dan says the wolf is among us, and that whoever votes last tonight knows more than he says. "


def _queue(db: Engine, channel: str, address: str, *texts: str, buttons: Any = None, on: int = -1) -> list[int]:
    """Rows for one new reader; ``buttons`` on the text at index ``on``."""
    with transaction(db) as s:
        person = Identity(channel=channel, address=address)
        s.add(person)
        s.flush()
        assert person.id is not None
        rows = [
            Outbox(
                identity_id=person.id,
                channel=channel,
                key="test",
                text=text,
                dedup_key=f"t{i}:{address}",
                buttons=buttons if i == on % len(texts) else None,
            )
            for i, text in enumerate(texts)
        ]
        s.add_all(rows)
        s.flush()
        return [r.id for r in rows if r.id is not None]


def _rows(db: Engine) -> list[Outbox]:
    with Session(db) as s:
        return list(s.exec(select(Outbox).order_by(col(Outbox.id))))


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _deliver(db: Engine, senders: dict[str, Any], **kw: Any) -> Report:
    return deliver(db, senders, MemoryLimiter(UNLIMITED), budget=10, **kw)


def test_an_sms_over_twilios_limit_goes_in_parts_in_order(lite: Engine, fake_twilio: FakeTwilio) -> None:
    long = "\n\n".join(PARAGRAPH * 3 for _ in range(14))  # about 4,000 characters
    assert len(long) > 2 * TWILIO_MAX
    _queue(lite, "sms", TO, long, "Day 2: vote until Wed 18:00.")
    sms = TwilioSender(
        fake_twilio.account_sid,
        fake_twilio.auth_token,
        from_number="+15005550006",
        api_url=fake_twilio.url,  # type: ignore[attr-defined]
    )
    try:
        report = _deliver(lite, {"sms": sms})
    finally:
        sms.close()
    bodies = [m["body"] for m in fake_twilio.messages(TO)]
    assert len(bodies) == 4 and report.messages == 4 and report.sent == 2
    assert all(len(b) <= TWILIO_MAX for b in bodies)
    assert _squash("".join(bodies[:3])) == _squash(long) and bodies[3].startswith("Day 2")
    assert not [c for c in fake_twilio.calls() if c.status != 201]  # no 21617
    assert {r.status for r in _rows(lite)} == {"sent"}


def test_a_part_the_platform_took_is_not_sent_again_after_an_error(lite: Engine) -> None:
    long = " ".join([PARAGRAPH] * 45)  # three parts
    _queue(lite, "sms", TO, long)
    sender = RecordingSender("sms", script={TO: [SendResult.sent("p1"), SendResult.transient("503")]})
    _deliver(lite, {"sms": sender})
    (row,) = _rows(lite)
    assert (row.status, row.parts_sent, row.attempts) == ("pending", 1, 1)
    _deliver(lite, {"sms": sender}, clock=lambda: utcnow() + timedelta(minutes=5))
    assert [c.result.ok for c in sender.calls] == [True, False, True, True]
    assert [c.text for c in sender.calls][2] == [c.text for c in sender.calls][1]  # the refused part, again
    assert _squash("".join(sender.texts(TO))) == _squash(long)
    (row,) = _rows(lite)
    assert row.status == "sent"
    assert {c.dedup_key for c in sender.delivered} == {row.dedup_key}  # each part names its row (Twilio's callback)


def test_a_worker_that_dies_half_way_sends_again_only_the_part_in_flight(lite: Engine) -> None:
    long = " ".join([PARAGRAPH] * 45)
    _queue(lite, "sms", TO, long)
    (row,) = claim(lite, utcnow(), ["sms"], lease=60)
    begin(lite, [row])
    settle(lite, [row], parts_sent=1, sent_at=None)  # part 1 went
    begin(lite, [row])  # part 2 in flight, and the worker dies
    with transaction(lite) as s:
        held = s.get(Outbox, row.id)
        assert held is not None
        held.not_before -= timedelta(minutes=5)  # its lease runs out
        s.add(held)
    sender = RecordingSender("sms")
    _deliver(lite, {"sms": sender})
    assert len(sender.delivered) == 2  # part 2 (maybe a copy: the platform may have it) and part 3
    (done,) = _rows(lite)
    assert done.status == "sent" and (done.last_error or "").startswith(ABANDONED)


def test_a_telegram_text_over_4096_goes_in_parts_with_its_buttons_under_the_last(lite: Engine) -> None:
    long = "\n".join([PARAGRAPH] * 100)  # about 9,300 characters
    _queue(
        lite,
        "telegram",
        "-300",
        "Lobby: 3 players.",
        long,
        "Day 2.",
        "Night 2.",
        buttons=[[{"text": "ok", "data": "x"}]],
        on=1,
    )
    sender = RecordingSender("telegram")
    _deliver(lite, {"telegram": sender})
    calls = sender.calls
    assert len(calls) == 5 and all(len(c.text) <= 4096 for c in calls)
    assert calls[0].text == "Lobby: 3 players." and calls[-1].text == "Day 2.\n\nNight 2."  # a part goes alone
    assert [c.buttons is not None for c in calls] == [False, False, False, True, False]
    assert _squash("".join(c.text for c in calls[1:4])) == _squash(long)
    assert {r.status for r in _rows(lite)} == {"sent"}


def test_a_4000_character_talk_leaves_every_sms_player_his_phase_summary(lite: Engine, fake_twilio: FakeTwilio) -> None:
    t = Mixed(lite, FlowingClock())
    sms = TwilioSender(
        fake_twilio.account_sid,
        fake_twilio.auth_token,
        from_number="+15005550006",
        api_url=fake_twilio.url,  # type: ignore[attr-defined]
    )
    senders: dict[str, Any] = {"telegram": RecordingSender("telegram"), "sms": sms}
    tasks = Tasks(t, senders, DEFAULT_POLICY)
    try:
        t.begin()
        for wolf in t.wolves():
            t.say_as(wolf, f"kill {next(p for p in t.alive() if p not in t.wolves())}")
        t.close()
        tasks.run()
        talker = next(p for p in t.alive() if t.channel(p) == "telegram")
        t.say_as(talker, " ".join([PARAGRAPH] * 42)[:3900])
        t.close()
        tasks.run()
    finally:
        sms.close()
    assert not t.rows("failed")
    assert not [c for c in fake_twilio.calls() if c.status != 201]
    for name in (p for p in t.alive() if t.channel(p) == "sms"):
        pid = t.person(t.addr[name]).id
        bodies = [m["body"] for m in fake_twilio.messages(t.addr[name])]
        assert any("Town square" in b for b in bodies) and "ballot" in "".join(bodies).lower()  # its line, either form
        check_order(decided([r for r in t.rows() if r.identity_id == pid]), bodies)
