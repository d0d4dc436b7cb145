"""A clock the sandbox moves: real time plus an offset that only grows.

The service takes its idea of "now" from a callable, so the web app, the in-process worker and the
robots all read this one clock; "next deadline" moves it forward to the earliest deadline, and a
game of days is tried in minutes. It never goes back, so deadlines already passed stay passed.
"""

from __future__ import annotations

import threading
from datetime import datetime, timedelta

from service.store.models import utcnow
from service.texts.i18n import deadline_text, duration_text


class SandboxClock:
    def __init__(self) -> None:
        self._offset = timedelta()
        self._lock = threading.Lock()

    def __call__(self) -> datetime:
        return self.now()

    def now(self) -> datetime:
        with self._lock:
            return utcnow() + self._offset

    @property
    def offset(self) -> timedelta:
        with self._lock:
            return self._offset

    def advance_to(self, when: datetime) -> datetime:
        """Move on to `when` (a moment in the past changes nothing); returns the new now."""
        with self._lock:
            gap = when - (utcnow() + self._offset)
            if gap > timedelta():
                self._offset += gap
            return utcnow() + self._offset

    def advance(self, by: timedelta) -> datetime:
        return self.advance_to(self.now() + by)


def duration_words(span: timedelta) -> str:
    """A span in words a person reads at a glance: to the hour past a day ("2 days 19 hours"), to
    the minute under one ("11 hours 59 minutes"), "less than a minute" under that."""
    seconds = span.total_seconds()
    if seconds < 60:
        return "less than a minute"
    if seconds >= 86400:
        seconds = round(seconds / 3600) * 3600
    return duration_text(seconds, "en")


def ahead_text(offset: timedelta) -> str:
    """How far the sandbox's clock runs ahead of the real one: "2 days 19 hours ahead of the real clock"."""
    if offset.total_seconds() < 60:
        return "in step with the real clock"
    return f"{duration_words(offset)} ahead of the real clock"


def clock_text(now: datetime, offset: timedelta, zone: str) -> str:
    """The sandbox's date and time as the phones write times (in the games' zone, named), and how far
    ahead of the real clock it runs: "Mon 7 Dec 21:55 CET · 2 days 12 hours ahead of the real clock"."""
    return f"{deadline_text(now, zone, 'en')} · {ahead_text(offset)}"
