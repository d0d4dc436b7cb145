"""A host is never told that he himself let phases pass: a host who plays has the player's warning."""

from __future__ import annotations

from .conftest import HOST, NAMES, Table, everyone_but


def test_a_host_who_plays_is_warned_as_a_player_and_never_told_about_himself(lite: Table) -> None:
    lite.say(HOST, "new night 1h nominations 1h ballot 1h")
    code = lite.game().code
    lite.addr["zed"] = HOST
    for n in [*NAMES[:7], "zed"]:
        lite.say(lite.addr[n], f"join {code} {n}")
    lite.say(HOST, "cohost bob")
    lite.say(HOST, "start")
    host = lite.person(HOST).id
    cohost = lite.person(lite.addr["bob"]).id
    for _ in range(12):
        if lite.game().status != "running" or "zed" not in lite.state().alive:  # type: ignore[attr-defined]
            break
        everyone_but(lite, "zed")
        lite.advance(hours=2)
        lite.svc.close_phase(lite.game().id or 0, lite.game().phase_no)
        if any(r.key == "svc.inactive.host" and "zed" in r.text for r in lite.rows()):
            break
    rows = lite.rows()
    assert any(r.key == "svc.inactive.warn" and r.identity_id == host for r in rows)
    about_him = [r for r in rows if r.key == "svc.inactive.host" and "zed" in r.text]
    assert about_him and {r.identity_id for r in about_him} == {cohost}, [(r.identity_id, r.text) for r in about_him]
