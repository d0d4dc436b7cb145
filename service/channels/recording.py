"""A sender that delivers nothing and records everything, for tests and benchmarks: it charges each
text as its channel's real sender would (``Channel.cost``), so the limiter meets the same costs."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from service.channels import channel as channel_of
from service.delivery.senders import Button, Keyboard, PermanentReason, SendResult


@dataclass(frozen=True)
class Sent:
    """One call of a `RecordingSender`, whatever its result."""

    address: str
    text: str
    buttons: tuple[tuple[Button, ...], ...] | None
    dedup_key: str
    result: SendResult


@dataclass
class RecordingSender:
    """A sender that delivers nothing and records everything. Results can be scripted per address:
    `blocked` addresses answer permanent(blocked); `script[address]` is a queue of results that are
    returned (and consumed) before the default, which is success."""

    channel: str = "telegram"
    calls: list[Sent] = field(default_factory=list)
    blocked: dict[str, PermanentReason] = field(default_factory=dict)
    script: dict[str, list[SendResult]] = field(default_factory=dict)
    closed: bool = False

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._next_id = 0

    def cost(self, text: str) -> int:
        return channel_of(self.channel).cost(text)

    def send(self, address: str, text: str, *, buttons: Keyboard | None = None, dedup_key: str) -> SendResult:
        if self.closed:
            raise RuntimeError("sender is closed")
        with self._lock:
            queue = self.script.get(address)
            if queue:
                result = queue.pop(0)
            elif address in self.blocked:
                result = SendResult.permanent(self.blocked[address])
            else:
                self._next_id += 1
                result = SendResult.sent(str(self._next_id))
            frozen = tuple(tuple(row) for row in buttons) if buttons is not None else None
            self.calls.append(Sent(address, text, frozen, dedup_key, result))
            return result

    def act(self, address: str, action: str, chat: str, *, dedup_key: str) -> SendResult:
        """Recorded as a call whose text is ``action chat`` (``mute -100123``)."""
        return self.send(address, f"{action} {chat}", dedup_key=dedup_key)

    def close(self) -> None:
        self.closed = True

    @property
    def delivered(self) -> list[Sent]:
        """The calls that reached the recipient, in order."""
        return [c for c in self.calls if c.result.ok]

    def texts(self, address: str) -> list[str]:
        return [c.text for c in self.delivered if c.address == address]

    def copies(self) -> dict[str, int]:
        """How many times each dedup key was delivered: exactly-once tests want all ones."""
        out: dict[str, int] = {}
        for c in self.delivered:
            out[c.dedup_key] = out.get(c.dedup_key, 0) + 1
        return out
