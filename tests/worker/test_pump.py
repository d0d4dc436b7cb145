"""A worker process sends in a thread of its own (``worker.pump``): a dispatch task hands its rows over
and returns at once, so a close never waits behind a send and the sends never stop for a task; what
tasks ask during a pass goes in the next, and a clean stop ends the pass (issue 31: a pass per task
left the bot's slots unused between passes, 21 a second against 28)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from worker.pump import Pump


class Passes:
    """A pass that records what it was asked and waits for ``release`` (a long send)."""

    def __init__(self) -> None:
        self.asked: list[list[int] | None] = []
        self.release = threading.Event()
        self.running = threading.Event()
        self.stopped_by: list[bool] = []

    def __call__(self, ids: list[int] | None, go_on: Callable[[], bool]) -> bool:
        self.asked.append(ids)
        self.running.set()
        while not self.release.wait(0.01):
            if not go_on():
                self.stopped_by.append(True)
                return False
        return False


def _until(check: Callable[[], bool], timeout: float = 5.0) -> None:
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.01)


def test_a_task_hands_its_rows_over_and_returns_while_the_pass_sends() -> None:
    passes = Passes()
    pump = Pump(passes)
    started = time.monotonic()
    pump.ask([3, 1])
    assert time.monotonic() - started < 0.5  # the task is free for the next (a close) at once
    assert passes.running.wait(2)
    pump.ask([7])  # asked during the pass: the next one takes them, with the sweep's "whatever is due"
    pump.ask(None)
    pump.ask([5])
    passes.release.set()
    _until(lambda: len(passes.asked) == 2)
    assert passes.asked == [[1, 3], [5, 7]]
    pump.stop()


def test_a_busy_pass_is_followed_by_another_until_nothing_is_sent() -> None:
    sent = [True, True, False]
    calls: list[list[int] | None] = []

    def run(ids: list[int] | None, go_on: Callable[[], bool]) -> bool:
        calls.append(ids)
        return sent.pop(0) if sent else False

    pump = Pump(run)
    pump.ask([4])
    _until(lambda: len(calls) == 3)
    time.sleep(0.1)
    assert calls == [[4], None, None]  # then it waits for a task to ask
    pump.stop()


def test_a_clean_stop_ends_the_pass_and_waits_for_it() -> None:
    passes = Passes()
    pump = Pump(passes)
    pump.ask(None)
    assert passes.running.wait(2)
    pump.stop()
    assert passes.stopped_by == [True]
