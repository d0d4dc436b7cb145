"""A clock the sandbox moves: real time plus an offset that only grows.

The service takes its idea of "now" from a callable, so the web app, the in-process worker and the
robots all read this one clock; "next deadline" moves it forward to the earliest deadline, and a
game of days is tried in minutes. It never goes back, so deadlines already passed stay passed.
"""

from __future__ import annotations

import threading
from datetime import datetime, timedelta

from service.store.models import utcnow


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
