"""The global rate limiter: the same GCRA in memory and in Redis, checked on a controlled clock."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

import pytest

from service.delivery.limiter import MemoryLimiter, Policy, Rate, RedisLimiter, Rule, make_limiter
from service.delivery.wiring import DEFAULT_POLICY, make_policy
from service.settings import Settings

from .conftest import REDIS_URL


class Clock:
    def __init__(self) -> None:
        self.t = 1_000_000.0

    def __call__(self) -> float:
        return self.t


@dataclass
class Limiters:
    """A factory of limiters of one ``kind`` on one shared clock; two Redis limiters share one
    budget (as two worker processes do), two memory limiters do not (they are per process)."""

    request: pytest.FixtureRequest
    kind: str
    clock: Clock = field(default_factory=Clock)

    def __call__(self, policy: Any = DEFAULT_POLICY, **kw: Any) -> MemoryLimiter | RedisLimiter:
        if self.kind == "memory":
            return MemoryLimiter(policy, clock=self.clock, **kw)
        return RedisLimiter(self.request.getfixturevalue("redis_db"), policy, clock=self.clock, **kw)


@pytest.fixture(params=["memory", "redis"])
def make(request: pytest.FixtureRequest) -> Limiters:
    return Limiters(request, request.param)


def grants(limiter, n, *args, clock=None, step=0.0, **kw):
    """How many of `n` attempts are granted, `step` seconds apart."""
    granted = 0
    for _ in range(n):
        granted += limiter.try_acquire(*args, **kw) == 0
        if clock is not None:
            clock.t += step
    return granted


def with_settings(**settings: Any) -> Policy:
    """The registered channels' limits with these settings, the others at their defaults."""
    return make_policy(Settings.model_construct(**settings))


BOT_GAP = 1 / 28 + 0.001  # enough for the bot-wide limit, far too little for a chat's


def test_a_private_chat_gets_its_burst_then_one_a_second(make):
    # A burst of 2, one under Telegram's 3: see the Telegram channel's rules.
    lim, clock = make(), make.clock
    t0 = clock.t
    assert grants(lim, 10, "telegram", "private", "42", clock=clock, step=BOT_GAP) == 2
    wait = lim.try_acquire("telegram", "private", "42")
    assert wait == pytest.approx(t0 + 1.0 - clock.t, abs=0.002)
    clock.t = t0 + 1.0
    assert lim.try_acquire("telegram", "private", "42") == 0
    clock.t += BOT_GAP
    assert lim.try_acquire("telegram", "private", "42") > 0.9
    # Other chats have their own budget.
    assert grants(lim, 10, "telegram", "private", "43", clock=clock, step=BOT_GAP) == 2


def test_the_bot_wide_limit_caps_all_chats_together(make):
    lim = make(with_settings(TELEGRAM_PER_SECOND=30))
    sent = sum(grants(lim, 1, "telegram", "private", str(chat)) for chat in range(100))
    assert sent == 1  # no bot-wide burst: one now, the next after 1/30 s
    for _ in range(30):
        make.clock.t += 1 / 30
        sent += sum(grants(lim, 1, "telegram", "private", str(chat)) for chat in range(100, 200))
    assert sent == 31  # one at t=0 and one per 1/30 s up to t=1, both ends included


def test_a_refused_send_spends_nothing(make):
    lim, clock = make(), make.clock
    assert grants(lim, 2, "telegram", "private", "42", clock=clock, step=BOT_GAP) == 2
    # The chat limit refuses; the bot-wide budget must not have been charged for the refusals.
    for _ in range(50):
        assert lim.try_acquire("telegram", "private", "42") > 0
    assert lim.try_acquire("telegram", "private", "7") == 0
    # And the reverse: the bot-wide limit refuses, the chat keeps its burst.
    assert lim.try_acquire("telegram", "private", "8") > 0
    clock.t += BOT_GAP
    assert grants(lim, 2, "telegram", "private", "8", clock=clock, step=BOT_GAP) == 2


def test_slots_booked_ahead_come_one_after_the_other_and_keep_every_limit(make):
    # Two processes booking up to a quarter second ahead, asking at random moments: every slot of
    # the bot-wide limit is used in turn (none lost while nobody asked), never two closer than it
    # allows, and a chat's own limit holds from the slot it was given.
    lim, clock = make(with_settings(TELEGRAM_PER_SECOND=30)), make.clock
    t0, slots, chats, refused = clock.t, [], [], 0
    # Redis expires its keys by the real clock, a second or so after their last slot: fewer asks
    # there, so that a loaded machine cannot take that long over them.
    asks = 200 if make.kind == "memory" else 40
    for i in range(asks):
        ok, wait = lim.reserve("telegram", "private", str(i % 50), within=0.25)
        if ok:
            assert 0 <= wait <= 0.25 + 1e-3
            slots.append(clock.t + wait)
            chats.append(str(i % 50))
        else:
            refused += 1
            assert wait > 0
        clock.t += 0.013 * (1 + (i * 7919) % 5) / 3  # 4 to 22 ms apart, unevenly
    assert refused and slots == sorted(slots)
    gaps = [b - a for a, b in pairwise(slots)]
    assert min(gaps) >= 1 / 30 - 1e-3 and max(gaps) <= 1 / 30 + 2e-3  # back to back: none lost
    assert len(slots) >= int((clock.t - t0) * 30) - 1
    for chat in set(chats):  # each chat's own: never 3 in a second
        mine = [s for c, s in zip(chats, slots, strict=True) if c == chat]
        assert all(b - a >= 1.0 - 1e-3 for a, b in zip(mine, mine[2:], strict=False))


