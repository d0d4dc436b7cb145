"""The statuses a game, a seat and an outbox row go through, stored as their values (strings)."""

from __future__ import annotations

from enum import StrEnum


class GameStatus(StrEnum):
    LOBBY = "lobby"
    RUNNING = "running"
    OVER = "over"  # ended by the rules: a team won
    ENDED = "ended"  # ended by a host: no winner


FINISHED = (GameStatus.OVER, GameStatus.ENDED)
NOT_FINISHED = (GameStatus.LOBBY, GameStatus.RUNNING)


class SeatStatus(StrEnum):
    JOINED = "joined"
    OPEN = "open"  # waiting for a substitute
    VACANT = "vacant"  # removed by a host


class OutboxStatus(StrEnum):
    PENDING = "pending"
    SENDING = "sending"  # reserved by a worker, or in flight when its sent_at is set
    SENT = "sent"
    FAILED = "failed"  # given up
    HELD = "held"  # waiting for a digest
    MERGED = "merged"  # into a digest
    MISSED = "missed"  # written while its reader was away: never sent, told he missed it
