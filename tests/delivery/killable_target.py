"""The worker of ``tests/worker/celery_target`` (the product's app on a clock the test moves), with
one test-only change for the mixed game's kill: once the test creates the file named by
``LUPUS_TEST_KILL_ARM``, the next text to a Telegram group that the stand-in accepts is followed, in
the worker that sent it, by a line ``pid dedup_key`` in ``LUPUS_TEST_KILL_MARKS`` and a long sleep
before the send returns: the test kills that worker there, with the group's rows in flight (the
platform has them, the outbox does not know)."""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from service.channels.telegram.sender import TelegramSender
from service.delivery.senders import Keyboard, SendResult
from tests.worker.celery_target import app  # noqa: F401 - what `celery -A` looks for

_ARM = Path(os.environ["LUPUS_TEST_KILL_ARM"])
_MARKS = Path(os.environ["LUPUS_TEST_KILL_MARKS"])
_send = TelegramSender.send


def _send_then_stall(
    self: TelegramSender, address: str, text: str, *, buttons: Keyboard | None = None, dedup_key: str
) -> SendResult:
    result = _send(self, address, text, buttons=buttons, dedup_key=dedup_key)
    if result.ok and address.startswith("-"):
        with contextlib.suppress(FileNotFoundError):
            _ARM.unlink()  # one send of one worker takes it
            with _MARKS.open("a") as f:
                f.write(f"{os.getpid()} {dedup_key}\n")
            time.sleep(600)
    return result


TelegramSender.send = _send_then_stall  # type: ignore[method-assign]
