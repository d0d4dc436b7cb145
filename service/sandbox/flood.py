"""Telegram's flood limits as the stand-in answers them: for the whole bot, per private chat (a
token bucket: a short burst, then one a second) and per group (20 a minute); a send over any of
them is refused with a ``retry_after``, and a chat once refused stays refused until it has passed."""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from typing import Any

Window = tuple[int, float]  # at most `count` sends in any `seconds`


@dataclass(frozen=True)
class Bucket:
    """At most `burst` sends at once from rest, then one every `interval` seconds (a token bucket)."""

    burst: int
    interval: float


Limit = Window | Bucket


@dataclass
class TelegramLimits:
    """Telegram's flood limits (see the module docstring); `flood_wait`: a chat refused once is
    refused until its `retry_after` has passed, as Telegram does."""

    bot: list[Limit] = field(default_factory=lambda: [(30, 1.0)])
    private: list[Limit] = field(default_factory=lambda: [Bucket(3, 1.0)])
    group: list[Limit] = field(default_factory=lambda: [(20, 60.0)])
    flood_wait: bool = True


class Flood:
    """The counts behind ``TelegramLimits``: who sent when, per limit and chat."""

    def __init__(self, limits: TelegramLimits) -> None:
        self.limits = limits
        self._stamps: dict[Any, deque[float]] = {}
        self._tats: dict[Any, float] = {}  # a bucket's theoretical arrival time (GCRA), per key
        self._held: dict[Any, float] = {}  # key -> until when Telegram holds it to its retry_after

    def take(self, kind: str, chat_id: int, now: float) -> int:
        """0 if a send to the chat ``chat_id`` (``private`` or ``group``) is allowed at ``now`` (and
        counted), else Telegram's retry_after in seconds."""
        checks: list[tuple[Any, Limit]] = [("bot", w) for w in self.limits.bot]
        checks += [((kind, chat_id), w) for w in getattr(self.limits, kind)]
        waits: dict[Any, float] = {}
        refused: set[Any] = set()  # keys a limit refuses now (not only a hold still running)
        for key, limit in checks:
            if (held := self._held.get(key, 0.0) - now) > 1e-9:
                waits[key] = max(waits.get(key, 0.0), held)
            if isinstance(limit, Bucket):
                start = max(self._tats.get((key, limit), now), now)
                wait = start + limit.interval - limit.burst * limit.interval - now
            else:
                count, seconds = limit
                stamps = self._stamps.setdefault((key, seconds), deque())
                while stamps and stamps[0] <= now - seconds:
                    stamps.popleft()
                wait = stamps[-count] + seconds - now if len(stamps) >= count else 0.0
            if wait > 1e-9:
                waits[key] = max(waits.get(key, 0.0), wait)
                refused.add(key)
        if waits:
            retry_after = max(1, math.ceil(max(waits.values()) - 1e-9))
            if self.limits.flood_wait:  # a hold once given is kept, not lengthened by the sends it refuses
                for key in refused - {"bot"} - {k for k in waits if self._held.get(k, 0.0) - now > 1e-9}:
                    self._held[key] = now + math.ceil(waits[key] - 1e-9)
            return retry_after
        for key, limit in checks:
            if isinstance(limit, Bucket):
                self._tats[(key, limit)] = max(self._tats.get((key, limit), now), now) + limit.interval
            else:
                self._stamps[(key, limit[1])].append(now)
        return 0
