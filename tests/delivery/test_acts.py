"""Outbox rows that are acts on a chat (mute a Ghost), not texts: through the sender's ``act``;
a channel without acts refuses the row alone."""

from __future__ import annotations

from service.channels.recording import RecordingSender
from service.delivery.senders import PermanentReason, SendStatus, perform


class TextsOnly:
    channel = "sms"

    def cost(self, text: str) -> int:
        return 1

    def send(self, address: str, text: str, *, buttons: object = None, dedup_key: str) -> object:
        raise AssertionError("an act must never go out as a text")

    def close(self) -> None:
        return None


def test_an_act_goes_through_act_and_a_channel_without_acts_refuses_it() -> None:
    rec = RecordingSender()
    assert perform(rec, "42", "mute", "-1001", "k1").ok
    assert [(c.address, c.text, c.dedup_key) for c in rec.calls] == [("42", "mute -1001", "k1")]
    refused = perform(TextsOnly(), "+3933", "mute", "-1001", "k2")  # type: ignore[arg-type]
    assert refused.status is SendStatus.PERMANENT and refused.reason is PermanentReason.REJECTED
