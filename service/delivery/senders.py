"""The one small interface every outbound channel sits behind, and a recording fake for tests.

A sender makes one attempt and says how it went; it never sleeps, retries or loops. What to do next
(defer, back off, mark the recipient unreachable) is the worker's decision, made in one place.

`dedup_key` names the outbox row the text comes from. Neither Telegram's sendMessage nor Twilio's
Messages API deduplicates on a client key, so a send that crashed after the platform accepted it can
reach the player once more; the key goes into logs and into Twilio's status callback URL, so the
service can reconcile, and the recording fake keeps it, so tests can count copies per outbox row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol


class SendStatus(StrEnum):
    SENT = "sent"
    RETRY_AFTER = "retry_after"  # the platform's rate limit: try again after `retry_after` seconds
    TRANSIENT = "transient"  # network, timeouts, 5xx, a misconfigured token: back off and retry
    PERMANENT = "permanent"  # this recipient cannot be reached: retrying the same send is pointless


class PermanentReason(StrEnum):
    BLOCKED = "blocked"  # the user blocked the bot, never opened it, or the bot left the group
    OPTED_OUT = "opted_out"  # the number texted STOP (Twilio error 21610)
    NOT_FOUND = "not_found"  # no such chat, a deactivated account, an invalid phone number
    REJECTED = "rejected"  # the platform refuses this text itself (too long, bad markup)


@dataclass(frozen=True)
class Button:
    """An inline button: `data` comes back in a callback query; `url` opens a link instead."""

    text: str
    data: str | None = None
    url: str | None = None

    def __post_init__(self) -> None:
        if (self.data is None) == (self.url is None):
            raise ValueError("a button has either data or a url")


Keyboard = Sequence[Sequence[Button]]


@dataclass(frozen=True)
class SendResult:
    status: SendStatus
    message_id: str | None = None
    retry_after: float | None = None
    reason: PermanentReason | None = None
    error: str | None = None
    # Telegram moved a group to a new (supergroup) id: the text went there; store the new address.
    new_address: str | None = None

    @classmethod
    def sent(cls, message_id: str | None = None, *, new_address: str | None = None) -> SendResult:
        return cls(SendStatus.SENT, message_id=message_id, new_address=new_address)

    @classmethod
    def retry(cls, seconds: float, error: str | None = None) -> SendResult:
        return cls(SendStatus.RETRY_AFTER, retry_after=max(0.0, float(seconds)), error=error)

    @classmethod
    def transient(cls, error: str) -> SendResult:
        return cls(SendStatus.TRANSIENT, error=error)

    @classmethod
    def permanent(cls, reason: PermanentReason, error: str | None = None) -> SendResult:
        return cls(SendStatus.PERMANENT, reason=reason, error=error)

    @property
    def ok(self) -> bool:
        return self.status is SendStatus.SENT


class Sender(Protocol):
    channel: str  # the name of its channel (`Channel.name`): the limiter's and the player's

    def cost(self, text: str) -> int:
        """What sending `text` spends of the rate limit: 1 message, or its SMS segments."""
        ...

    def send(self, address: str, text: str, *, buttons: Keyboard | None = None, dedup_key: str) -> SendResult:
        """One attempt to deliver `text` to `address` (a Telegram chat id, an E.164 number)."""
        ...

    def close(self) -> None:
        """Release connections (and threads); the sender may not be used afterwards."""
        ...


KEYBOARD = "keyboard"
"""The act that replaces the keyboard under a message sent before (Telegram's editMessageReplyMarkup),
to show a choice made by tapping or take stale buttons away; the row's text is a JSON object: the
chat, the message id and the new rows of buttons (none: the keyboard goes)."""


class ChatActor(Protocol):
    """A sender that can also act on a chat (Telegram: mute a member of a group, edit a keyboard)."""

    def act(self, address: str, action: str, chat: str, *, dedup_key: str) -> SendResult:
        """One attempt at ``action`` (``mute``, ``unmute``) on the member ``address`` in ``chat``."""
        ...


def perform(sender: Sender, address: str, action: str, chat: str, dedup_key: str) -> SendResult:
    """An outbox row that is an act, not a text: through the sender's ``act`` if it has one. A
    channel that cannot do it refuses the row (and only the row)."""
    act = getattr(sender, "act", None)
    if act is None:
        return SendResult.permanent(PermanentReason.REJECTED, f"{sender.channel} cannot {action}")
    result: SendResult = act(address, action, chat, dedup_key=dedup_key)
    return result
