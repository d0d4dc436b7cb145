"""The app the webhook bench serves: the real one from ``service.web.create_app`` (settings from the
environment, as in production) plus a bare FastAPI endpoint beside it, ``POST /bare`` answering
``{}``, so both are measured on the same server. ``uvicorn --factory bench.webhook.server:app``."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.responses import JSONResponse

from service import web


def app() -> FastAPI:
    application = web.create_app()

    @application.post("/bare")
    async def bare() -> JSONResponse:
        return JSONResponse({})

    return application
