from __future__ import annotations

import pytest

from service.channels.recording import RecordingSender
from service.delivery.senders import Button, PermanentReason, SendResult, SendStatus


def test_records_every_call_and_counts_copies():
    s = RecordingSender()
    s.script["7"] = [SendResult.retry(3), SendResult.transient("boom")]
    s.blocked["9"] = PermanentReason.BLOCKED
    assert s.send("7", "a", dedup_key="k1").status is SendStatus.RETRY_AFTER
    assert s.send("7", "a", dedup_key="k1").status is SendStatus.TRANSIENT
    assert s.send("7", "a", buttons=[[Button("B", data="b")]], dedup_key="k1").ok
    assert s.send("9", "b", dedup_key="k2").reason is PermanentReason.BLOCKED
    assert s.send("8", "c", dedup_key="k3").ok
    assert s.send("8", "c", dedup_key="k3").ok
    assert len(s.calls) == 6
    assert s.copies() == {"k1": 1, "k3": 2}
    assert s.texts("7") == ["a"] and s.delivered[0].buttons == ((Button("B", data="b"),),)
    s.close()
    with pytest.raises(RuntimeError):
        s.send("7", "a", dedup_key="x")


def test_sms_recording_costs_segments_and_buttons_need_one_target():
    assert RecordingSender(channel="sms").cost("x" * 161) == 2
    assert RecordingSender().cost("x" * 161) == 1
    with pytest.raises(ValueError):
        Button("x")
    with pytest.raises(ValueError):
        Button("x", data="a", url="https://b")
