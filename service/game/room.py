"""A game loaded for one command, under its lock: who sits where, the engine state, and the
one way anything is said in a game (``broadcast``), which logs it and writes the outbox.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from sqlalchemy import bindparam, func
from sqlmodel import col, select

import engine
from engine import Event, GameState, Phase
from service.channels import channel as channel_of
from service.channels.base import Channel, Notice
from service.game import ghosts, reveal, series, states
from service.store.models import Game, GameEvent, Identity, Outbox, Seat
from service.store.status import GameStatus, OutboxStatus, SeatStatus
from service.store.unit import unit_of
from service.texts import choices, lupusburg, render
from service.texts.digest import SMS_OWN_VOTE, SQUARE_KEYS, VOTE_KEYS, digest_text, vote_pairs
from service.texts.i18n import t

#: The word, with the first answer to his move, that from then on the next phase's text shows his moves.
FIRST_TOLD = "sms.own.first"

if TYPE_CHECKING:
    from service.game.context import Ctx

#: ``game.setup`` entry: the identities that left a seat of this game (see ``Room.is_former``).
FORMER = "former"

#: A room's seats with who sits in them and the log's last number (built once: see ``service.store.db``).
_SEATS = (
    select(
        Seat, Identity, select(func.max(GameEvent.seq)).where(GameEvent.game_id == bindparam("game")).scalar_subquery()
    )
    .join(Identity, col(Identity.id) == col(Seat.identity_id), isouter=True)
    .where(Seat.game_id == bindparam("game"))
    .order_by(col(Seat.position), col(Seat.id))
)


class Room:
    def __init__(self, ctx: Ctx, game: Game) -> None:
        assert game.id is not None
        self.ctx = ctx
        self.game = game
        self.id: int = game.id
        s = ctx.session
        # One statement for the seats, who sits in them and the log's last number (read under the
        # game's lock, so nothing is appended meanwhile); the host and the group only when no seat has them.
        rows = s.exec(_SEATS, params={"game": game.id}).all()
        self.seats: list[Seat] = [seat for seat, _, _ in rows]
        self.people: dict[int, Identity] = {i.id: i for _, i, _ in rows if i is not None and i.id is not None}
        others = {x for x in (game.host_id, game.group_id) if x is not None and x not in self.people}
        if others:
            self.people.update(
                (i.id, i) for i in s.exec(select(Identity).where(col(Identity.id).in_(others))) if i.id is not None
            )
        last = rows[0][2] if rows else s.exec(select(func.max(GameEvent.seq)).where(GameEvent.game_id == game.id)).one()
        self.state: GameState | None = states.load(game.state) if game.state else None
        # The log's rows appended in this transaction are written at its end (``service.store.unit``).
        self._seq: int = max(last or 0, unit_of(s).last_logged(game.id))
        self._changing = False
        """Inside an advance that changes the phase: nothing is held, since all its texts go out
        now, merged for SMS readers (``Ctx.merge_texts``)."""

    # -- who --------------------------------------------------------------------------------------
    def seat_of(self, identity_id: int | None) -> Seat | None:
        for seat in self.seats:
            if identity_id is not None and seat.identity_id == identity_id and seat.status == SeatStatus.JOINED:
                return seat
        return None

    def seat_named(self, name: str) -> Seat | None:
        for seat in self.seats:
            if seat.name == name:
                return seat
        return None

    def is_host(self, identity_id: int | None) -> bool:
        if identity_id is None:
            return False
        seat = self.seat_of(identity_id)
        return identity_id == self.game.host_id or (seat is not None and seat.cohost)

    def is_moderator(self, identity_id: int | None) -> bool:
        """The host who does not play sees everything, as the rulebook's Moderator."""
        host = self.game.host_id
        return identity_id is not None and identity_id == host and self.seat_of(identity_id) is None

    def is_former(self, identity_id: int | None) -> bool:
        """Someone whose seat a host gave to a substitute, or who was removed: he knows his old
        card and what it learned, so he may not take another seat in this game."""
        return identity_id is not None and identity_id in self.game.setup.get(FORMER, ())

    def moderators(self) -> list[Identity]:
        host = self.people.get(self.game.host_id or -1)
        return [host] if host is not None and self.is_moderator(host.id) else []

    def group(self) -> Identity | None:
        """The Telegram group the game is played in, if it was created in one."""
        return self.people.get(self.game.group_id) if self.game.group_id is not None else None

    def in_group(self, person: Identity) -> bool:
        """He reads the game's group (a Telegram player of a group's game), so public texts reach
        him there and not privately."""
        group = self.group()
        return group is not None and person.channel == group.channel and person.id != group.id

    def public_people(self) -> list[Identity]:
        """Where a text everyone may read goes: the group once, and everyone not in it."""
        out = [p for _, p in self.seated()] + self.moderators()
        group = self.group()
        return [p for p in out if not self.in_group(p)] + ([group] if group is not None else [])

    def names(self) -> list[str]:
        if self.state is not None:
            return list(self.state.players)
        return [s.name for s in self.seats]

    def seated(self) -> list[tuple[Seat, Identity]]:
        return [
            (s, self.people[s.identity_id])
            for s in self.seats
            if s.status == SeatStatus.JOINED and s.identity_id in self.people
        ]

    def info(self, person: Identity | None = None) -> render.Info:
        """What texts need of the game, with deadlines in the reader's time zone if he set one."""
        game = self.game
        tz = (person.timezone if person else None) or game.timezone
        return render.Info(game.code, tz, None if game.paused else game.deadline, self.ctx.now)

    def reader(self, identity: Identity, seat: Seat | None) -> render.Reader:
        return render.Reader(
            seat.name if seat else None,
            identity.language,
            self.is_moderator(identity.id),
            sms=channel_of(identity.channel).short,
        )

    # -- saying ------------------------------------------------------------------------------------
    def log(
        self,
        kind: str,
        key: str,
        data: Mapping[str, Any],
        audience: Sequence[str] | None = None,
        channel: str | None = None,
    ) -> int:
        self._seq += 1
        unit_of(self.ctx.session).log(
            game_id=self.id,
            seq=self._seq,
            phase_no=self.game.phase_no,
            kind=kind,
            key=key,
            data=dict(data),
            audience=list(audience) if audience else None,
            channel=channel,
            created_at=self.ctx.now,
        )
        return self._seq

    def text_for(
        self, key: str, data: Mapping[str, Any], audience: Sequence[str] | None, identity: Identity, seat: Seat | None
    ) -> str:
        reader = self.reader(identity, seat)
        if (
            key.startswith("phase.")
            and seat is not None
            and self.state is not None
            and engine.legal_actions(self.state, seat.name)
        ):  # his options follow (``prompt``)
            reader = replace(reader, acts=True)
        if key.startswith("svc."):
            return t(reader.lang, render.sms_key(key, reader.sms), code=self.game.code, **data)
        return render.for_reader(key, data, audience, reader, self.info(identity))

    def broadcast(
        self,
        key: str,
        data: Mapping[str, Any],
        audience: Sequence[str] | None = None,
        channel: str | None = None,
        kind: str = "event",
        exclude: Iterable[int] = (),
    ) -> int:
        """Log one thing said in the game and write it to everyone in its audience (and the moderator)."""
        seq = self.log(kind, key, data, audience, channel)
        skip = set(exclude)
        group = self.group() if audience is None else None
        for seat, person in self.seated():
            if person.id in skip or not render.reads(audience, seat.name):
                continue
            if group is not None and self.in_group(person):
                continue
            self._say(Notice(person, key, data, audience), seat, f"g{self.id}:e{seq}:i{person.id}")
        for mod in self.moderators():
            if mod.id not in skip and not (group is not None and self.in_group(mod)):
                self._say(Notice(mod, key, data, audience), None, f"g{self.id}:e{seq}:i{mod.id}")
        # Talk typed in the group is already there: it goes only to those who do not read it.
        said_there = key in SQUARE_KEYS and self.ctx.chat is not None and self.ctx.chat is group
        if group is not None and group.id not in skip and not said_there:
            self.ctx.send(
                group,
                key,
                self.text_for(key, data, audience, group, None),
                f"g{self.id}:e{seq}:i{group.id}",
                game_id=self.id,
            )
        return seq

    def holds(self, notice: Notice) -> bool:
        """Whether ``notice`` waits for the next phase's summary instead of going to its reader now:
        square talk for a digest reader; what his channel holds (the commentary, by SMS), except
        what answers his own command (his vote, his join), which he gets at once."""
        person = notice.reader
        if self._changing:
            return False
        if notice.key in SQUARE_KEYS and person.digest:
            return True
        way, me = channel_of(person.channel), self.ctx.identity
        own = me is not None and person.id == me.id
        return way.holds(notice, own, own and self._first_answer(notice, way))

    def _first_answer(self, notice: Notice, way: Channel) -> bool:
        """His move of a kind his channel answers at once only at first (by SMS the first night's
        choice, the first day's nomination): the answer says that from then on the next phase's
        text shows his moves."""
        when = way.answered_first(notice)
        second = notice.data.get("tokens_left", 1) == 0  # a Lupusburg player's second token is no first
        if when is None or self.state is None or getattr(self.state, when, None) != 1 or second:
            return False
        return not self._told_first(notice.reader)

    def _told_first(self, person: Identity) -> bool:
        """Whether he has been told in this game that his moves are answered by the next phase's text:
        once a game (twice made a night's text two segments), and his moves are held from then on."""
        s = self.ctx.session
        with unit_of(s).reading(Outbox, staged=lambda o: o.key == FIRST_TOLD):
            return (
                s.exec(
                    select(Outbox.id).where(
                        Outbox.identity_id == person.id, Outbox.game_id == self.id, Outbox.key == FIRST_TOLD
                    )
                ).first()
                is not None
            )

    def _say(self, notice: Notice, seat: Seat | None, dedup: str) -> None:
        """Stage ``notice`` for its reader as his channel has it: held for the summary (as one short
        item), sent now, or written as said already by the same command's next text."""
        person, key = notice.reader, notice.key
        way = channel_of(person.channel)
        hold = self.holds(notice)
        short = way.held_line(notice) if hold else None
        text = short if short is not None else self.text_for(key, notice.data, notice.audience, person, seat)
        me = self.ctx.identity
        first = me is not None and me.id == person.id and self._first_answer(notice, way)
        said = self._changing and way.said_next(notice)
        self.ctx.send(person, key, text, dedup, game_id=self.id, hold=hold, said=said)
        if first:  # why his next moves go unanswered: merged with the answer, once a game
            self.ctx.send(person, FIRST_TOLD, t(person.language, FIRST_TOLD), f"{dedup}:first", game_id=self.id)
        if first and key == "day.vote" and not self._changing:  # and with everyone's, as promised
            self.ctx.send(
                person, SMS_OWN_VOTE, way.held_line(notice) or text, f"{dedup}:own", game_id=self.id, hold=True
            )

    # -- the engine ----------------------------------------------------------------------------------
    def advance(self, new: GameState, events: Sequence[Event], move: tuple[str | None, str] | None) -> None:
        """Save what the engine returned: the state, the record line, the events, the next deadline."""
        old_phase = self.game.phase_no
        if move is not None:
            was = engine.public_view(self.state) if self.state is not None else {}
            self.log(
                "move",
                "move",
                {"actor": move[0], "text": move[1], "phase": was.get("phase"), "night": was.get("night")},
            )
        starting = self.state is None
        # Who may talk before this close: one who may not after it has just become a Ghost.
        speaking = (
            set(engine.public_view(self.state).get("speakers", ()))
            if self.state is not None and new.phase_no != old_phase
            else set()
        )
        self.state = new
        self.game.state = states.save(new)
        self.game.phase_no = new.phase_no
        if new.phase is Phase.OVER:
            self.game.status, self.game.deadline = GameStatus.OVER, None
        elif new.phase_no != old_phase:
            self.game.deadline = self.next_deadline(new)
        if new.phase_no != old_phase:
            self.flush_digests(seating_shown=starting)
        self._changing = new.phase_no != old_phase
        try:
            for e in events:
                data = dict(e.data)
                if e.key == "day.vote" and "tally" not in data:  # the text shows the running tally
                    data["tally"] = engine.public_view(new).get("tally", [])
                told = lupusburg.told_otherwise(e.key, data)  # a bettor, the Burgomaster: in their own words
                self.broadcast(
                    e.key,
                    data,
                    e.to,
                    e.channel,
                    exclude=[s.identity_id for s in self.seats if s.name in told and s.identity_id],
                )
        finally:
            self._changing = False
        if new.phase_no != old_phase and new.phase is not Phase.OVER:
            self.tell_ghosts(speaking - set(engine.public_view(new).get("speakers", ())))
            self.prompt()
        if new.phase is Phase.OVER:
            reveal.tell_the_end(self)
            series.tell_totals(self)
        ghosts.sync(self)  # a death, a return, the end: who is muted in the game's group
        self.game.updated_at = self.ctx.now

    def tell_ghosts(self, fallen: set[str]) -> None:
        """Each player who has just become a Ghost learns what that leaves him (he may not speak;
        he still votes in the nominations), between the news of his death and his next choices."""
        for seat, person in self.seated():
            if seat.name in fallen:
                self.ctx.send(
                    person,
                    "svc.role.ghost",
                    self.text_for("svc.role.ghost", {}, None, person, seat),
                    f"g{self.id}:p{self.game.phase_no}:i{person.id}:ghost",
                    game_id=self.id,
                )

    def next_deadline(self, state: GameState) -> datetime | None:
        """The phase's length from now, or the next time of day the host fixed for it (``night 08:00``),
        at least an hour away, in the game's time zone."""
        at = self.game.options.get(f"{state.phase.value}_at")
        if at:
            hour, minute = (int(x) for x in str(at).split(":"))
            tz = ZoneInfo(self.game.timezone)
            local = self.ctx.now.astimezone(tz)
            when = local.replace(hour=hour, minute=minute, second=0, microsecond=0)
            while when < local + timedelta(hours=1):
                when = (when + timedelta(days=1)).replace(hour=hour, minute=minute)
            end = when.astimezone(UTC)
        else:
            end = self.ctx.now + timedelta(minutes=self.phase_minutes(state.phase))
        if self.game.paused:
            self.game.paused_remaining = int((end - self.ctx.now).total_seconds())
            return None
        return end

    def phase_minutes(self, phase: Phase) -> int:
        cfg = self.ctx.svc.settings
        default = {
            Phase.NIGHT: cfg.NIGHT_MINUTES,
            Phase.NOMINATIONS: cfg.NOMINATIONS_MINUTES,
            Phase.BALLOT: cfg.BALLOT_MINUTES,
        }.get(phase, cfg.NIGHT_MINUTES)
        return int(self.game.options.get(f"{phase.value}_minutes", default))

    def prompt(self) -> None:
        """At the start of a phase, tell each player who may act what he may choose, numbered by
        seat, with buttons bound to this phase."""
        assert self.state is not None
        seats = self.names()
        for seat, person in self.seated():
            actions = [a.text() for a in engine.legal_actions(self.state, seat.name)]
            if not actions:
                continue
            way = channel_of(person.channel)
            self.ctx.send(
                person,
                "svc.options",
                choices.options_text(actions, person.language, way.short, seats=seats),
                f"g{self.id}:p{self.game.phase_no}:i{person.id}:opt",
                game_id=self.id,
                buttons=way.keyboard(actions, self.game.code, person.language, phase=self.game.phase_no, seats=seats),
            )

    def flush_digests(self, seating_shown: bool = False) -> None:
        """Merge what was held for digest and SMS readers into one summary each. ``seating_shown``:
        the game starts, and its first text names everyone seated: the joins go without saying."""
        s = self.ctx.session
        query = (
            select(Outbox).where(Outbox.game_id == self.id, Outbox.status == OutboxStatus.HELD).order_by(col(Outbox.id))
        )
        # Held rows this transaction staged (or changed) must be written before the read; nothing else
        # bears on it, so the new state and events are left to the command's one flush at the end.
        with unit_of(s).reading(Outbox, staged=lambda o: o.status == OutboxStatus.HELD):
            held = list(s.exec(query))
        by_person: dict[int, list[Outbox]] = {}
        for row in held:
            by_person.setdefault(row.identity_id, []).append(row)
        # The nominations read back to (voter, target), for each language and channel (the lines
        # are as the reader's channel shows them: ``Zoe>Sue`` by SMS, ``Zoë>Sue`` on Telegram).
        pairs: dict[tuple[str, str], dict[str, tuple[str, str]]] = {}
        for pid, rows in by_person.items():
            person = self.people.get(pid) or s.get(Identity, pid)
            if person is None:
                continue
            for row in rows:
                row.status = OutboxStatus.MERGED
                s.add(row)
            lang, way = person.language, channel_of(person.channel)
            known = pairs.setdefault((lang, way.name), {})
            votes = [r.text for r in rows if r.key in VOTE_KEYS and r.text not in known]
            if votes:
                known.update(vote_pairs(votes, self.names(), lang, way.fold))
            text = digest_text(rows, lang, known, seating_shown, sms=way.short)
            if text:
                self.ctx.send(person, "svc.digest", text, f"g{self.id}:d{rows[-1].id}:i{pid}", game_id=self.id)
