"""Errors reported to Sentry (sentry-sdk), in every process, when SENTRY_DSN is set; nothing at all
happens without it.

The web process reports through the SDK's FastAPI (and Starlette) integration, the worker and beat
through its Celery integration; the logging integration (on by default) turns every ``log.error``
(``task.failed``, for instance) into an event as well. What players wrote to the moderator and the
platforms' secrets are never sent: no request bodies, no local variables of the failing frames
(they hold the update being handled), and the webhook's secret and signature headers scrubbed. A
503 is not an error: /healthz answers it while something else is down, and a monitor polling it
would report the same outage every minute.
"""

from __future__ import annotations

from typing import Any

from service.settings import Settings

_started: str | None = None
SECRET_HEADERS = ["x-telegram-bot-api-secret-token", "x-twilio-signature"]


def init_sentry(settings: Settings, process: str) -> bool:
    """Start the SDK once per process (``process``: web, worker or beat, sent as a tag)."""
    global _started
    if not settings.SENTRY_DSN or _started is not None:
        return False
    import sentry_sdk
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.fastapi import FastApiIntegration
    from sentry_sdk.integrations.starlette import StarletteIntegration
    from sentry_sdk.scrubber import DEFAULT_DENYLIST, EventScrubber

    failed = {*range(500, 503), *range(504, 600)}
    integrations: list[Any] = [
        StarletteIntegration(failed_request_status_codes=failed),
        FastApiIntegration(failed_request_status_codes=failed),
        CeleryIntegration(monitor_beat_tasks=False),
    ]
    sentry_sdk.init(
        dsn=settings.SENTRY_DSN,
        environment=settings.SENTRY_ENVIRONMENT,
        traces_sample_rate=settings.SENTRY_TRACES_SAMPLE_RATE,
        integrations=integrations,
        send_default_pii=False,
        max_request_body_size="never",
        include_local_variables=False,
        event_scrubber=EventScrubber(denylist=[*DEFAULT_DENYLIST, *SECRET_HEADERS], recursive=True),
    )
    sentry_sdk.set_tag("process", process)
    _started = process
    return True
