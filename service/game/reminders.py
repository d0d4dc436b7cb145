"""What the worker says on its own: reminders before a deadline, warnings to players who keep
letting phases pass, and notices to hosts (a player who missed too much, one messages no longer
reach). Pure domain functions over the application service; thin tasks call them.

- A reminder goes, once per phase (a ``PhaseMark`` row, unique per game, phase and kind), to each
  seated player who still has something to do: a legal action other than a standing order
  (``reveal on/off``) and no move of his in this phase yet. It goes ``REMINDER_MINUTES`` before
  the deadline, never in the game's quiet hours: when that moment falls in them, it goes just
  before they begin instead (a night that ends at 08:00 is reminded the evening before). None
  goes when the text that last told the deadline already said it (``last_told``).
- Absences are counted as a phase closes (``Service.before_close``): a player who had something to
  do and did nothing misses the phase; any move of his resets the count. At ``INACTIVE_PHASES``
  misses in a row he is warned; at one more the first volunteer waiting (``volunteer CODE``, see
  ``service.game.volunteers``) takes his seat, with everything the character knows, and the hosts are
  told; with nobody waiting the host is asked to hand the seat on (``replace NAME`` opens it and the
  next ``join CODE`` or ``volunteer CODE`` takes it).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import func
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

import engine
from engine import Verb
from service.game import volunteers
from service.game.app import Service
from service.game.context import Ctx
from service.game.host import unseat
from service.game.room import Room
from service.store.db import lock_game
from service.store.models import Absence, Game, GameEvent, Identity, PhaseMark, Seat
from service.store.status import GameStatus, SeatStatus
from service.store.unit import unit_of
from service.texts import choices
from service.texts.i18n import deadline_text, t

STANDING = frozenset({Verb.REVEAL})


# -- quiet hours ----------------------------------------------------------------------------------
def parse_quiet(spec: str) -> tuple[time, time] | None:
    """``"22:00-08:00"`` -> (22:00, 08:00); ``""`` -> None (no quiet hours)."""
    if not spec.strip():
        return None
    start, end = (time.fromisoformat(x.strip()) for x in spec.split("-"))
    return start, end


def is_quiet(when: datetime, tz: str, quiet: tuple[time, time] | None) -> bool:
    if quiet is None:
        return False
    local = when.astimezone(ZoneInfo(tz)).time()
    start, end = quiet
    return start <= local < end if start <= end else (local >= start or local < end)


def remind_at(deadline: datetime, lead: timedelta, tz: str, quiet: tuple[time, time] | None) -> datetime:
    """When to remind: ``lead`` before the deadline, or just before the quiet hours that cover it."""
    moment = deadline - lead
    if quiet is None or not is_quiet(moment, tz, quiet):
        return moment
    zone = ZoneInfo(tz)
    local = moment.astimezone(zone)
    start = local.replace(hour=quiet[0].hour, minute=quiet[0].minute, second=0, microsecond=0)
    if start > local:
        start -= timedelta(days=1)
    return (start - timedelta(minutes=1)).astimezone(deadline.tzinfo)


# -- who still has to act -------------------------------------------------------------------------
def _moved(session: Session, game: Game) -> set[str]:
    with unit_of(session).reading(GameEvent):
        rows = session.exec(
            select(GameEvent.data).where(
                GameEvent.game_id == game.id, GameEvent.kind == "move", GameEvent.phase_no == game.phase_no
            )
        ).all()
    return {str(d.get("actor")) for d in rows if d.get("actor")}


def owing(room: Room, moved: set[str] | None = None) -> list[tuple[Seat, Identity, list[str]]]:
    """Seated players with something still to do this phase, and what they may do (``moved``: who
    moved in this phase, if the caller has read it already)."""
    assert room.state is not None
    if moved is None:
        moved = _moved(room.ctx.session, room.game)
    out = []
    for seat, person in room.seated():
        if seat.name in moved:
            continue
        actions = [a.text() for a in engine.legal_actions(room.state, seat.name) if a.verb not in STANDING]
        if actions:
            out.append((seat, person, actions))
    return out


# -- reminders ------------------------------------------------------------------------------------
def remind(svc: Service, now: datetime | None = None, limit: int = 500) -> int:
    """Send the reminders that are due; returns how many games were reminded."""
    when = now or svc.clock()
    horizon = when + timedelta(days=1)  # no reminder lead is longer than a quiet night plus an hour or so
    with Session(svc.db) as s:
        candidates = s.exec(
            select(Game.id, Game.phase_no)
            .where(
                col(Game.deadline).is_not(None),
                col(Game.deadline) > when,
                col(Game.deadline) <= horizon,
                col(Game.status) == GameStatus.RUNNING,
                col(Game.paused).is_(False),
            )
            .order_by(col(Game.deadline))
            .limit(limit)
        ).all()
        marked = set(
            s.exec(
                select(PhaseMark.game_id, PhaseMark.phase_no).where(
                    PhaseMark.kind == "reminder", col(PhaseMark.game_id).in_([g for g, _ in candidates])
                )
            ).all()
        )
    done = 0
    for game_id, phase_no in candidates:
        if game_id is not None and (game_id, phase_no) not in marked:
            done += _remind_game(svc, int(game_id), int(phase_no))
    return done


def _remind_game(svc: Service, game_id: int, phase_no: int) -> int:
    cfg = svc.settings

    def work(session: Session, now: datetime) -> tuple[int, Ctx | None]:
        game = lock_game(session, game_id)
        if (
            game is None
            or game.status != GameStatus.RUNNING
            or game.paused
            or game.phase_no != phase_no
            or game.deadline is None
            or game.deadline <= now
            or game.state is None
        ):
            return 0, None
        lead = timedelta(minutes=int(game.options.get("reminder_minutes", cfg.REMINDER_MINUTES)))
        quiet = parse_quiet(str(game.options.get("quiet", cfg.QUIET_HOURS)))
        if now < remind_at(game.deadline, lead, game.timezone, quiet) or is_quiet(now, game.timezone, quiet):
            return 0, None
        told = last_told(session, game)
        if told is not None and (game.deadline - told <= lead or now - told < lead / 2):
            return 0, None  # the text that told the deadline is the reminder (see ``last_told``)
        session.add(PhaseMark(game_id=game_id, phase_no=phase_no, kind="reminder", created_at=now))
        session.flush()  # the unique key: a second worker's reminder fails here and is dropped
        ctx = Ctx(session, svc, now)
        room = Room(ctx, game)
        assert room.state is not None
        phase = room.state.phase.value
        for _seat, person, actions in owing(room):
            lang = person.language
            listed = choices.options(actions, lang, seats=room.names())[0]
            text = t(
                lang,
                "svc.reminder",
                code=game.code,
                phase=t(lang, f"phase.name.{phase}"),
                deadline=deadline_text(game.deadline, game.timezone, lang),
                options=listed,
            )
            ctx.send(person, "svc.reminder", text, f"g{game_id}:p{phase_no}:i{person.id}:remind", game_id=game_id)
        return 1, ctx

    try:
        return svc.run(work)
    except IntegrityError:  # another worker reminded this phase a moment ago
        return 0


def last_told(session: Session, game: Game) -> datetime | None:
    """When the players were last told this phase's deadline: its phase text, or a host's move of
    the deadline (``extend``, ``shorten``, ``resume``). A reminder must say something that text did
    not: none goes when the deadline was already within the reminder's lead when it was told (a
    phase shorter than the lead), nor while that text is recent (under half the lead ago); a later
    move of the deadline may make one due again."""
    with unit_of(session).reading(GameEvent):
        started = session.exec(
            select(func.min(GameEvent.created_at)).where(
                GameEvent.game_id == game.id, GameEvent.phase_no == game.phase_no
            )
        ).one()
        moved = session.exec(
            select(func.max(GameEvent.created_at)).where(
                GameEvent.game_id == game.id, GameEvent.phase_no == game.phase_no, col(GameEvent.key).in_(DEADLINE_TOLD)
            )
        ).one()
    return max((x for x in (started, moved) if x is not None), default=None)


#: The host's acts whose texts tell everyone the phase's new deadline (``host._announce_deadline``).
DEADLINE_TOLD = ("svc.deadline_moved", "svc.resumed")


# -- absences -------------------------------------------------------------------------------------
def count_absences(ctx: Ctx, room: Room) -> None:
    """``Service.before_close`` hook: count who let this phase pass; warn, then ask the host."""
    cfg = ctx.svc.settings
    game = room.game
    limit = int(game.options.get("inactive_phases", cfg.INACTIVE_PHASES))
    if limit <= 0:
        return
    s = ctx.session
    moved = _moved(s, game)
    missing = {seat.id for seat, _, _ in owing(room, moved)}
    # Every count of the game in one read (not one per player), written back in one flush.
    counts = {a.seat_id: a for a in s.exec(select(Absence).where(Absence.game_id == room.id))}
    # Whether anyone waits to take a seat, read now if a seat is to be handed on (before anything is
    # written, so the writes go together at the end), and known empty once nobody was found.
    handing_on = any(
        seat.id in missing and seat.id in counts and counts[seat.id].misses == limit for seat, _ in room.seated()
    )
    queue_empty = handing_on and not volunteers.queue(ctx, game)
    for seat, person in room.seated():
        assert seat.id is not None
        if seat.id not in missing and seat.name not in moved:
            continue  # nothing to do this phase (a villager at night): the count stands
        row = counts.get(seat.id) or Absence(seat_id=seat.id, game_id=room.id)
        row.last_phase = game.phase_no
        row.misses = row.misses + 1 if seat.id in missing else 0
        s.add(row)
        if seat.id not in missing:
            continue
        base = f"g{room.id}:p{game.phase_no}:s{seat.id}"
        if row.misses == limit:
            ctx.send(
                person,
                "svc.inactive.warn",
                room.text_for("svc.inactive.warn", {"count": row.misses}, None, person, seat),
                f"{base}:warn",
                game_id=room.id,
            )
        elif row.misses == limit + 1:
            waiting = None if queue_empty else volunteers.next_volunteer(ctx, room)
            queue_empty = waiting is None
            key = "svc.inactive.host" if waiting is None else "svc.inactive.substituted"
            if waiting is not None:  # the first volunteer takes the seat, the character stays
                unseat(ctx, room, seat, "open", key="svc.inactive.replaced")
                volunteers.seat(ctx, room, seat, waiting, options=False)  # the next phase's prompt follows
                row.misses = 0
            for host in hosts(room):
                if host.id in (person.id, waiting.id if waiting else None):
                    continue  # not about himself: a host who plays had the player's warning
                ctx.send(
                    host,
                    key,
                    t(host.language, key, code=game.code, name=seat.name, count=limit + 1),
                    f"{base}:i{host.id}:inactive",
                    game_id=room.id,
                )


def hosts(room: Room) -> list[Identity]:
    ids: list[int] = [room.game.host_id] if room.game.host_id is not None else []
    ids += [s.identity_id for s in room.seats if s.cohost and s.identity_id is not None]
    seen: dict[int, Identity] = {}
    for i in ids:
        person = room.people.get(i) or room.ctx.session.get(Identity, i)
        if person is not None and person.id is not None:
            seen[person.id] = person
    return list(seen.values())


def install(svc: Service) -> Service:
    if count_absences not in svc.before_close:
        svc.before_close.append(count_absences)
    return svc


# -- unreachable players ----------------------------------------------------------------------------
def tell_hosts_unreachable(svc: Service, identity_id: int, reason: str, games: Iterable[int]) -> None:
    """Messages no longer reach this person: the host of each running game he sits in is told."""
    for game_id in games:

        def work(session: Session, now: datetime, game_id: int = game_id) -> tuple[None, Ctx | None]:
            game = lock_game(session, game_id)
            if game is None or game.status not in (GameStatus.LOBBY, GameStatus.RUNNING):
                return None, None
            ctx = Ctx(session, svc, now)
            room = Room(ctx, game)
            seat = next((x for x in room.seats if x.identity_id == identity_id and x.status == SeatStatus.JOINED), None)
            if seat is None:
                return None, None
            for host in hosts(room):
                if host.id == identity_id:
                    continue
                lang = host.language
                ctx.send(
                    host,
                    "svc.unreachable",
                    t(
                        lang,
                        "svc.unreachable",
                        code=game.code,
                        name=seat.name,
                        reason=t(lang, f"svc.unreachable.{reason}"),
                    ),
                    f"g{game_id}:unreachable:i{identity_id}:h{host.id}:v{game.version}",
                    game_id=game_id,
                )
            return None, ctx

        try:
            svc.run(work)
        except IntegrityError:  # this notice was already written (a retried dispatch)
            continue