def test_a_refused_booking_charges_nothing_and_says_when_a_slot_comes_within_reach(make):
    lim, clock = make(with_settings(TELEGRAM_PER_SECOND=10)), make.clock
    assert lim.reserve("telegram", "private", "1", within=0.25) == (True, 0.0)
    assert lim.reserve("telegram", "private", "2", within=0.25) == (True, pytest.approx(0.1, abs=0.002))
    assert lim.reserve("telegram", "private", "3", within=0.25) == (True, pytest.approx(0.2, abs=0.002))
    ok, wait = lim.reserve("telegram", "private", "4", within=0.25)
    assert not ok and wait == pytest.approx(0.05, abs=0.002)  # the slot at 0.3 is within reach at 0.05
    assert lim.try_acquire("telegram", "private", "5") == pytest.approx(0.3, abs=0.002)
    clock.t += 0.05
    assert lim.reserve("telegram", "private", "4", within=0.25) == (True, pytest.approx(0.25, abs=0.002))


def test_groups_stay_within_twenty_a_minute_with_two_to_spare(make):
    lim = make()
    times = []
    t0 = make.clock.t
    while make.clock.t < t0 + 600:
        if lim.try_acquire("telegram", "group", "-100") == 0:
            times.append(make.clock.t)
        make.clock.t += 0.25
    for i, t in enumerate(times):  # any 60-second window [t, t+60)
        assert sum(1 for u in times[i:] if u < t + 60) <= 18
    assert len(times) >= 15 * 10 - 1


def test_sms_is_charged_per_segment_and_a_long_text_is_not_refused_for_ever(make):
    lim = make(channel_ids={"sms": "+15005550006"})
    assert lim.try_acquire("sms", "private", "+391", cost=4) == 0  # from rest: allowed
    assert lim.try_acquire("sms", "private", "+392") == pytest.approx(4.0, abs=0.002)
    make.clock.t += 4
    assert lim.try_acquire("sms", "private", "+392") == 0
    make.clock.t += 0.5
    assert lim.try_acquire("sms", "private", "+393", cost=2) == pytest.approx(0.5, abs=0.002)
    make.clock.t += 0.5
    assert lim.try_acquire("sms", "private", "+393", cost=2) == 0
    assert lim.try_acquire("sms", "private", "+393") == pytest.approx(2.0, abs=0.002)


def test_penalize_holds_the_address(make):
    lim = make()
    lim.penalize("telegram", "private", "42", 5)
    assert lim.try_acquire("telegram", "private", "42") == pytest.approx(5.0, abs=0.002)
    assert lim.try_acquire("telegram", "private", "43") == 0
    make.clock.t += 5
    assert lim.try_acquire("telegram", "private", "42") == 0


def test_unknown_channel_or_kind_is_an_error(make):
    with pytest.raises(ValueError):
        make().try_acquire("fax", "private", "1")
    with pytest.raises(ValueError):
        Rate(0, 1)


@pytest.mark.redis
def test_two_redis_limiters_share_one_budget(redis_db):
    clock = Clock()
    a, b = (RedisLimiter(redis_db, DEFAULT_POLICY, clock=clock) for _ in range(2))
    assert grants(a, 1, "telegram", "private", "42", clock=clock, step=BOT_GAP) == 1
    assert grants(b, 5, "telegram", "private", "42", clock=clock, step=BOT_GAP) == 1
    # Memory limiters, by design, do not share (that is what REDIS_URL is for).
    m1, m2 = MemoryLimiter(DEFAULT_POLICY, clock=clock), MemoryLimiter(DEFAULT_POLICY, clock=clock)
    assert grants(m1, 1, "telegram", "private", "1") + grants(m2, 1, "telegram", "private", "1") == 2


@pytest.mark.redis
def test_redis_limiter_on_the_servers_clock_and_keys_expire(redis_db):
    lim = RedisLimiter(redis_db, {("telegram", "private"): [Rule("address", Rate(1, 1.0, burst=2))]}, prefix="t:rl")
    assert grants(lim, 5, "telegram", "private", "9") == 2
    assert 0.5 < lim.try_acquire("telegram", "private", "9") <= 1.0
    ttl = redis_db.pttl("t:rl:telegram:default:9")
    assert 0 < ttl <= 3000  # keys vanish once the bucket is back to rest


@pytest.mark.redis
def test_make_limiter_picks_by_url(redis_db):
    assert isinstance(make_limiter(None, DEFAULT_POLICY), MemoryLimiter)
    assert isinstance(make_limiter(REDIS_URL, DEFAULT_POLICY), RedisLimiter)


def test_a_send_that_missed_its_slot_takes_the_next_free_one_of_the_bot(make):
    # A send woke up late: its chat was charged already, so only the bot-wide limit is booked again,
    # behind what others booked meanwhile, and always granted however far that is.
    lim, clock = make(with_settings(TELEGRAM_PER_SECOND=10)), make.clock
    assert lim.reserve("telegram", "private", "1", within=0.25) == (True, 0.0)
    assert lim.reserve("telegram", "private", "2", within=0.25) == (True, pytest.approx(0.1, abs=0.002))
    assert lim.rebook("telegram", "private", "1") == pytest.approx(0.2, abs=0.002)
    for _ in range(20):  # far beyond what `reserve` would grant ahead
        lim.rebook("telegram", "private", "1")
    assert lim.rebook("telegram", "private", "1") == pytest.approx(2.3, abs=0.002)
    # Chat 1's own limit was not charged by any of it: one a second with a burst of 2.
    clock.t += 2.4
    assert lim.reserve("telegram", "private", "1", within=0.25)[0]
    assert lim.reserve("telegram", "private", "1", within=0.25)[0]
