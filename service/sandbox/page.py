"""The sandbox's own web app: the page of phones, its small JSON API, and the stand-ins for the Bot
API (/telegram) and Twilio (/twilio) mounted beside them, which the service's senders call.

Plain HTML and JavaScript in one file (index.html), loaded from nothing else: no build step and no
CDN, so the page works with no network at all. It polls /api/state.
"""

from __future__ import annotations

from importlib.resources import files
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, HTTPException
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from service.sandbox.world import Sandbox


class NewPhone(BaseModel):
    name: str | None = Field(default=None, max_length=20)
    channel: str = "telegram"
    robot: bool = False


class Say(BaseModel):
    phone: str
    text: str = Field(min_length=1, max_length=4000)


class Tap(BaseModel):
    phone: str
    message_id: int
    data: str


class Robots(BaseModel):
    code: str = Field(min_length=1, max_length=8)
    count: int = Field(default=1, ge=1, le=24)


class Quick(BaseModel):
    size: int = Field(default=8, ge=4, le=24)


def make_app(sandbox: Sandbox) -> FastAPI:
    app = FastAPI(title="Lupus sandbox", openapi_url=None, docs_url=None, redoc_url=None)
    app.mount("/telegram", sandbox.telegram.app)
    app.mount("/twilio", sandbox.twilio.app)
    page = files("service.sandbox").joinpath("index.html").read_text(encoding="utf-8")

    def phone_of(name: str) -> str:
        if name not in sandbox.phones:
            raise HTTPException(404, f"no phone called {name}")
        return name

    @app.get("/", response_class=HTMLResponse)
    def index() -> str:
        return page

    @app.get("/api/state")
    def state() -> dict[str, Any]:
        return sandbox.snapshot()

    @app.post("/api/phones")
    def add_phone(body: NewPhone) -> dict[str, Any]:
        try:
            phone = sandbox.add_phone(body.name or None, body.channel, body.robot)
        except ValueError as e:
            raise HTTPException(400, str(e)) from None
        return {"name": phone.name, "channel": phone.channel, "address": phone.address}

    @app.post("/api/say")
    def say(body: Say) -> JSONResponse:
        status = sandbox.say(phone_of(body.phone), body.text.strip() or body.text)
        return JSONResponse({"status": status}, 200 if status < 300 else 502)

    @app.post("/api/tap")
    def tap(body: Tap) -> JSONResponse:
        try:
            status = sandbox.tap(phone_of(body.phone), body.message_id, body.data)
        except ValueError as e:
            raise HTTPException(400, str(e)) from None
        return JSONResponse({"status": status}, 200 if status < 300 else 502)

    @app.post("/api/next-deadline")
    def next_deadline() -> dict[str, Any]:
        when = sandbox.next_deadline()
        return {"deadline": when.isoformat() if when else None, "now": sandbox.clock.now().isoformat()}

    @app.post("/api/robots")
    def add_robots(body: Robots) -> dict[str, Any]:
        return {"names": sandbox.add_robots(body.code, body.count)}

    @app.post("/api/quick-game")
    def quick_game(body: Quick) -> dict[str, Any]:
        return {"code": sandbox.quick_game(size=body.size)}

    return app
