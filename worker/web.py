"""The app a web process serves (``lupus web`` runs ``uvicorn worker.web:app``): ``service.web``'s,
with the worker's hand-off wired in, so that each command's messages are enqueued for dispatch once
committed (``worker.enqueue``). It is put together here because ``service`` imports nothing of the
worker: the web app takes its hand-off as a parameter.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from service import web
from service.game.app import AfterCommit

_app: FastAPI | None = None


def handoff(broker_url: str) -> AfterCommit:
    """The worker's hand-off to the broker at ``broker_url`` (Celery is imported only by a web
    process that has a broker to hand to)."""
    from worker.enqueue import handoff_to

    return handoff_to(broker_url)


def deployment_app() -> FastAPI:
    """The web app of a deployment, from the environment (``service.web.deployment_app``)."""
    return web.deployment_app(handoff)


def __getattr__(name: str) -> Any:
    """``app`` is built when first asked for (by uvicorn, in each of its processes), not when the
    module is imported."""
    global _app
    if name != "app":
        raise AttributeError(name)
    if _app is None:
        _app = deployment_app()
        web.settle_heap()
    return _app
