"""What the worker says must say something new, since each text costs every SMS player a segment:
no reminder when the phase's own text told the deadline within the reminder's lead (a phase
shorter than the lead) or told it just now; no text of a deadline moved to the close itself; and a
host is never told that he himself let phases pass (he has the player's warning)."""

from __future__ import annotations

from datetime import timedelta

from service.game.reminders import remind
from service.store.models import Outbox

from .conftest import HOST, NAMES, Table, everyone_but


def _reminders(t: Table) -> list[Outbox]:
    return [r for r in t.rows() if r.key == "svc.reminder"]


def _moved(t: Table) -> list[Outbox]:
    return [r for r in t.rows() if r.key == "svc.deadline_moved"]


def test_a_phase_shorter_than_the_lead_gets_no_reminder(table: Table) -> None:
    table.open("night 30m nominations 3h ballot 61m")  # the reminder's lead: an hour
    for seconds in (30, 60 * 20, 60 * 29):
        table.clock.now = table.game().created_at + timedelta(seconds=seconds)
        assert remind(table.svc) == 0
    assert not _reminders(table)
    table.clock.now = table.game().deadline or table.clock.now
    table.svc.close_phase(table.game().id or 0, table.game().phase_no)  # to the nominations, 3 hours
    start = table.clock.now
    table.clock.now = start + timedelta(seconds=30)
    assert remind(table.svc) == 0
    table.clock.now = start + timedelta(hours=2)  # an hour before the deadline: reminded
    assert remind(table.svc) == 1 and _reminders(table)


def test_a_reminder_never_follows_the_text_that_told_the_deadline_at_once(table: Table) -> None:
    table.open("night 3h")
    start = table.clock.now
    table.advance(minutes=90)
    table.say(HOST, "shorten 70m")  # told now: the night ends in 20 minutes, within the lead
    assert len(_moved(table)) == len(NAMES) + 1  # and the host, who moderates
    table.advance(seconds=30)
    assert remind(table.svc) == 0
    table.advance(minutes=15)
    assert remind(table.svc) == 0 and not _reminders(table)
    # Moved far again, the deadline is news once more: reminded an hour before it.
    table.say(HOST, "extend 5h")
    table.clock.now = (table.game().deadline or start) - timedelta(minutes=59)
    assert remind(table.svc) == 1 and _reminders(table)


def test_a_phase_just_begun_is_not_reminded_even_when_the_lead_is_near(table: Table) -> None:
    table.open("night 61m")
    table.advance(minutes=1)
    assert remind(table.svc) == 0  # the phase text came a minute ago
    table.advance(minutes=29)
    assert remind(table.svc) == 1  # half the lead since it: news again


def test_shortening_to_the_close_texts_nothing_but_the_close(table: Table) -> None:
    table.open("night 12h")
    table.advance(hours=2)
    table.say(HOST, "shorten 12h")
    assert table.game().deadline == table.clock.now
    assert not _moved(table)
    before = len(table.rows())
    assert table.svc.close_phase(table.game().id or 0, table.game().phase_no)
    assert len(table.rows()) > before  # the close's own texts: the dawn, the day
    # A deadline moved a few hours is told, to each reader once.
    table.say(HOST, "shorten 2h")
    assert len(_moved(table)) == len(NAMES) + 1  # and the host, who moderates


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
