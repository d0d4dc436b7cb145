"""The web process's hand-off to the worker: ids queued at once, sent by a thread, what piled up
while it sent going as one task; a broker that fails loses nothing but the enqueue."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from worker.enqueue import Handoff


def test_ids_that_pile_up_while_sending_go_in_one_task() -> None:
    sent: list[list[int]] = []
    first_in, release = threading.Event(), threading.Event()

    def send(ids: list[int]) -> None:
        sent.append(ids)
        first_in.set()
        release.wait(10)

    handoff = Handoff(send)
    handoff([1, 2])
    assert first_in.wait(10)
    handoff([3])
    handoff([])  # a command that wrote nothing sends nothing
    handoff([4, 5])
    release.set()
    end = time.monotonic() + 10
    while len(sent) < 2 and time.monotonic() < end:
        time.sleep(0.01)
    assert sent == [[1, 2], [3, 4, 5]]


def test_a_failing_broker_does_not_stop_the_handoff() -> None:
    sent: list[list[int]] = []

    def send(ids: list[int]) -> None:
        if not sent:
            sent.append([])
            raise ConnectionError("broker down")
        sent.append(ids)

    handoff = Handoff(send)
    handoff([1])
    end = time.monotonic() + 10
    while not sent and time.monotonic() < end:
        time.sleep(0.01)
    handoff([2])
    while len(sent) < 2 and time.monotonic() < end:
        time.sleep(0.01)
    assert sent == [[], [2]]  # the rows of [1] stay pending for the outbox sweep


def test_the_deployments_web_app_hands_off_to_the_worker_only_with_a_broker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``worker.web`` (what `lupus web` serves) gives service.web's app the worker's hand-off when
    there is a broker; the service itself knows nothing of the worker."""
    from service.settings import get_settings
    from worker import web

    for name in ("TELEGRAM_BOT_TOKEN", "TWILIO_ACCOUNT_SID", "TWILIO_AUTH_TOKEN", "REDIS_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'web.db'}")
    for broker, handed_off in ((None, False), ("redis://127.0.0.1:9/0", True)):
        if broker:
            monkeypatch.setenv("REDIS_URL", broker)
        get_settings.cache_clear()
        try:
            service = web.deployment_app().state.web.service
            assert isinstance(service.after_commit, Handoff) is handed_off
            service.db.dispose()
        finally:
            get_settings.cache_clear()
