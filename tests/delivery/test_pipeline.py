"""One process keeps the bot's slots busy however long the platform takes to answer: sends overlap
(one at a time per chat, so each chat stays in order), and a task asked for a few rows goes on with
whatever else is due (``fill``) instead of ending after a chat or two (issue 31: 17.8 texts a second
where the bot may send 30; bench/capacity)."""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import Engine

from service.channels.recording import RecordingSender
from service.delivery.dispatch import deliver
from service.delivery.limiter import MemoryLimiter
from service.delivery.senders import SendResult
from service.delivery.wiring import DEFAULT_POLICY
from service.settings import TELEGRAM_PER_SECOND

from .test_lengths import UNLIMITED, _queue, _rows

LATENCY = 0.1  # seconds Telegram takes to answer, as from a dyno


class Distant(RecordingSender):
    """Telegram answering ``LATENCY`` seconds after each call."""

    def __init__(self) -> None:
        super().__init__("telegram")
        self.at: list[float] = []  # when each call was made

    def send(self, address: str, text: str, **kw: Any) -> SendResult:
        self.at.append(time.monotonic())
        time.sleep(LATENCY)
        return super().send(address, text, **kw)


def test_one_process_sends_near_the_bots_rate_though_each_answer_takes_a_tenth_of_a_second(lite: Engine) -> None:
    chats = 84  # three seconds of the bot's rate, one text each (no chat's own limit binds)
    for n in range(chats):
        _queue(lite, "telegram", str(5000 + n), f"Night falls. ({n})")
    sender = Distant()
    report = deliver(lite, {"telegram": sender}, MemoryLimiter(DEFAULT_POLICY), budget=10)
    assert report.sent == chats
    rate = (chats - 1) / (max(sender.at) - min(sender.at))
    # Rounds of eight sends waited for the slowest answer before booking the next: 19 a second.
    assert rate >= 0.9 * TELEGRAM_PER_SECOND, f"{rate:.1f} texts a second"


def test_a_task_asked_for_one_chat_goes_on_with_what_else_is_due(lite: Engine) -> None:
    asked = _queue(lite, "telegram", "6001", "You are the Seer.")
    for n in range(20):
        _queue(lite, "telegram", str(6100 + n), f"Day {n}: vote until 18:00.")
    sender = RecordingSender("telegram")
    alone = deliver(lite, {"telegram": sender}, MemoryLimiter(UNLIMITED), ids=asked, budget=2)
    assert alone.sent == 1  # as asked: only that chat
    again = _queue(lite, "telegram", "6002", "You are a Werewolf.")
    filled = deliver(lite, {"telegram": sender}, MemoryLimiter(UNLIMITED), ids=again, budget=2, fill=True)
    assert filled.sent == 21 and {r.status for r in _rows(lite)} == {"sent"}
