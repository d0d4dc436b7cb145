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
from pydantic import BaseModel, Field, field_validator
from starlette.exceptions import HTTPException as StarletteHTTPException

SEE_TERMINAL = "the terminal running lupus up says why."


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
    # Any length: a code that is no game's is answered "There is no game #..." by the world.
    code: str = Field(default="", max_length=100, validate_default=True)
    count: int = Field(default=1, ge=1, le=24)

    @field_validator("code")
    @classmethod
    def _picked(cls, code: str) -> str:
        if not code.strip():
            raise ValueError(PICK_A_GAME)
        return code


class Quick(BaseModel):
    size: int = Field(default=8, ge=4, le=24)


class Next(BaseModel):
    code: str | None = Field(default=None, max_length=100)


PICK_A_GAME = "Pick a game first: robots join a game in its lobby."
BUTTON = "Tap a button under one of the bot's messages."
#: What the page says when a field of a request is refused, by (field, pydantic's error type) or by
#: field alone: a sentence a person reads, for requests the page's own forms should not send.
REFUSALS = {
    ("text", "string_too_long"): "That text is too long for the sandbox: at most 100,000 characters.",
    ("text", ""): "Write something first.",
    ("phone", ""): "Say which phone writes.",
    ("name", ""): "A phone's name has at most 20 characters.",
    ("channel", ""): "A phone is on Telegram or on SMS.",
    ("count", ""): "Robots join 1 to 24 at a time.",
    ("code", ""): "There is no game by that code.",
    ("size", ""): "A quick game has 4 to 24 players.",
    ("message_id", ""): BUTTON,
    ("data", ""): BUTTON,
}


def one_line(exc: RequestValidationError) -> str:
    """A request the page's forms should not have sent, said in sentences: what is wrong, what to do."""
    said: list[str] = []
    for err in exc.errors():
        sentence = _refusal(err)
        if sentence not in said:
            said.append(sentence)
    return " ".join(said) or "The page sent a request the sandbox cannot read: reload it."


def _refusal(err: Any) -> str:
    kind, loc = str(err.get("type", "")), [str(x) for x in err.get("loc", ()) if x != "body"]
    if kind == "json_invalid":
        return "The page sent something that is not JSON: reload it."
    if not loc:
        return "The page sent a request the sandbox cannot read: reload it."
    if kind == "value_error":  # a validator's own sentence
        return str(err.get("msg", "")).removeprefix("Value error, ")
    field = loc[-1]
    return REFUSALS.get((field, kind)) or REFUSALS.get((field, "")) or f"The {field.replace('_', ' ')} is not valid."


def make_app(sandbox: World) -> FastAPI:
    app = FastAPI(title="Lupus sandbox", openapi_url=None, docs_url=None, redoc_url=None)
    app.mount("/telegram", sandbox.telegram.app)
    app.mount("/twilio", sandbox.twilio.app)
    add_refusals(app)
    add_page(app, sandbox)
    add_phones(app, sandbox)
    add_games(app, sandbox)
    return app


def add_refusals(app: FastAPI) -> None:
    """What a refused or failed request is answered: one sentence in ``detail``."""

    @app.exception_handler(RequestValidationError)
    async def readable(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": one_line(exc)}, 422)

    @app.exception_handler(StarletteHTTPException)
    async def refused(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        detail = exc.detail
        if exc.status_code == 404 and detail == "Not Found":
            detail = f"The sandbox has no {request.url.path}."
        elif exc.status_code == 405:
            detail = f"The sandbox takes no {request.method} at {request.url.path}."
        return JSONResponse({"detail": detail}, exc.status_code, headers=exc.headers)

    @app.exception_handler(Exception)
    async def failed(_request: Request, exc: Exception) -> JSONResponse:
        # Starlette logs the exception with its traceback after this answer: the terminal shows why.
        return JSONResponse({"detail": f"The sandbox failed ({type(exc).__name__}): {SEE_TERMINAL}"}, 500)


def add_page(app: FastAPI, sandbox: World) -> None:
    """The page itself, and the state it polls."""
    page = files("service.sandbox").joinpath("index.html").read_text(encoding="utf-8")

    @app.get("/", response_class=HTMLResponse)
    def index() -> str:
        return page

    @app.get("/api/state")
    def state() -> dict[str, Any]:
        return sandbox.snapshot()


def answered(status: int) -> JSONResponse:
    """What the page is told of the webhook's answer to a phone's message."""
    if status >= 300:
        return JSONResponse({"detail": f"The bot failed on that message (HTTP {status}): {SEE_TERMINAL}"}, 502)
    return JSONResponse({"status": status})


def add_phones(app: FastAPI, sandbox: World) -> None:
    """A new phone, and what a phone writes or taps."""

    def phone_of(name: str) -> str:
        if name not in sandbox.phones:
            raise HTTPException(404, f"There is no phone called {name}.")
        return name

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
        return answered(status)

    @app.post("/api/tap")
    def tap(body: Tap) -> JSONResponse:
        try:
            status = sandbox.tap(phone_of(body.phone), body.message_id, body.data)
        except ValueError as e:
            raise HTTPException(400, str(e)) from None
        return answered(status)


def add_games(app: FastAPI, sandbox: World) -> None:
    """The games' buttons: the next deadline now, robots to a lobby, a quick game."""

    @app.post("/api/next-deadline")
    def next_deadline(body: Next | None = None) -> dict[str, Any]:
        done = sandbox.advance(body.code if body else None)
        return {
            "line": done.line,
            "deadline": done.deadline.isoformat() if done.deadline else None,
            "now": sandbox.clock.now().isoformat(),
        }

    @app.post("/api/robots")
    def add_robots(body: Robots) -> dict[str, Any]:
        try:
            return {"names": sandbox.add_robots(body.code, body.count)}
        except ValueError as e:
            raise HTTPException(400, str(e)) from None

    @app.post("/api/quick-game")
    def quick_game(body: Quick) -> dict[str, Any]:
        return {"code": sandbox.quick_game(size=body.size)}
