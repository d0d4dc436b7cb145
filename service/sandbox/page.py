"""The sandbox's own web app: the page of phones, its small JSON API, and the stand-ins for the Bot
API (/telegram) and Twilio (/twilio) mounted beside them, which the service's senders call.

Plain HTML and JavaScript in one file (index.html), loaded from nothing else: no build step and no
CDN, so the page works with no network at all. It polls /api/state.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from importlib.resources import files
from typing import Any, Protocol

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, Field


class Mounted(Protocol):
    """A stand-in's web app (the Bot API's, Twilio's)."""

    @property
    def app(self) -> Any: ...


class Passed(Protocol):
    @property
    def line(self) -> str: ...
    @property
    def deadline(self) -> datetime | None: ...


class Phone(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def channel(self) -> str: ...
    @property
    def address(self) -> str: ...


class Clock(Protocol):
    def now(self) -> datetime: ...


class World(Protocol):
    """What the page drives (``service.sandbox.world.Sandbox``), named here so that the page depends
    on the world's shape and the world on the page, not each on the other."""

    @property
    def telegram(self) -> Mounted: ...
    @property
    def twilio(self) -> Mounted: ...
    @property
    def clock(self) -> Clock: ...

    @property
    def phones(self) -> Mapping[str, Any]: ...

    def snapshot(self) -> dict[str, Any]: ...
    def add_phone(self, name: str | None = None, channel: str = "telegram", robot: bool = False) -> Phone: ...
    def say(self, name: str, text: str) -> int: ...
    def tap(self, name: str, message_id: int, data: str) -> int: ...
    def advance(self, code: str | None = None) -> Passed: ...
    def add_robots(self, code: str, count: int = 1) -> list[str]: ...
    def quick_game(self, humans: tuple[tuple[str | None, str], ...] = ..., size: int = 8) -> str: ...


class NewPhone(BaseModel):
    name: str | None = Field(default=None, max_length=20)
    channel: str = "telegram"
    robot: bool = False


class Say(BaseModel):
    phone: str
    # The phones themselves take or refuse long texts as real ones do (``Sandbox.say``); this only
    # keeps a pasted book out.
    text: str = Field(min_length=1, max_length=100_000)


class Tap(BaseModel):
    phone: str
    message_id: int
    data: str


class Robots(BaseModel):
    code: str = Field(min_length=1, max_length=8)
    count: int = Field(default=1, ge=1, le=24)


class Quick(BaseModel):
    size: int = Field(default=8, ge=4, le=24)


class Next(BaseModel):
    code: str | None = Field(default=None, max_length=9)


def one_line(exc: RequestValidationError) -> str:
    """A request the page's forms should not have sent, said in a line: which field, what is wrong."""
    out = []
    for err in exc.errors():
        field = ".".join(str(x) for x in err.get("loc", ()) if x != "body") or "request"
        out.append(f"{field}: {str(err.get('msg', 'not valid')).removeprefix('Value error, ')}")
    return "; ".join(out) or "the request is not valid"


def make_app(sandbox: World) -> FastAPI:
    app = FastAPI(title="Lupus sandbox", openapi_url=None, docs_url=None, redoc_url=None)
    app.mount("/telegram", sandbox.telegram.app)
    app.mount("/twilio", sandbox.twilio.app)
    page = files("service.sandbox").joinpath("index.html").read_text(encoding="utf-8")

    @app.exception_handler(RequestValidationError)
    async def readable(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": one_line(exc)}, 422)

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
        try:
            status = sandbox.say(phone_of(body.phone), body.text.strip() or body.text)
        except ValueError as e:  # a text the phone would not send
            raise HTTPException(400, str(e)) from None
        if status >= 300:
            return JSONResponse({"detail": f"the service answered HTTP {status}"}, 502)
        return JSONResponse({"status": status})

    @app.post("/api/tap")
    def tap(body: Tap) -> JSONResponse:
        try:
            status = sandbox.tap(phone_of(body.phone), body.message_id, body.data)
        except ValueError as e:
            raise HTTPException(400, str(e)) from None
        if status >= 300:
            return JSONResponse({"detail": f"the service answered HTTP {status}"}, 502)
        return JSONResponse({"status": status})

    @app.post("/api/next-deadline")
    def next_deadline(body: Next | None = None) -> dict[str, Any]:
        done = sandbox.advance(body.code if body else None)
        return {"line": done.line, "deadline": done.deadline.isoformat() if done.deadline else None,
                "now": sandbox.clock.now().isoformat()}

    @app.post("/api/robots")
    def add_robots(body: Robots) -> dict[str, Any]:
        try:
            return {"names": sandbox.add_robots(body.code, body.count)}
        except ValueError as e:
            raise HTTPException(400, str(e)) from None

    @app.post("/api/quick-game")
    def quick_game(body: Quick) -> dict[str, Any]:
        return {"code": sandbox.quick_game(size=body.size)}

    return app
