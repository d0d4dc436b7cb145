"""Prometheus metrics: what an operator charts (prometheus-client).

Counters are kept where things happen (the web process counts updates and moves, the worker counts
texts and closes) and are safe for several processes: a production process switches to the
library's multiprocess mode (``multiprocess``) before it starts its children, each process then
writes its own file under ``METRICS_DIR/<role>``, and one ``/metrics`` sums the files of every role
on that machine. Gauges of the whole deployment (outbox depth, overdue phases, heartbeats) are read
from the database at each scrape instead, so any web process tells the truth about all of them.

A count that depends on a transaction (a move applied, a phase closed) is made only once it has
committed (``on_commit``): a command retried after a conflict, or a batch run again one by one,
counts once.
"""

from __future__ import annotations

import glob
import logging
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client import values as _values
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from sqlalchemy import Engine, event, func
from sqlmodel import Session, col, select

from service.settings import Settings, hand_down
from service.store.status import OutboxStatus

__all__ = ["CONTENT_TYPE_LATEST", "exposition"]

ROLES = ("web", "worker", "beat")
ENV = "PROMETHEUS_MULTIPROC_DIR"
"""The variable prometheus-client itself reads (in the processes a server or a pool starts)."""

# Every metric has a label, so that no value is made before a process has chosen its mode.
UPDATES = Counter(
    "lupus_updates_received", "Webhook calls from the platforms, by channel and answer.", ["channel", "status"]
)
ACTIONS = Counter("lupus_actions_applied", "Moves the rules accepted, by verb.", ["verb"])
REFUSALS = Counter("lupus_refusals", "Moves the rules refused (the player was told why), by reason.", ["reason"])
TEXTS_SENT = Counter("lupus_texts_sent", "Texts the platforms accepted, by channel.", ["channel"])
TEXTS_FAILED = Counter(
    "lupus_texts_failed", "Sends that failed, by channel and kind (transient, permanent).", ["channel", "kind"]
)
RATE_LIMITED = Counter("lupus_rate_limited", "Sends the platform answered 429 (retry after), by channel.", ["channel"])
PHASES_CLOSED = Counter("lupus_phases_closed", "Phases closed at their deadline, by rule set.", ["rules"])
CLOSE_LATENESS = Histogram(
    "lupus_phase_close_lateness_seconds",
    "How long after its deadline a phase closed.",
    ["rules"],
    buckets=(0.5, 1, 2, 5, 10, 30, 60, 120, 300, 900, 3600),
)

_PENDING = "lupus.metrics"
log = logging.getLogger(__name__)


def safely(count: Callable[[], object]) -> None:
    """Count, and never let counting fail what was counted: a text already accepted by the
    platform must be settled as sent, a command already committed must not look failed (and be
    retried). A counter's file gone missing is logged instead."""
    try:
        count()
    except Exception as e:
        log.warning("metrics: not counted: %r", e)


def on_commit(session: Session, count: Callable[[], object]) -> None:
    """Count once the session's transaction commits (nothing if it rolls back)."""
    session.info.setdefault(_PENDING, []).append(count)


def inc_on_commit(session: Session, counter: Counter, **labels: str) -> None:
    """``counter`` with these labels, plus one once the transaction commits."""
    on_commit(session, lambda: counter.labels(**labels).inc())


@event.listens_for(Session, "after_commit")
def _after_commit(session: Session) -> None:
    for count in session.info.pop(_PENDING, ()):
        safely(count)


@event.listens_for(Session, "after_rollback")
def _after_rollback(session: Session) -> None:
    session.info.pop(_PENDING, None)


# -- processes -----------------------------------------------------------------------------------
def base_dir(settings: Settings) -> Path:
    return Path(settings.METRICS_DIR) if settings.METRICS_DIR else Path(tempfile.gettempdir()) / "lupus-metrics"


def multiprocess(settings: Settings, role: str, *, fresh: bool = True) -> Path:
    """Count in files from now on, in this process and in the ones it starts (uvicorn's workers, a
    Celery pool's children). ``fresh``: the role's files of an earlier run on this machine are
    removed (a restarted process must not add its old totals to the new ones)."""
    folder = base_dir(settings) / role
    if fresh:
        shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True, exist_ok=True)
    hand_down(ENV, str(folder))
    _values.ValueClass = _values.MultiProcessValue()
    global _in_files
    _in_files = True
    return folder


_in_files = False


def in_files(settings: Settings) -> bool:
    """Whether this process counts in files: it switched (``multiprocess``), or a process that did
    started it (uvicorn's workers: the variable is in their settings)."""
    return _in_files or bool(settings.PROMETHEUS_MULTIPROC_DIR)


