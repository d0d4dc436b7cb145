"""A send in flight keeps its row however long it takes (the lease is renewed while it runs), and a
row left in flight by a worker that died goes again once its short lease is over: seconds, not the
minute the lease used to be."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from typing import Any

from sqlalchemy import Engine

from service.channels.recording import RecordingSender
from service.delivery.dispatch import deliver
from service.delivery.limiter import MemoryLimiter
from service.delivery.rows import begin, claim
from service.delivery.senders import SendResult
from service.settings import Settings
from service.store.models import utcnow

from .test_lengths import TO, UNLIMITED, _deliver, _queue, _rows

LEASE = 0.6


class SlowSender(RecordingSender):
    """Takes ``seconds`` for each send, as a platform that answers slowly."""

    def __init__(self, seconds: float) -> None:
        super().__init__("sms")
        self.seconds = seconds
        self.sending = threading.Event()

    def send(self, address: str, text: str, **kw: Any) -> SendResult:
        self.sending.set()
        time.sleep(self.seconds)
        return super().send(address, text, **kw)


def test_a_slow_send_keeps_its_row_past_its_lease_and_nobody_sends_it_twice(lite: Engine) -> None:
    _queue(lite, "sms", TO, "Dawn. Killed: Eve.")
    slow = SlowSender(5 * LEASE)  # five leases long: without renewal the row is free after the first
    other = RecordingSender("sms")
    first = threading.Thread(
        target=deliver, args=(lite, {"sms": slow}, MemoryLimiter(UNLIMITED)), kwargs={"lease": LEASE, "budget": 10}
    )
    first.start()
    assert slow.sending.wait(5)  # its send has begun (else the other would claim the row first)
    deadline = time.monotonic() + 4 * LEASE
    while time.monotonic() < deadline:  # another worker keeps looking while the send runs
        deliver(lite, {"sms": other}, MemoryLimiter(UNLIMITED), lease=LEASE, budget=1)
        time.sleep(LEASE / 4)
    first.join()
    assert other.calls == [] and len(slow.delivered) == 1
    (row,) = _rows(lite)
    assert row.status == "sent"


def test_a_row_a_dead_worker_left_in_flight_goes_again_seconds_later(lite: Engine) -> None:
    _queue(lite, "sms", TO, "Dawn. Killed: Eve.", "Day 1: vote until 18:00.")
    rows = claim(lite, utcnow(), ["sms"], lease=Settings().DISPATCH_LEASE_SECONDS)
    begin(lite, rows[:1], lease=Settings().DISPATCH_LEASE_SECONDS)  # in flight, and the worker dies
    assert Settings().DISPATCH_LEASE_SECONDS <= 10  # the chat waits seconds, not a minute
    survivor = RecordingSender("sms")
    later = Settings().DISPATCH_LEASE_SECONDS + 1
    _deliver(lite, {"sms": survivor}, clock=lambda: utcnow() + timedelta(seconds=later))
    assert survivor.texts(TO) == [], "taken before its lease ran out"
    time.sleep(Settings().DISPATCH_LEASE_SECONDS + 0.2)
    _deliver(lite, {"sms": survivor})
    assert survivor.texts(TO) == ["Dawn. Killed: Eve.", "Day 1: vote until 18:00."]  # in order
