"""A table of eight in a Telegram group, five players on Telegram and three by SMS, played through the
service; and what the order tests check a chat received against: the outbox rows of that chat, in
the order the service decided them (their ids)."""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Callable, Sequence
from typing import Any

import engine
from service.delivery.rows import ABANDONED
from service.store.models import Outbox
from tests.worker.conftest import NAMES, Table

GROUP = "-500"
HOST = "100"
SMS_NAMES = ("fay", "gus", "hal")


class Mixed(Table):
    """``Table`` with the game in the group ``GROUP``: the host (``HOST``, Telegram) moderates
    from it, ann..eve play on Telegram and read the group, fay, gus and hal play by SMS. With
    ``host_plays``, ann is the host instead (``say_as("host", ...)`` is her), and nobody moderates."""

    def __init__(self, *args: Any, seed: int = 1, host_plays: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.svc.random_bits = random.Random(seed).getrandbits  # the same deal every run
        self._n = itertools.count(1)
        for i, name in enumerate(SMS_NAMES):
            self.addr[name] = f"+3933300000{i}"
        self.addr["host"] = self.addr["ann"] if host_plays else HOST

    def channel(self, name: str) -> str:
        return "sms" if name in SMS_NAMES else "telegram"

    def say_as(self, name: str, text: str, in_group: bool = False) -> list[str]:
        address = self.addr[name]
        channel = "telegram" if name == "host" else self.channel(name)
        return self.svc.handle_inbound(channel, address, f"m{next(self._n)}", text, chat=GROUP if in_group else None)

    def lobby(self) -> str:
        self.say_as("host", "/start")
        self.say_as("host", "new", in_group=True)
        code = self.game().code
        for name in NAMES:
            if self.channel(name) == "telegram":
                if self.addr[name] != self.addr["host"]:
                    self.say_as(name, "/start")
                self.say_as(name, f"join {code} {name}", in_group=True)
            else:
                self.say_as(name, f"join {code} {name}")
        return code

    def begin(self) -> str:
        code = self.lobby()
        self.say_as("host", "start", in_group=True)
        assert self.game().status == "running"
        return code

    def wolves(self) -> list[str]:
        state = self.state()
        return [p for p in state.players if p in state.alive and state.roles[p].value == "werewolf"]  # type: ignore[attr-defined]

    def alive(self) -> list[str]:
        state = self.state()
        return [p for p in state.players if p in state.alive]  # type: ignore[attr-defined]

    def phase(self) -> engine.Phase:
        return self.state().phase

    def close(self) -> None:
        """The deadline passes on the game's clock and the phase closes (as the sweep would)."""
        game = self.game()
        assert game.deadline is not None and game.id is not None
        self.clock.now = max(self.clock.now, game.deadline)
        assert self.svc.close_phase(game.id, game.phase_no)


def decided(rows: Sequence[Outbox]) -> list[Outbox]:
    """The rows of one chat that were sent, in the order the service decided them: by id, but a
    text that carries several of an SMS reader's (``Ctx.merge_texts``, written after them) stands
    where the first of them stood."""
    parts = {r.dedup_key[:120] + ":sms": r.id for r in rows if r.status == "merged"}

    def place(r: Outbox) -> float:
        first = parts.get(r.dedup_key) if r.dedup_key.endswith(":sms") else None
        return float(first if first is not None else r.id or 0) + (0.5 if first is not None else 0.0)

    return sorted((r for r in rows if r.status == "sent"), key=place)


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def check_order(
    rows: Sequence[Outbox], received: Sequence[str], repeat: Callable[[Outbox], bool] | None = None
) -> list[tuple[int, int]]:
    """What one chat received is its rows' texts, in their order, each once: several rows may come
    merged in one message and one row in several parts (split at its platform's limit), and only a
    row the dispatcher found abandoned while sending (``ABANDONED``: a worker died during its HTTP
    call) may arrive a second time, right where the resend of what was in flight begins. Compared
    without white space, which merging and splitting add and remove at the joins. Returns, for each
    message, the first and the last of the rows it carries (indices into ``rows``)."""
    again = repeat or (lambda r: (r.last_error or "").startswith(ABANDONED))
    texts = [_squash(r.text) for r in rows]
    starts = list(itertools.accumulate((len(t) for t in texts), initial=0))
    stream = "".join(texts)

    def row_at(offset: int) -> int:
        return next(i for i in range(len(rows)) if starts[i + 1] > offset)

    spans: list[tuple[int, int]] = []
    pos = 0
    for n, message in enumerate(received):
        body = _squash(message)
        if body and stream.startswith(body, pos):
            spans.append((row_at(pos), row_at(pos + len(body) - 1)))
            pos += len(body)
            continue
        # A copy: it starts among the rows that end at ``pos``, every one of them abandoned.
        at = -1
        if body and pos > 0:
            first = row_at(pos - 1)
            if again(rows[first]):
                while first > 0 and again(rows[first - 1]):
                    first -= 1
                at = stream.find(body, starts[first])
        if at < 0 or at >= pos:
            raise AssertionError(
                f"message {n} is out of order, lost its way or foreign: {message!r}\n"
                f"expected next: {stream[pos : pos + 160]!r}"
            )
        spans.append((row_at(at), row_at(at + len(body) - 1)))
        pos = max(pos, at + len(body))
    assert pos == len(stream), f"never received: {stream[pos : pos + 200]!r}"
    return spans