class _Files:
    """Every role's files on this machine, merged (one collector: two would name the same metrics)."""

    def __init__(self, folders: Iterable[Path]) -> None:
        self.folders = list(folders)

    def collect(self) -> Iterator[Metric]:
        files = [f for folder in self.folders for f in glob.glob(str(folder / "*.db"))]
        return iter(MultiProcessCollector.merge(files, accumulate=True))


def exposition(settings: Settings, db: Engine | None, now: Any = None) -> bytes:
    """The text a scrape gets: the counters (this machine's files, or this process's own when it
    counts in memory: the sandbox and tests) and the deployment's gauges from the database."""
    if in_files(settings):
        registry = CollectorRegistry()
        registry.register(_Files(base_dir(settings) / role for role in ROLES))
        out = generate_latest(registry)
    else:
        out = generate_latest(REGISTRY)
    if db is not None:
        gauges = CollectorRegistry()
        gauges.register(_Database(db, settings, now))
        out += generate_latest(gauges)
    return out


def serve(settings: Settings, port: int) -> Any:
    """A worker's own /metrics on ``port`` (its machine's files), for a scraper that reaches it."""
    from prometheus_client import start_http_server

    registry = CollectorRegistry()
    registry.register(_Files(base_dir(settings) / role for role in ROLES))
    return start_http_server(port, registry=registry)


class _Database:
    """The deployment's state, read at each scrape."""

    def __init__(self, db: Engine, settings: Settings, now: Any) -> None:
        self.db, self.settings, self.now = db, settings, now

    def collect(self) -> Iterator[Metric]:
        from service.ops.health import ROLES as LIVE
        from service.ops.health import liveness
        from service.store.models import Outbox

        live = liveness(self.db, self.settings, self.now)
        with Session(self.db) as s:
            depth = dict(
                s.exec(
                    select(Outbox.status, func.count())
                    .where(col(Outbox.status).in_((OutboxStatus.PENDING, OutboxStatus.SENDING, OutboxStatus.HELD)))
                    .group_by(col(Outbox.status))
                ).all()
            )
        g = GaugeMetricFamily("lupus_outbox_depth", "Outbox rows not sent yet, by status.", labels=["status"])
        for status in (OutboxStatus.PENDING, OutboxStatus.SENDING, OutboxStatus.HELD):
            g.add_metric([status], depth.get(status, 0))
        yield g
        yield GaugeMetricFamily(
            "lupus_outbox_oldest_unsent_seconds",
            "Age of the oldest unsent outbox row.",
            value=live.oldest_unsent or 0.0,
        )
        yield GaugeMetricFamily(
            "lupus_phases_overdue", "Running phases whose deadline passed long ago.", value=live.overdue
        )
        yield GaugeMetricFamily(
            "lupus_failed_sends_last_hour", "Outbox rows given up in the last hour.", value=live.failed_last_hour
        )
        hb = GaugeMetricFamily(
            "lupus_heartbeat_age_seconds",
            "Seconds since the newest heartbeat, by role (absent: none running).",
            labels=["role"],
        )
        for role in LIVE:
            age = live.age(role)
            if age is not None:
                hb.add_metric([role], age)
        yield hb


# -- where the counts are made -------------------------------------------------------------------
class Metered:
    """A sender that counts what its sends came to (texts sent, failed, refused with 429); the rest
    (``cost``, ``act``, ``warm``, ``close``) is the sender's own."""

    def __init__(self, sender: Any) -> None:
        self._sender = sender
        self.channel: str = sender.channel

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sender, name)

    def send(self, address: str, text: str, **kwargs: Any) -> Any:
        from service.delivery.senders import SendStatus

        result = self._sender.send(address, text, **kwargs)
        if result.status is SendStatus.SENT:
            safely(lambda: TEXTS_SENT.labels(channel=self.channel).inc())
        elif result.status is SendStatus.RETRY_AFTER:
            safely(lambda: RATE_LIMITED.labels(channel=self.channel).inc())
        else:
            safely(lambda: TEXTS_FAILED.labels(channel=self.channel, kind=result.status.value).inc())
        return result


def count_close(ctx: Any, room: Any) -> None:
    """``Service.before_close`` hook: the phase closes (once committed), this late after its deadline."""
    game = room.game
    if game.deadline is None:
        return
    deadline = game.deadline if game.deadline.tzinfo else game.deadline.replace(tzinfo=ctx.now.tzinfo)
    late = max(0.0, (ctx.now - deadline).total_seconds())
    rules = str(game.rules)

    def count() -> None:
        PHASES_CLOSED.labels(rules=rules).inc()
        CLOSE_LATENESS.labels(rules=rules).observe(late)  # (on_commit counts safely)

    on_commit(ctx.session, count)
