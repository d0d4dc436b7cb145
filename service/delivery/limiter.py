"""One rate limiter for the whole deployment, however many worker processes send.

Why a small Lua script and not the `limits` library: every Telegram send must pass two limits at once
(the bot's ~30 a second and the chat's own), and `limits` checks each limit with its own call, so a
send refused by the bot limit would still have spent the chat's budget (or, testing first and hitting
after, two processes could both pass). Its strategies are also "N per window" only, with no separate
burst: a private chat needs "1 a second, a short burst tolerated". The script below is the GCRA form
of a token bucket (one timestamp per key), checks every key of a send and charges all or none, in one
atomic step on the Redis server's clock, so processes on different machines agree.

A GCRA with sustained rate r and burst b lets through at most about b + r*W sends in any window of W
seconds; each channel sets its rules so that this stays under what its platform enforces (Telegram's
in `service.channels.telegram`, Twilio's in `service.channels.sms`).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

Scope = Literal["channel", "address"]


@dataclass(frozen=True)
class Rate:
    """`count` sends per `per` seconds sustained, with up to `burst` at once from rest."""

    count: float
    per: float
    burst: int = 1

    def __post_init__(self) -> None:
        if self.count <= 0 or self.per <= 0 or self.burst < 1:
            raise ValueError(f"bad rate {self!r}")

    @property
    def interval(self) -> float:
        return self.per / self.count


@dataclass(frozen=True)
class Rule:
    """One limit of a send: shared by the whole channel (the bot, the sender number) or per address."""

    scope: Scope
    rate: Rate


Policy = Mapping[tuple[str, str], Sequence[Rule]]
"""The rules of each (channel, chat kind): what each registered channel says of its own
(``Channel.rules``), put together by ``service.delivery.wiring.make_policy``."""

REBOOK_WITHIN = 3600.0  # seconds: how far ahead `rebook` may place a slot (in effect, always granted)


class Limiter(Protocol):
    def try_acquire(self, channel: str, chat_kind: str, address: str, cost: int = 1) -> float:
        """Charge one send of `cost` units (SMS segments) if every limit allows it now and return 0;
        else charge nothing and return the seconds to wait before trying again. Never blocks."""
        ...

    def reserve(
        self, channel: str, chat_kind: str, address: str, cost: int = 1, within: float = 0.0
    ) -> tuple[bool, float]:
        """Like `try_acquire`, but a send may also be granted a slot up to `within` seconds from now:
        (True, seconds until the slot) with the slot charged, or (False, seconds to wait before
        asking again) with nothing charged. The caller sends at the slot, not before."""
        ...

    def rebook(self, channel: str, chat_kind: str, address: str, cost: int = 1) -> float:
        """A send woke up too late for the slot `reserve` gave it: sent now, it would land among the
        sends booked after that slot and crowd the platform's window. It takes the next free slot of
        the channel-wide limits instead (always granted; its chat's own limit was charged already):
        returns the seconds until that slot. The slot it missed stays unused."""
        ...

    def penalize(self, channel: str, chat_kind: str, address: str, seconds: float) -> None:
        """The platform said "retry after `seconds`" for this address: hold its sends until then."""
        ...


class _Base:
    def __init__(self, policy: Policy, *, channel_ids: Mapping[str, str] | None = None):
        self.policy = policy
        # Whose budget a channel-wide limit is: the bot's id, the sender number. Two deployments
        # sharing a Redis with different bots must not share a budget.
        self.channel_ids = dict(channel_ids or {})

    def try_acquire(self, channel: str, chat_kind: str, address: str, cost: int = 1) -> float:
        granted, wait = self.reserve(channel, chat_kind, address, cost)
        return 0.0 if granted else wait

    def reserve(
        self, channel: str, chat_kind: str, address: str, cost: int = 1, within: float = 0.0
    ) -> tuple[bool, float]:
        return self._book(self._rules(channel, chat_kind, address), cost, within)

    def rebook(self, channel: str, chat_kind: str, address: str, cost: int = 1) -> float:
        return self._book(self._rules(channel, chat_kind, address, channel_only=True), cost, REBOOK_WITHIN)[1]

    def _book(self, rules: list[tuple[str, Rate]], cost: int, within: float) -> tuple[bool, float]:
        """Charge every rule or none (see `gcra`): (granted, seconds)."""
        raise NotImplementedError

    def _rules(self, channel: str, chat_kind: str, address: str, channel_only: bool = False) -> list[tuple[str, Rate]]:
        rules = self.policy.get((channel, chat_kind))
        if rules is None:
            raise ValueError(f"no rate limits for channel {channel!r} and chat kind {chat_kind!r}")
        owner = self.channel_ids.get(channel, "default")
        return [
            (f"{channel}:{owner}" if r.scope == "channel" else f"{channel}:{owner}:{address}", r.rate)
            for r in rules
            if r.scope == "channel" or not channel_only
        ]


def gcra(
    tats: Sequence[float | None], rates: Sequence[Rate], now: float, cost: int, within: float = 0.0
) -> tuple[float, list[float]]:
    """The decision for one send: (seconds to wait, new theoretical arrival times). New times mean
    allowed, at `now` plus the wait (at most `within` seconds from now), and they should be stored;
    no new times: refused, nothing changes, ask again after the wait. A cost above the burst is
    allowed only from a full bucket (so an SMS of 4 segments is not refused for ever)."""
    wait = 0.0
    for tat, rate in zip(tats, rates, strict=True):
        start = now if tat is None else max(tat, now)
        allow_at = start + cost * rate.interval - max(rate.burst, cost) * rate.interval
        wait = max(wait, allow_at - now)
    if wait > within + 1e-9:
        return wait - within, []
    wait = max(0.0, wait) if wait > 1e-9 else 0.0
    at = now + wait  # the slot: every limit is charged from it
    return wait, [
        (at if tat is None else max(tat, at)) + cost * rate.interval for tat, rate in zip(tats, rates, strict=True)
    ]


class MemoryLimiter(_Base):
    """The same limits in this process only: for running without Redis (one worker process)."""

    def __init__(
        self,
        policy: Policy,
        *,
        channel_ids: Mapping[str, str] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        super().__init__(policy, channel_ids=channel_ids)
        self._clock = clock
        self._tats: dict[str, float] = {}
        self._lock = threading.Lock()

    def _book(self, rules: list[tuple[str, Rate]], cost: int, within: float) -> tuple[bool, float]:
        with self._lock:
            now = self._clock()
            wait, new = gcra([self._tats.get(k) for k, _ in rules], [r for _, r in rules], now, cost, within)
            if new:
                self._tats.update(zip((k for k, _ in rules), new, strict=True))
                # Forget keys that are back to rest so a long-lived process does not grow.
                if len(self._tats) > 10_000:
                    self._tats = {k: t for k, t in self._tats.items() if t > now}
            return bool(new), wait

    def penalize(self, channel: str, chat_kind: str, address: str, seconds: float) -> None:
        key, rate = self._rules(channel, chat_kind, address)[-1]
        with self._lock:
            hold = self._clock() + seconds + (rate.burst - 1) * rate.interval
            self._tats[key] = max(self._tats.get(key, hold), hold)


# KEYS: one per rule. ARGV: now in ms ("" = the server's clock), mode, then for acquire: cost, how
# far ahead a slot may be granted in ms, and interval_ms and burst for each key; for penalize: the
# hold in ms, interval_ms and burst. Returns the wait in ms as a string (Lua numbers would be
# truncated to integers on the way out), prefixed with "-" when refused.
_LUA = """
local now
if ARGV[1] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
else
  now = tonumber(ARGV[1])
end
local mode, amount = ARGV[2], tonumber(ARGV[3])
if mode == 'penalize' then
  local interval, burst = tonumber(ARGV[4]), tonumber(ARGV[5])
  local hold = now + amount + (burst - 1) * interval
  local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
  if hold > tat then
    redis.call('SET', KEYS[1], tostring(hold), 'PX', math.ceil(hold - now) + 1000)
  end
  return '0'
end
local within = tonumber(ARGV[4])
local wait, tats = 0, {}
for i, key in ipairs(KEYS) do
  local interval, burst = tonumber(ARGV[3 + 2 * i]), tonumber(ARGV[4 + 2 * i])
  local tat = tonumber(redis.call('GET', key) or '0')
  tats[i] = tat
  if tat < now then tat = now end
  local allow_at = tat + amount * interval - math.max(burst, amount) * interval
  if allow_at - now > wait then wait = allow_at - now end
end
if wait > within + 0.001 then return '-' .. tostring(wait - within) end
if wait <= 0.001 then wait = 0 end
local at = now + wait
for i, key in ipairs(KEYS) do
  local interval = tonumber(ARGV[3 + 2 * i])
  local nxt = math.max(tats[i], at) + amount * interval
  redis.call('SET', key, tostring(nxt), 'PX', math.ceil(nxt - now) + 1000)
end
return tostring(wait)
"""


class RedisLimiter(_Base):
    """The limits shared by every process that uses the same Redis (and key prefix). Redis errors
    propagate: with Redis down the broker is down too, and the task retries as for any outage."""

    def __init__(
        self,
        client: Any,
        policy: Policy,
        *,
        channel_ids: Mapping[str, str] | None = None,
        prefix: str = "lupus:rl",
        clock: Callable[[], float] | None = None,
    ):
        """`client` is a `redis.Redis`. `clock` (seconds) replaces the Redis server's clock: tests only."""
        super().__init__(policy, channel_ids=channel_ids)
        self._redis = client
        self._prefix = prefix
        self._clock = clock
        self._script = client.register_script(_LUA)

    def _now(self) -> str:
        return "" if self._clock is None else repr(self._clock() * 1000)

    def _book(self, rules: list[tuple[str, Rate]], cost: int, within: float) -> tuple[bool, float]:
        if cost < 1:
            raise ValueError("cost must be at least 1")
        args: list[Any] = [self._now(), "acquire", cost, repr(within * 1000)]
        for _, rate in rules:
            args += [repr(rate.interval * 1000), rate.burst]
        out = self._script(keys=[f"{self._prefix}:{k}" for k, _ in rules], args=args)
        text = out.decode() if isinstance(out, bytes) else str(out)
        if text.startswith("-"):
            return False, math.ceil(float(text[1:])) / 1000
        return True, float(text) / 1000

    def penalize(self, channel: str, chat_kind: str, address: str, seconds: float) -> None:
        key, rate = self._rules(channel, chat_kind, address)[-1]
        args = [self._now(), "penalize", repr(seconds * 1000), repr(rate.interval * 1000), rate.burst]
        self._script(keys=[f"{self._prefix}:{key}"], args=args)


def make_limiter(
    redis_url: str | None,
    policy: Policy,
    *,
    channel_ids: Mapping[str, str] | None = None,
    redis_options: Mapping[str, Any] | None = None,
) -> Limiter:
    """The Redis limiter when there is a Redis, else the in-process one. `redis_options` go to
    `redis.Redis.from_url` (e.g. `ssl_cert_reqs="none"` for Heroku's self-signed `rediss://`)."""
    if not redis_url:
        return MemoryLimiter(policy, channel_ids=channel_ids)
    import redis

    client = redis.Redis.from_url(redis_url, **dict(redis_options or {}))
    return RedisLimiter(client, policy, channel_ids=channel_ids)
