"""The limiter's default policy against the stand-in's Telegram windows, with real HTTP and threads
standing for worker processes: everything arrives once and Telegram never has to say 429."""

from __future__ import annotations

import queue
import threading
import time

import pytest
import redis

from service.channels.telegram.sender import TelegramSender
from service.delivery.limiter import RedisLimiter
from service.delivery.senders import SendStatus
from service.delivery.wiring import DEFAULT_POLICY

from .conftest import REDIS_URL, TOKEN


@pytest.mark.redis
def test_default_limits_keep_the_stand_in_from_saying_429(fake_telegram, redis_db):
    # Five messages to each of eight private chats and three to a group, as at a dawn.
    work: queue.Queue[tuple[str, str, str]] = queue.Queue()
    for n in range(5):
        for chat in range(8):
            work.put((str(500 + chat), "private", f"{chat}:{n}"))
    for n in range(3):
        work.put(("-900", "group", f"g:{n}"))
    problems: list[str] = []

    def worker() -> None:
        # Each thread has its own limiter object and sender: the shared state is Redis's only.
        limiter = RedisLimiter(redis.Redis.from_url(REDIS_URL), DEFAULT_POLICY, prefix="t429:rl")
        sender = TelegramSender(TOKEN, api_url=fake_telegram.url)
        while True:
            try:
                address, kind, text = work.get_nowait()
            except queue.Empty:
                break
            while (wait := limiter.try_acquire("telegram", kind, address)) > 0:
                time.sleep(min(wait, 0.5))
            result = sender.send(address, text, dedup_key=text)
            if result.status is not SendStatus.SENT:
                problems.append(f"{text}: {result}")
        sender.close()

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert problems == []
    assert fake_telegram.rejected(429) == 0
    texts = sorted(m["text"] for m in fake_telegram.sent())
    assert texts == sorted([f"{c}:{n}" for c in range(8) for n in range(5)] + [f"g:{n}" for n in range(3)])
