"""The product's worker app (`worker.app`, built from the settings the test puts in the
environment), with one test-only change: the service's clock runs ahead of real time by a lead
read from a file the test moves, so phases that last hours pass in seconds."""

from __future__ import annotations

import faulthandler
import os
import signal
from datetime import UTC, datetime, timedelta
from pathlib import Path

from worker import runtime, tasks  # noqa: F401 - registers the tasks
from worker.app import app  # noqa: F401 - what `celery -A` looks for

_CLOCK = Path(os.environ["LUPUS_TEST_CLOCK"])


def _now() -> datetime:
    return datetime.now(UTC) + timedelta(seconds=float(_CLOCK.read_text()))


runtime.clock = _now

# `kill -USR1 <worker pid>` prints every thread's stack into the worker's log (for a hung worker).
faulthandler.register(signal.SIGUSR1, all_threads=True)
