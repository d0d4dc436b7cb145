"""The worker tries its broker again every second, for as long as it is away (worker.consumer)."""

from __future__ import annotations

from typing import Any

from worker.celery_app import make_celery
from worker.consumer import RETRY_SECONDS, Consumer


class Broker:
    """A connection that records how it was asked to retry, as kombu's `ensure_connection` is."""

    asked: dict[str, Any]

    def ensure_connection(
        self,
        errback: Any = None,
        max_retries: Any = None,
        interval_start: float = 2,
        interval_step: float = 2,
        interval_max: float = 30,
        **kwargs: Any,
    ) -> Broker:
        self.asked = {
            "max_retries": max_retries,
            "interval_start": interval_start,
            "interval_step": interval_step,
            "interval_max": interval_max,
        }
        return self


def test_a_lost_broker_is_tried_again_every_second_without_end(tmp_path: Any) -> None:
    app = make_celery(None, data_dir=tmp_path)
    assert app.conf.worker_consumer == "worker.consumer:Consumer"
    consumer = Consumer.__new__(Consumer)  # only what ensure_connected reads
    consumer.app, consumer.first_connection_attempt, consumer.broker_connection_retry_attempt = app, False, 0
    broker = Broker()
    assert consumer.ensure_connected(broker) is broker
    # Celery's own waits 2, 4, 6... up to 30 s between tries, and gives up after 100.
    assert broker.asked == {
        "max_retries": None,
        "interval_start": RETRY_SECONDS,
        "interval_step": 0,
        "interval_max": RETRY_SECONDS,
    }
