"""Playing a game through the real webhook while the real worker runs (shared by the fault tests)."""

from __future__ import annotations

import itertools
import time
from collections import Counter
from collections.abc import Callable
from typing import Any, Protocol

from fastapi.testclient import TestClient

from service.delivery.rows import ABANDONED
from service.sandbox import inbound
from service.sandbox.fake_telegram import FakeTelegram
from tests.worker.conftest import Table

SECRET = "reliability-secret"


class Say(Protocol):
    """What ``Table.say`` is, so that ``webhook_say`` may stand in for it."""

    def __call__(self, address: str, text: str) -> list[str]: ...


def webhook_say(table: Table, client: TestClient, sent: list[int]) -> Say:
    """``table.say`` through ``POST /telegram/webhook``, retried as Telegram retries an update it
    got no 2xx for (the same update_id, so the service may apply it at most once)."""
    ids = itertools.count(1)

    def say(address: str, text: str) -> list[str]:
        update = inbound.text_update(
            inbound.telegram_user(int(address), f"u{address}", language_code="en"), text, update_id=next(ids)
        )
        for _ in range(100):
            status = client.post("/telegram/webhook", json=update, headers=inbound.telegram_headers(SECRET)).status_code
            if status < 500:
                assert status == 200, (text, status)
                sent.append(update["update_id"])
                return []
            time.sleep(0.2)
        raise AssertionError(f"the webhook did not take {text!r}")

    return say


def assert_delivered(table: Table, fake: FakeTelegram, may_repeat: Callable[[Any], bool] | None = None) -> None:
    """Every outbox row sent, and each text received by its reader once; a second copy only of a row
    ``may_repeat`` (default: a row found abandoned while sending, which ``dispatch.py`` sends again)."""
    repeat = may_repeat or (lambda r: (r.last_error or "").startswith(ABANDONED))
    rows = table.rows()
    assert {r.status for r in rows} == {"sent"}, [
        (r.id, r.status, r.attempts, r.last_error) for r in rows if r.status != "sent"
    ]
    for pid in {r.identity_id for r in rows}:
        mine = [r for r in rows if r.identity_id == pid]
        want = Counter(r.text for r in mine)
        spare = Counter(r.text for r in mine if repeat(r))
        got = Counter(m["text"] for m in fake.sent(int(table.person_address(pid))))
        assert set(got) == set(want), (pid, set(got) ^ set(want))
        for text, n in got.items():
            assert want[text] <= n <= want[text] + spare[text], (pid, text, n, want[text], spare[text])


def assert_in_order(table: Table, fake: FakeTelegram) -> None:
    """Each reader got his texts in the outbox's order (a chat's rows go one after another): one
    copy each, but for a row found abandoned while sending, which may come a second time right
    after the first (it reached the platform before the worker died, and was sent once more)."""
    rows = table.rows()
    for pid in {r.identity_id for r in rows}:
        mine = [r for r in rows if r.identity_id == pid]
        got = [m["text"] for m in fake.sent(int(table.person_address(pid)))]
        i = 0
        for n, text in enumerate(got):
            if i < len(mine) and text == mine[i].text:
                i += 1
            elif i and text == mine[i - 1].text and (mine[i - 1].last_error or "").startswith(ABANDONED):
                continue  # the second copy of the row before
            else:
                expected = mine[i].text if i < len(mine) else "nothing more"
                raise AssertionError(f"reader {pid}'s text {n} is {text!r}, where {expected!r} was due")
        assert i == len(mine), (pid, [r.text for r in mine[i:]])
