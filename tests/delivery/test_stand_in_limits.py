"""The stand-in answers Telegram's flood limits as Telegram does (a private chat's bucket, a group's
minute, the bot's second; 429 with ``retry_after``, then held to it), and the limiter's policy stays
inside them with a margin: the network delays one send more than another, and the platform counts
arrivals, not the slots the limiter gave."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from service.delivery.limiter import MemoryLimiter
from service.delivery.wiring import DEFAULT_POLICY
from service.sandbox.fake_telegram import FakeTelegram, TelegramLimits

from .conftest import TOKEN


class Clock:
    def __init__(self) -> None:
        self.t = 5_000.0

    def __call__(self) -> float:
        return self.t


def _send(fake: FakeTelegram, chat: int, at: float, text: str = "x") -> tuple[int, dict[str, object]]:
    fake.clock = lambda: at
    return fake.handle("sendMessage", {"chat_id": chat, "text": text})


def test_a_private_chat_takes_a_burst_of_three_then_one_a_second() -> None:
    fake = FakeTelegram(TOKEN)
    assert [_send(fake, 42, 0.0)[0] for _ in range(3)] == [200] * 3
    status, body = _send(fake, 42, 0.9)  # a fourth before the bucket has a text's worth again
    assert status == 429 and body["parameters"] == {"retry_after": 1}
    assert body["description"] == "Too Many Requests: retry after 1"
    assert _send(fake, 42, 1.5)[0] == 429  # held to its retry_after (0.9 + 1 s), refill or not
    assert _send(fake, 43, 1.5)[0] == 200  # another chat is not held
    assert _send(fake, 42, 1.9)[0] == 200  # the bucket refilled meanwhile: two now
    assert _send(fake, 42, 2.0)[0] == 200
    assert _send(fake, 42, 2.1)[0] == 429  # empty again: one a second from here
    assert _send(fake, 42, 3.1)[0] == 200


def test_a_group_takes_twenty_a_minute_and_the_bot_thirty_a_second() -> None:
    fake = FakeTelegram(TOKEN)
    assert [_send(fake, -7, i * 0.5)[0] for i in range(20)] == [200] * 20
    status, body = _send(fake, -7, 10.0)
    assert status == 429 and body["parameters"] == {"retry_after": 50}
    fake = FakeTelegram(TOKEN)
    answers = [_send(fake, 1000 + i, 0.5)[0] for i in range(31)]
    assert answers.count(200) == 30 and answers[-1] == 429
    assert _send(fake, 2000, 1.2)[0] == 429  # the bot's window: a second
    assert _send(fake, 1030, 1.5)[0] == 200  # refused for the bot's limit, the chat itself is not held


def test_without_flood_wait_only_the_limits_refuse() -> None:
    fake = FakeTelegram(TOKEN, limits=TelegramLimits(flood_wait=False))
    assert [_send(fake, 42, 0.0)[0] for _ in range(4)] == [200, 200, 200, 429]
    assert _send(fake, 42, 1.0)[0] == 200


Delay = Callable[[int, bool], float]


def _play(kind: str, chat: int, sends: int, delay: Delay) -> int:
    """``sends`` texts to one chat, each at the slot the default policy gives it (the limiter's own
    clock) and arriving ``delay(i, first_of_burst)`` seconds later; the 429s the stand-in answers."""
    clock = Clock()
    limiter = MemoryLimiter(DEFAULT_POLICY, clock=clock)
    arrivals: list[float] = []
    last = None
    for i in range(sends):
        while (wait := limiter.try_acquire("telegram", kind, str(chat))) > 0:
            clock.t += wait
        arrivals.append(clock.t + delay(i, last is None or clock.t - last > 0.5))
        last = clock.t
    fake = FakeTelegram(TOKEN, limits=TelegramLimits(flood_wait=False))
    return sum(_send(fake, chat, at)[0] == 429 for at in sorted(arrivals))


@pytest.mark.parametrize("late", [0.0, 0.05, 0.3, 0.6])
def test_a_chat_is_never_refused_when_the_first_of_a_burst_arrive_late(late: float) -> None:
    # The 429s: a burst's texts delayed on the way (a busy worker, a slow connection) and
    # the next one on time land closer together than the limiter spaced them.
    assert _play("private", 42, 12, lambda i, first: late if i < 3 else 0.0) == 0
    assert _play("group", -7, 40, lambda i, first: late if i < 3 else 0.0) == 0


@pytest.mark.parametrize("seed", range(5))
def test_a_chat_is_never_refused_with_random_delays_up_to_half_a_second(seed: int) -> None:
    rnd = random.Random(seed)
    assert _play("private", 42, 30, lambda i, first: rnd.uniform(0, 0.5)) == 0
    assert _play("group", -7, 45, lambda i, first: rnd.uniform(0, 0.5)) == 0
