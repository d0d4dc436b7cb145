"""One error hierarchy. Every error carries a reason a player can read, and a key and
parameters so that the service can say the same in the player's language."""

from __future__ import annotations

from typing import Any


class LupusError(Exception):
    """Base of the engine's errors."""

    def __init__(self, key: str, reason: str, **params: Any) -> None:
        super().__init__(reason)
        self.key = key
        self.reason = reason
        self.params = params

    def __str__(self) -> str:
        return self.reason


class IllegalAction(LupusError):
    """The action cannot be played now; nothing changed."""


class InvalidSetup(LupusError):
    """The game cannot be created as asked (wrong player count, a deck that does not fit...)."""
