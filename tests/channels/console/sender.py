"""The console's sender: it "prints" each text to its user's screen (a list of lines per user)."""

from __future__ import annotations

from collections import defaultdict

from service.delivery.senders import Keyboard, SendResult

from . import NAME


class ConsoleSender:
    channel = NAME

    def __init__(self) -> None:
        self.screens: dict[str, list[str]] = defaultdict(list)
        self.texts: dict[str, list[str]] = defaultdict(list)
        self.closed = False

    def cost(self, text: str) -> int:
        return 1

    def send(self, address: str, text: str, *, buttons: Keyboard | None = None, dedup_key: str) -> SendResult:
        if self.closed:
            raise RuntimeError("sender is closed")
        assert buttons is None, "a console has no buttons"
        self.texts[address].append(text)
        self.screens[address].extend(text.split("\n"))
        return SendResult.sent(f"{address}:{len(self.texts[address])}")

    def close(self) -> None:
        self.closed = True
