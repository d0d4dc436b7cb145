"""The tables. Every model is imported here so that ``SQLModel.metadata`` (the migrations'
target) knows them all.

Times are aware and stored in UTC (SQLModel's UTCDateTime); a game's own time zone is used
only to show deadlines to people.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, Index, Text, UniqueConstraint, text
from sqlmodel import Field, SQLModel

from service.store.status import GameStatus, OutboxStatus, SeatStatus


def utcnow() -> datetime:
    return datetime.now(UTC)


class Identity(SQLModel, table=True):
    """Someone we can reach: a channel and an address on it (a Telegram chat, a phone number)."""

    __tablename__ = "identities"
    __table_args__ = (UniqueConstraint("channel", "address", name="uq_identity_channel_address"),)

    id: int | None = Field(default=None, primary_key=True)
    channel: str = Field(max_length=16)
    address: str = Field(max_length=128)
    display_name: str | None = Field(default=None, max_length=64)
    language: str = Field(default="en", max_length=8)
    language_from: str | None = Field(default=None, max_length=8)
    """What set ``language``: ``said`` (his words: a command in a language, ``lang``), ``game`` (the
    language of the game he joined or created first), ``app`` (his Telegram's ``language_code``),
    None (nothing yet). His words and a game's outrank his app's; after them only ``lang`` changes
    it (``service.game.routing.hear_language``)."""
    opted_out: bool = False
    """Said STOP (or blocked the bot): nothing is sent until he writes again."""
    unreachable: bool = False
    """The channel refused delivery for good (the worker sets it)."""
    timezone: str | None = Field(default=None, max_length=64)
    """Where he reads deadlines (``tz Europe/London``); None: each game's own time zone."""
    digest: bool = False
    """Takes the town square as one digest per phase instead of message by message."""
    current_game_id: int | None = Field(default=None)
    """The game he addressed last: the default when he is in several."""
    direct: bool = False
    """He wrote to us in a private conversation (any SMS; a Telegram private chat), so we may write
    to him privately: Telegram refuses a bot's first word to someone who never opened it."""
    created_at: datetime = Field(default_factory=utcnow)


class Game(SQLModel, table=True):
    __tablename__ = "games"

    id: int | None = Field(default=None, primary_key=True)
    code: str = Field(max_length=8, unique=True, index=True)
    rules: str = Field(default="tabula", max_length=16)
    status: str = Field(default=GameStatus.LOBBY, max_length=16, index=True)
    """lobby, running, over (ended by the rules) or ended (by a host)."""
    setup: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    """How to build the deck: ``theme`` or ``deck`` (role names); else the default deck."""
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    """Engine options plus the service's: phase lengths in minutes, shuffle, early close."""
    state: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    """The engine state as JSON (None in the lobby)."""
    phase_no: int = 0
    deadline: datetime | None = Field(default=None, index=True)
    paused: bool = False
    paused_remaining: int | None = None
    """Seconds that were left on the clock when the game was paused."""
    timezone: str = Field(default="Europe/Rome", max_length=64)
    language: str = Field(default="en", max_length=8)
    seed: int = Field(default=0, sa_column=Column(BigInteger, nullable=False))
    host_id: int | None = Field(default=None, foreign_key="identities.id")
    group_id: int | None = Field(default=None, foreign_key="identities.id")
    """The Telegram group the game was created in (an identity of its own): what everyone may read
    goes there once instead of privately to each Telegram player; secrets stay private."""
    version: int = 0
    """Bumped by every write: a compare-and-set guard beside the row lock."""
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class Seat(SQLModel, table=True):
    """A player's place in a game: his game name, and who sits in it now."""

    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("game_id", "name", name="uq_seat_game_name"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    identity_id: int | None = Field(default=None, foreign_key="identities.id", index=True)
    name: str = Field(max_length=32)
    """The name the engine knows; it stays when a substitute takes the seat over."""
    position: int = 0
    status: str = Field(default=SeatStatus.JOINED, max_length=16)
    """joined; open (waiting for a substitute); vacant (removed by a host)."""
    cohost: bool = False
    last_list: list[str] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    """Unused: a number is a seat, whatever list came last (``grammar.resolve``), so nothing needs
    to remember the list he was sent. The column stays until a migration drops it."""
    joined_at: datetime = Field(default_factory=utcnow)


class GameEvent(SQLModel, table=True):
    """The append-only log of a game: engine events, the moves that caused them, host acts."""

    __tablename__ = "game_events"
    __table_args__ = (UniqueConstraint("game_id", "seq", name="uq_event_game_seq"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    seq: int
    phase_no: int = 0
    kind: str = Field(max_length=8)
    """event (from the engine), move (a record line), host (a host's act)."""
    key: str = Field(max_length=64)
    data: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    audience: list[str] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    channel: str | None = Field(default=None, max_length=32)
    created_at: datetime = Field(default_factory=utcnow)


class Inbound(SQLModel, table=True):
    """Every message received, once: a repeat delivery of the same external id is dropped."""

    __tablename__ = "inbound"
    __table_args__ = (UniqueConstraint("channel", "external_id", name="uq_inbound_channel_external"),)

    id: int | None = Field(default=None, primary_key=True)
    channel: str = Field(max_length=16)
    external_id: str = Field(max_length=128)
    identity_id: int | None = Field(default=None, foreign_key="identities.id")
    game_id: int | None = None
    text: str = Field(default="", sa_column=Column(Text, nullable=False))
    received_at: datetime = Field(default_factory=utcnow)


class Outbox(SQLModel, table=True):
    """A message to send, written in the same transaction as what caused it; the worker sends it."""

    __tablename__ = "outbox"

    id: int | None = Field(default=None, primary_key=True)
    identity_id: int = Field(foreign_key="identities.id", index=True)
    channel: str = Field(max_length=16)
    game_id: int | None = Field(default=None, index=True)
    key: str = Field(max_length=64)
    """The message key it was rendered from (for tests, metrics and the digest)."""
    text: str = Field(sa_column=Column(Text, nullable=False))
    status: str = Field(default=OutboxStatus.PENDING, max_length=16, index=True)
    """pending, sent, failed (gave up), held (waiting for a digest), merged (into a digest), missed
    (written while its reader was away, after STOP: never sent; what he is told he missed)."""
    attempts: int = 0
    not_before: datetime = Field(default_factory=utcnow, index=True)
    dedup_key: str = Field(max_length=128, unique=True)
    last_error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    created_at: datetime = Field(default_factory=utcnow)
    sent_at: datetime | None = None
    buttons: list[list[dict[str, str]]] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    """Rows of inline buttons, each ``{"text", "data"}`` (data: the command a tap sends, e.g.
    ``#ABCD vote bob``) or ``{"text", "url"}``; only on Telegram rows. The sender gets them as
    ``buttons=``."""
    delivery: str | None = Field(default=None, max_length=16)
    """The channel's last delivery report (Twilio's status callback: sent, delivered, undelivered...)."""
    action: str | None = Field(default=None, max_length=16)
    """Not a message but an act on a chat (``mute``, ``unmute`` a Ghost in the game's Telegram
    group): the row's person is the member acted on, ``text`` holds the group's chat id. It goes
    through the outbox like a message, so it is rate limited, retried and never lost."""
    parts_sent: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    """A text too long for one message of its platform goes in parts, in order: how many of them
    the platform took already (a retry, or a worker that died half way, goes on from there)."""


# The outbox sweep asks for "pending and due, oldest first": one index answers it without reading
# the rows already sent, which grow for ever.
Index("ix_outbox_status_not_before", Outbox.status, Outbox.not_before)  # type: ignore[arg-type]
# A claim (``service.delivery.rows.claim``) reads the unsent rows in each reader's order, and the
# sender finds a reader's rows queued before a text (``_in_turn``): both without reading the rows
# already sent.
_UNSENT = text("status IN ('pending', 'sending')")
Index(
    "ix_outbox_unsent_by_reader",
    Outbox.identity_id,  # type: ignore[arg-type]
    Outbox.id,  # type: ignore[arg-type]
    postgresql_where=_UNSENT,
    sqlite_where=_UNSENT,
)


class PhaseMark(SQLModel, table=True):
    """Something the worker did once for a phase of a game (``reminder``): the unique key makes
    "never twice for the same phase" hold however many workers run."""

    __tablename__ = "phase_marks"
    __table_args__ = (UniqueConstraint("game_id", "phase_no", "kind", name="uq_phase_mark"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id")
    phase_no: int
    kind: str = Field(max_length=16)
    created_at: datetime = Field(default_factory=utcnow)


class Absence(SQLModel, table=True):
    """How many phases in a row a seat's player let pass without acting when he had to."""

    __tablename__ = "absences"

    seat_id: int = Field(foreign_key="seats.id", primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    misses: int = 0
    last_phase: int = 0
    """The phase last counted (a phase is counted once even if its close is retried)."""


class Volunteer(SQLModel, table=True):
    """Someone waiting to take over the seat of a player who keeps letting phases pass, first come
    first served (``volunteer CODE``)."""

    __tablename__ = "volunteers"
    __table_args__ = (UniqueConstraint("game_id", "identity_id", name="uq_volunteer_game_identity"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    identity_id: int = Field(foreign_key="identities.id")
    created_at: datetime = Field(default_factory=utcnow)


class Heartbeat(SQLModel, table=True):
    """The last sign of life of one web, worker or beat process, written every HEARTBEAT_SECONDS, so
    that the web process (on another machine) can tell whether deadlines are being swept and closed,
    and which channels each process carries. A process that stops cleanly deletes its row."""

    __tablename__ = "heartbeats"

    name: str = Field(primary_key=True, max_length=160)
    """The process: its host and pid."""
    role: str = Field(max_length=16, index=True)
    """web, worker or beat."""
    started_at: datetime = Field(default_factory=utcnow)
    seen_at: datetime = Field(default_factory=utcnow)
    channels: str | None = Field(default=None, max_length=160)
    """The channels it carries, by name, comma-separated ("telegram,sms"; "" for none; None: written
    before processes said so)."""


ALL_MODELS = (Identity, Game, Seat, GameEvent, Inbound, Outbox, PhaseMark, Absence, Volunteer, Heartbeat)
