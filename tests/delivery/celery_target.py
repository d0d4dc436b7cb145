"""The app a worker subprocess runs in the Celery tests (`celery -A tests.delivery.celery_target`).

The broker comes from the test through the environment: this is test scaffolding, not the product,
whose app will be built from the settings object.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from worker.celery_app import RetryLater, TransientError, make_celery

OUT = Path(os.environ.get("LUPUS_TEST_OUT", "/nonexistent"))
app = make_celery(
    os.environ.get("LUPUS_TEST_BROKER") or None,
    data_dir=os.environ.get("LUPUS_TEST_DATA", "var"),
    include=[],
    visibility_timeout=float(os.environ.get("LUPUS_TEST_VISIBILITY", "3600")),
)


def _attempt(name: str) -> int:
    """Counts the runs of `name` in a file, so a test sees retries across processes."""
    marker = OUT / f"{name}.attempts"
    n = int(marker.read_text()) + 1 if marker.exists() else 1
    marker.write_text(str(n))
    return n


def _done(name: str, text: str) -> None:
    with open(OUT / "done.log", "a") as f:
        f.write(f"{name}:{text}\n")


@app.task(name="t.echo")
def echo(text: str) -> None:
    _done("echo", text)


@app.task(name="t.flaky")
def flaky(text: str) -> None:
    if _attempt("flaky") < 3:
        raise TransientError("the platform is down")
    _done("flaky", text)


@app.task(name="t.deferred")
def deferred(text: str) -> None:
    if _attempt("deferred") < 3:
        raise RetryLater(0.2, "rate limit")
    _done("deferred", text)


@app.task(name="t.crash")
def crash(text: str) -> None:
    # The first run kills the worker mid-task, as an OOM kill or a deploy would.
    if _attempt("crash") == 1:
        os._exit(1)
    _done("crash", text)


@app.task(name="t.slow")
def slow(text: str) -> None:
    # A send holding its pool process for a while, as a dispatch does for its budget.
    time.sleep(0.3)
    _done("slow", text)


@app.task(name="lupus.close_phase")  # the name routes it to the closes' queue, as the product's
def close(text: str) -> None:
    _done("close", text)
