from __future__ import annotations

from .conftest import Harness

NAMES = ["ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal"]


def test_lobby_to_start(h: Harness) -> None:
    out = h.say("host", "new night 10h")
    assert "created" in out[0], out
    code = h.game().code
    for n in NAMES:
        h.say(n, f"join {code} {n}")
    out = h.say("host", "start")
    print(out)
    h.deliver()
    for who, msgs in h.channel.sent.items():
        print(who, msgs)
    assert h.game().status == "running"
