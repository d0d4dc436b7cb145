"""Schedules for slow play, reminders before deadlines (never at quiet hours, once a phase), and
players who keep letting phases pass."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from sqlmodel import Session, select

import engine
from service.game.reminders import is_quiet, parse_quiet, remind, remind_at
from service.store.models import Absence, Outbox, Seat

from .conftest import HOST, Table, act, everyone_but

ROME = ZoneInfo("Europe/Rome")
QUIET = parse_quiet("22:00-08:00")


def _rome(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 3, day, hour, minute, tzinfo=ROME).astimezone(UTC)


def test_reminders_come_an_hour_before_or_before_the_quiet_hours() -> None:
    lead = timedelta(hours=1)
    assert remind_at(_rome(3, 22), lead, "Europe/Rome", QUIET) == _rome(3, 21)
    # A night ending at 08:00 would be reminded at 07:00, inside the quiet hours: the evening before.
    assert remind_at(_rome(4, 8), lead, "Europe/Rome", QUIET) == _rome(3, 21, 59)
    assert is_quiet(_rome(4, 7), "Europe/Rome", QUIET) and not is_quiet(_rome(4, 8), "Europe/Rome", QUIET)
    assert remind_at(_rome(4, 8), lead, "Europe/Rome", None) == _rome(4, 7)


def test_nights_end_at_eight_and_days_at_ten_in_rome(lite: Table) -> None:
    lite.clock.now = _rome(2, 12)
    lite.open("night 08:00 nominations 18:00 ballot 22:00 tz Europe/Rome")
    assert lite.state().phase is engine.Phase.NIGHT
    assert lite.game().deadline == _rome(3, 8)
    act(lite)
    lite.clock.now = _rome(3, 8)
    assert lite.svc.close_phase(lite.game().id or 0, lite.game().phase_no)
    assert lite.state().phase is engine.Phase.NOMINATIONS and lite.game().deadline == _rome(3, 18)


def test_one_reminder_a_phase_to_those_who_still_have_to_act(lite: Table) -> None:
    lite.open("night 08:00 nominations 18:00 ballot 22:00 tz Europe/Rome")
    lite.clock.now = _rome(3, 8)
    lite.svc.close_phase(lite.game().id or 0, lite.game().phase_no)  # to the day's nominations
    state = lite.state()
    voter = next(p for p in state.players if p in state.alive)  # type: ignore[attr-defined]
    lite.say(lite.addr[voter], f"vote {next(p for p in state.players if p != voter)}")
    lite.clock.now = _rome(3, 16, 30)
    assert remind(lite.svc) == 0  # too early
    lite.clock.now = _rome(3, 17, 5)
    assert remind(lite.svc) == 1
    assert remind(lite.svc) == 0  # never twice for a phase
    reminded = {r.identity_id for r in lite.rows() if r.key == "svc.reminder"}
    alive = [p for p in state.players if p in state.alive]  # type: ignore[attr-defined]
    assert reminded == {lite.person(lite.addr[p]).id for p in alive if p != voter}
    text = next(r.text for r in lite.rows() if r.key == "svc.reminder")
    assert "vote" in text and "18:00" in text


def test_no_reminder_at_quiet_hours(lite: Table) -> None:
    lite.clock.now = _rome(2, 12)
    lite.open("night 08:00 nominations 18:00 ballot 22:00 tz Europe/Rome")
    lite.clock.now = _rome(3, 7, 10)  # an hour before the night ends, but at quiet hours
    assert remind(lite.svc) == 0
    lite.clock.now = _rome(2, 21, 59)  # just before they begin
    assert remind(lite.svc) == 1


def test_a_player_who_keeps_letting_phases_pass_is_warned_then_the_host_asked(lite: Table) -> None:
    lite.open("night 1h nominations 1h ballot 1h")
    state = lite.state()
    roles = state.roles  # type: ignore[attr-defined]
    idle = next(p for p in state.players if roles[p].value == "villager")
    warned = asked = None
    for n in range(12):
        if lite.game().status != "running":
            break
        if idle not in lite.state().alive:  # type: ignore[attr-defined]
            break
        everyone_but(lite, idle)
        lite.advance(hours=2)
        lite.svc.close_phase(lite.game().id or 0, lite.game().phase_no)
        rows = lite.rows()
        if warned is None and any(
            r.key == "svc.inactive.warn" and r.identity_id == lite.person(lite.addr[idle]).id for r in rows
        ):
            warned = n
        # Others may be reported too (the Seer these robots never use, a Ghost who never nominates):
        # what matters here is the report about the idle player.
        if asked is None and _reports(rows, idle, lite.person(HOST).id):
            asked = n
    assert warned is not None and asked is not None, "the idle player was never warned and reported"
    assert asked > warned
    host_text = _reports(lite.rows(), idle, lite.person(HOST).id)[0]
    assert "replace" in host_text


def _reports(rows: list[Outbox], name: str, host: int | None) -> list[str]:
    """The texts that ask the host what to do about `name`."""
    return [
        r.text
        for r in rows
        if r.key == "svc.inactive.host" and r.identity_id == host and name in r.text.replace(":", " ").split()
    ]


def test_the_close_that_ends_the_game_warns_nobody_of_absences(lite: Table) -> None:
    # The Lupusburg end reached an SMS player as "2 fases seguidas sin actuar. Si faltas a la próxima..."
    # right above "Se acabó": no next phase is coming.
    lite.open("night 1h nominations 1h ballot 1h")
    idle = next(p for p in lite.state().players if lite.state().roles[p].value == "villager")  # type: ignore[attr-defined]
    for _ in range(30):
        state, game = lite.state(), lite.game()
        if engine.close_phase(state, game.phase_no)[0].phase is engine.Phase.OVER:
            break
        everyone_but(lite, idle) if idle in state.alive else act(lite)  # type: ignore[attr-defined]
        lite.advance(hours=2)
        lite.svc.close_phase(game.id or 0, game.phase_no)
    # The last phase: nobody acts, and everyone is one phase short of the warning.
    game = lite.game()
    assert game.status == "running"
    with Session(lite.db) as s:
        for seat in s.exec(select(Seat).where(Seat.game_id == game.id)):
            s.merge(Absence(seat_id=seat.id or 0, game_id=game.id or 0, misses=1, last_phase=game.phase_no - 1))
        s.commit()
    lite.advance(hours=2)
    assert lite.svc.close_phase(game.id or 0, game.phase_no)
    assert lite.game().status == "over"
    assert not [r for r in lite.rows() if r.key.startswith("svc.inactive.") and f":p{game.phase_no}:" in r.dedup_key]
