"""Volunteer substitutes: a waiting list per running game (``volunteer CODE``, from Telegram or SMS,
in any of the three languages); the first volunteer takes the seat of a player who lets one phase
too many pass (or one a host opens), the character and its secrets staying with the seat."""

from __future__ import annotations

from sqlmodel import Session, col, select

import engine
from service.store.models import Absence, GameEvent, Seat, Volunteer
from service.texts.i18n import role_name

from .conftest import HOST, Table, everyone_but


def sms(t: Table, number: str, text: str) -> list[str]:
    return t.svc.handle_inbound("sms", number, f"sms{number}{len(t.rows())}{text}", text)


def seat_named(t: Table, name: str) -> Seat:
    with Session(t.db) as s:
        seat = s.exec(select(Seat).where(Seat.game_id == t.game().id, Seat.name == name)).one()
        return seat


def waiting(t: Table) -> list[int]:
    with Session(t.db) as s:
        return [v.identity_id for v in s.exec(select(Volunteer).order_by(col(Volunteer.id)))]


def test_a_volunteer_takes_the_seat_of_a_player_who_keeps_letting_phases_pass(table: Table) -> None:
    t = table
    code = t.open("night 1h nominations 1h ballot 1h")
    # Newcomers, each answered in the language of his own word, whatever the game's.
    assert "(1 esperando)" in sms(t, "+393330000001", f"voluntario {code}")[0]  # by SMS, in Spanish
    assert "(2 in attesa)" in t.say("200", f"volontario #{code}")[0]  # on Telegram, in Italian
    newcomer, second = t.person("+393330000001"), t.person("200")
    state = t.state()
    idle = next(p for p in state.players if state.roles[p].value == "seer")  # type: ignore[attr-defined]
    card = state.roles[idle].value  # type: ignore[attr-defined]
    old = t.person(t.addr[idle])
    for _ in range(12):
        if t.game().status != "running" or seat_named(t, idle).identity_id != old.id:
            break
        everyone_but(t, idle)
        t.advance(hours=2)
        assert t.svc.close_phase(t.game().id or 0, t.game().phase_no)
    seat = seat_named(t, idle)
    assert seat.identity_id == newcomer.id and seat.status == "joined"
    keys = [(r.key, r.identity_id) for r in t.rows()]
    host = t.person(HOST).id
    # He was warned once, then his seat went on; the host was told, not asked.
    assert ("svc.inactive.warn", old.id) in keys and ("svc.inactive.replaced", old.id) in keys
    assert ("svc.inactive.substituted", host) in keys and ("svc.inactive.host", host) not in keys
    # The newcomer learned privately whom he plays and his card (from the view function)...
    mine = [r for r in t.rows() if r.identity_id == newcomer.id]
    assert [r.key for r in mine if r.key.startswith("svc.")][:3] == [
        "svc.volunteer.ok",
        "svc.substitute.welcome",
        "svc.role",
    ]
    role_text = next(r.text for r in mine if r.key == "svc.role")
    assert idle in next(r.text for r in mine if r.key == "svc.substitute.welcome")
    assert role_name("es", card) in role_text  # in his language: he wrote "voluntario"
    # ...and only he did; the table was told a substitute took the seat.
    roles = [r for r in t.rows() if r.key == "svc.role"]
    assert [r.identity_id for r in roles] == [newcomer.id]
    told = {r.identity_id for r in t.rows() if r.key == "svc.substituted"}
    assert told >= {t.person(t.addr[n]).id for n in t.addr if n != idle} and newcomer.id not in told
    # The count starts again for him, the list moved on, and he plays the seat.
    with Session(t.db) as s:
        absence = s.get(Absence, seat.id)
        assert absence is not None and absence.misses == 0
    assert waiting(t) == [second.id]
    legal = engine.legal_actions(t.state(), idle)
    if legal and t.game().status == "running":
        sms(t, "+393330000001", legal[0].text())
        with Session(t.db) as s:
            moves = s.exec(select(GameEvent).where(GameEvent.kind == "move")).all()
            assert any(m.data.get("actor") == idle for m in moves)


def test_volunteering_rules_and_a_host_replace_goes_to_the_first_volunteer(lite: Table) -> None:
    t = lite
    assert "volunteer CODE" in t.say("300", "volunteer")[0]
    t.say(HOST, "new")
    code = t.game().code
    assert "not running" in t.say("300", f"volunteer {code}")[0]  # nothing to wait for in the lobby
    for n in t.addr:
        t.say(t.addr[n], f"join {code} {n}")
    t.say(HOST, "start")
    assert "moderate" in t.say(HOST, f"volunteer {code}")[0]  # he read every secret
    assert "already" in t.say(t.addr["ann"], f"volunteer {code}")[0]
    assert t.say("300", "volunteer ZZZZ") == ["There is no game ZZZZ."]
    # On the list and off it again, then on; a number that texted STOP is passed over.
    t.say("300", f"volunteer {code}")
    assert "not on the list" in t.say("300", f"volunteer {code} off")[0] and waiting(t) == []
    sms(t, "+393330000009", f"VOLUNTEER {code}")
    t.svc.handle_inbound("sms", "+393330000009", "stop-1", "STOP", stop=True)  # as the SMS channel hands it on
    t.say("300", f"standby {code}")
    assert waiting(t) == [t.person("+393330000009").id, t.person("300").id]
    # The host hands a seat on: the first reachable volunteer takes it at once.
    reply = t.say(HOST, "replace bob")[0]
    assert "volunteer" in reply
    assert seat_named(t, "bob").identity_id == t.person("300").id and waiting(t) == []
    got = [r.key for r in t.rows() if r.identity_id == t.person("300").id]
    assert "svc.substitute.welcome" in got and "svc.role" in got
    assert not [r for r in t.rows() if r.identity_id == t.person("+393330000009").id and r.key == "svc.role"]
    # An open seat and a volunteer meet at once, too.
    t.say(HOST, "replace cat")
    assert seat_named(t, "cat").status == "open"
    t.say("400", f"volunteer {code}")
    assert seat_named(t, "cat").identity_id == t.person("400").id and waiting(t) == []
