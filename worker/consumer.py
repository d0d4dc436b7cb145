"""The worker's consumer, back on its broker within a second or two of a Redis restart.

Celery's consumer tries again to reach a lost broker 2, 4, 6... up to 30 s apart: after an outage
of a minute, a worker came back 14 s after Redis did, and every close waited meanwhile (issue 31).
This one tries every `RETRY_SECONDS`, for as long as the broker is away
(`broker_connection_max_retries` None, `worker.celery_app`): how long is too long is for the
platform's health check and `/healthz` to say, not a count of tries.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from celery.worker.consumer.consumer import Consumer as CeleryConsumer

RETRY_SECONDS = 1.0


class Consumer(CeleryConsumer):
    def ensure_connected(self, conn: Any) -> Any:
        conn.ensure_connection = partial(
            type(conn).ensure_connection,
            conn,
            interval_start=RETRY_SECONDS,
            interval_step=0,
            interval_max=RETRY_SECONDS,
        )
        return super().ensure_connected(conn)
