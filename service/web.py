"""The web app: Telegram's webhook, Twilio's SMS webhook and delivery reports, health, a home page.

Each webhook route authenticates, parses the request into one command text, and makes one call
of the application service; no rules live here.

Why the service is called before the webhook is answered (and not after, from a queue): the call
is one short transaction, and a 200 then means the message is committed (its update_id or
MessageSid in the inbound log, its replies in the outbox). Had we answered first, a crash in
between would lose the message, since Telegram and Twilio retry only what was not answered 2xx.
The call runs in a worker thread (the service is synchronous), so the event loop stays free; the
Telegram messages that arrive while one transaction runs are committed together in the next
(``service.group_commit``), for less CPU and fewer connections a move when many come at once. A
repeat delivery is dropped by the inbound log; out-of-order updates are fine (each is one
command). Replies go through the outbox, never in the webhook's answer, so they are rate
limited, retried and opt-out aware like everything else; only a button tap is answered in the
response itself (answerCallbackQuery, as the Bot API allows), which costs no request.

python-telegram-bot's custom-webhook pattern, without its object tree for the update: the few
fields a command needs are read from the JSON (``channels.telegram.inbound.incoming``); an ``Application``
built without an updater is initialized (one getMe, for the bot's username in t.me links) on the
first update that needs it, never at import.
"""

from __future__ import annotations

import asyncio
import gc
import hmac
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import parse_qsl

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from sqlalchemy import text as sql
from starlette.concurrency import run_in_threadpool

from service import metrics
from service.app import AfterCommit, Service
from service.channels.base import Incoming
from service.channels.sms import inbound as sms
from service.channels.telegram import inbound as telegram
from service.db import is_sqlite, make_engine
from service.group_commit import GroupCommit
from service.health import liveness
from service.logging import configure as configure_logging
from service.reporting import init_sentry
from service.settings import Settings, get_settings, redis_tls_options
from service.web_openapi import TELEGRAM_WEBHOOK, TWILIO_SMS, TWILIO_STATUS

log = logging.getLogger(__name__)
# Connections of one web process (Settings.db_pool): a command holds one for one short transaction,
# in one of the thread pool's threads (40); Telegram's commands, committed together, take one between
# them. With one process, 16 kept and 8 more when needed: SQLAlchemy's default of five, at 16
# requests in flight, opens and closes an overflow connection every 20 or so commands (a backend
# started each time), and a few threads on as few connections serve a fraction of the commands a
# second that 40 threads do. Several processes share WEB_DB_CONNECTIONS (the runbook's budget).
UPDATE_ROUTES = {"/telegram/webhook": "telegram", "/sms/twilio": "sms"}
MAX_BODY = 64 * 1024
"""Telegram's updates and Twilio's forms are a few kilobytes; anything far bigger is not theirs."""
TWIML_EMPTY = '<?xml version="1.0" encoding="UTF-8"?><Response/>'
HOME = """<!doctype html><html><head><meta charset="utf-8"><title>Lupus by Message</title></head>
<body><h1>Lupus by Message</h1><p>A moderator bot for Lupus in Tabula (Werewolf), played slowly by
Telegram and SMS. Write <code>help</code> to the bot to begin. Health: <a href="/healthz">/healthz</a>.</p>
</body></html>"""


def channels(settings: Settings) -> dict[str, dict[str, Any]]:
    """Which channels are on, and why one is off (a channel without credentials is simply off)."""
    tg_missing = [n for n in ("TELEGRAM_BOT_TOKEN", "TELEGRAM_WEBHOOK_SECRET") if not getattr(settings, n)]
    sms_missing = [n for n in ("TWILIO_ACCOUNT_SID", "TWILIO_AUTH_TOKEN") if not getattr(settings, n)]
    if not (settings.TWILIO_FROM_NUMBER or settings.TWILIO_MESSAGING_SERVICE_SID):
        sms_missing.append("TWILIO_FROM_NUMBER or TWILIO_MESSAGING_SERVICE_SID")

    def state(missing: list[str]) -> dict[str, Any]:
        return {"on": True} if not missing else {"on": False, "why": " and ".join(missing) + " not set"}

    return {"telegram": state(tg_missing), "sms": state(sms_missing)}


async def read_body(request: Request, content_type: str) -> bytes:
    """The body, refused early if it is too big (413) or not of the type the sender sends (415)."""
    length = request.headers.get("content-length", "")
    if length.isdecimal() and int(length) > MAX_BODY:  # not isdigit: int("²") fails
        raise HTTPException(413, "request body too large")
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != content_type:
        raise HTTPException(415, f"expected {content_type}")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise HTTPException(413, "request body too large")
    return bytes(body)


def parse_form(body: bytes) -> dict[str, str]:
    try:
        pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, strict_parsing=bool(body))
    except (UnicodeDecodeError, ValueError):
        raise HTTPException(400, "malformed form") from None
    return dict(pairs)


def settle_heap() -> None:
    """Leave what the process has built so far out of every later garbage collection.

    A full collection walks every object the process holds: the modules, SQLAlchemy's mappers and
    compiled statements, the states the rooms keep. In a web process that took 60 to 115 ms every few
    seconds under load (gc.callbacks, bench/webhook at 300 updates a second), so that many updates
    waited as long, and the p99 was the collector's. Those objects live as long as the process, so
    they are collected (what is garbage goes first) and frozen once they exist: at import, and again
    after the first command (SQLAlchemy configures its mappers and compiles the hot statements then).
    Later objects are collected as usual."""
    gc.collect()
    gc.freeze()


class Web:
    """What the routes share: the settings, the service (made on first use) and the Telegram app."""

    def __init__(self, settings: Settings, service: Service | None, after_commit: AfterCommit | None = None) -> None:
        self.settings = settings
        self._service = service
        self._after_commit = after_commit
        self._tg_app: Any = None
        self._tg_lock = asyncio.Lock()
        self._tg_next_try = 0.0
        self._settled = service is not None  # a test's app (it brings its service) is left alone
        self.inbound: GroupCommit[Incoming, list[str]] = GroupCommit(self._handle_many)
        """Telegram's messages, committed together when they come together (``service.group_commit``)."""

    def _handle_many(self, messages: list[Incoming]) -> list[list[str] | Exception]:
        out = self.service.handle_inbound_many(messages)
        self.first_command_done()
        return out

    def handle_sms(self, form: dict[str, str]) -> None:
        sms.handle(self.service, form)
        self.first_command_done()

    def first_command_done(self) -> None:
        """After a command, in the command's thread: the heap is settled once (``settle_heap``)."""
        if not self._settled:
            self._settled = True
            settle_heap()

    @property
    def service(self) -> Service:
        if self._service is None:  # no connection is made until a command needs one
            # Without a ping per command: each command is one transaction that Service retries on
            # OperationalError, which is what a connection dropped by a database restart raises.
            url = self.settings.DATABASE_URL
            pool = {} if is_sqlite(url) else self.settings.db_pool("web")
            self._service = Service(self.settings, make_engine(url, pre_ping=False, **pool))
            if self._after_commit is not None:  # the worker hears of every command's messages at once
                self._service.after_commit = self._after_commit
        return self._service

    def telegram_app(self) -> Any:
        if self._tg_app is None:
            from telegram.ext import Application

            from service.channels.telegram.sender import bot_base_url

            self._tg_app = (Application.builder().token(self.settings.TELEGRAM_BOT_TOKEN or "")
                            .base_url(bot_base_url(self.settings.TELEGRAM_API_URL)).updater(None).build())
        return self._tg_app

    async def bot_username(self) -> str | None:
        """The bot's username, from one getMe on first need (retried at most once a minute)."""
        if self.service.telegram_bot:
            return self.service.telegram_bot
        async with self._tg_lock:
            if self.service.telegram_bot or time.monotonic() < self._tg_next_try:
                return self.service.telegram_bot
            app = self.telegram_app()
            try:
                await app.initialize()
                self.service.telegram_bot = app.bot.username
            except Exception as e:  # Telegram unreachable: texts say "a private chat with me" meanwhile
                log.warning("telegram getMe failed: %s", e)
                self._tg_next_try = time.monotonic() + 60
        return self.service.telegram_bot

    async def close(self) -> None:
        """At shutdown: the Telegram app's connection pool (if it was ever initialized)."""
        if self._tg_app is not None:
            await self._tg_app.shutdown()

    async def twilio_form(self, request: Request) -> dict[str, str]:
        if not channels(self.settings)["sms"]["on"]:
            raise HTTPException(404, "SMS is off")
        form = parse_form(await read_body(request, "application/x-www-form-urlencoded"))
        # Signed over the URL Twilio called: rebuilt from PUBLIC_URL, with the query string as sent.
        url = self.settings.PUBLIC_URL.rstrip("/") + request.url.path
        if request.url.query:
            url += "?" + request.url.query
        if not sms.signed(url, form, request.headers.get("x-twilio-signature", ""), self.settings.TWILIO_AUTH_TOKEN):
            raise HTTPException(403, "bad signature")
        if not sms.from_account(form, self.settings.TWILIO_ACCOUNT_SID):
            raise HTTPException(403, "another account")
        return sms.cleaned(form)


class CountUpdates:
    """ASGI middleware: each platform's webhook calls, by channel and the status they were answered
    (``lupus_updates_received_total``). Pure ASGI, so the webhooks pay a dictionary look-up."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        channel = UPDATE_ROUTES.get(scope.get("path", "")) if scope["type"] == "http" else None
        if channel is None:
            return await self.app(scope, receive, send)

        async def counted(message: Any) -> None:
            if message["type"] == "http.response.start":
                metrics.safely(lambda: metrics.UPDATES.labels(channel=channel, status=str(message["status"])).inc())
            await send(message)

        await self.app(scope, receive, counted)


def create_app(settings: Settings | None = None, service: Service | None = None, *,
               after_commit: AfterCommit | None = None) -> FastAPI:
    """The app. ``after_commit``: what the service it makes (on the first command) hands each
    command's new outbox ids to once committed; a deployment's is the worker's (``worker.web``),
    passed in so that nothing here knows the worker. A ``service`` brought along keeps its own."""
    cfg = settings or (service.settings if service is not None else get_settings())
    init_sentry(cfg, "web")
    web = Web(cfg, service, after_commit)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        await web.close()

    app = FastAPI(title="Lupus by Message", openapi_url=None, docs_url=None, redoc_url=None, lifespan=lifespan)
    app.state.web = web

    @app.get("/", response_class=HTMLResponse)
    async def home() -> str:
        return HOME

    @app.get("/healthz")
    async def healthz() -> JSONResponse:
        """The deployment's health for an operator's monitor: 503 when the database or the broker does
        not answer, the worker or beat is silent, or phases are overdue (``service.health``; the
        last two with a shared broker only, where they run as processes of their own)."""
        out: dict[str, Any] = {"channels": channels(cfg)}

        def database() -> None:
            with web.service.db.connect() as conn:
                conn.execute(sql("select 1"))

        def broker() -> None:
            import redis

            client = redis.Redis.from_url(cfg.REDIS_URL or "", socket_timeout=3, socket_connect_timeout=3,
                                          **redis_tls_options(cfg.REDIS_URL))
            try:
                client.ping()
            finally:
                client.close()

        ok = True
        for name, check, wanted in (("database", database, True), ("broker", broker, bool(cfg.REDIS_URL))):
            if not wanted:
                out[name] = "not configured"
                continue
            try:
                await run_in_threadpool(check)
                out[name] = "ok"
            except Exception as e:
                ok, out[name] = False, f"unreachable: {type(e).__name__}"
        problems: list[str] = [f"{name} {out[name]}" for name in ("database", "broker")
                               if str(out[name]).startswith("unreachable")]
        if out["database"] == "ok":
            try:
                live = await run_in_threadpool(liveness, web.service.db, cfg)
                out.update(live.report())
                # Only where the worker and beat are processes of their own (a shared broker): the
                # sandbox runs them inside its own process, and writes no heartbeat.
                out["liveness"] = "required" if cfg.REDIS_URL else "not required (no REDIS_URL)"
                if cfg.REDIS_URL:
                    problems += live.problems()
                    ok = ok and live.ok
            except Exception as e:  # not migrated yet, most likely
                ok = False
                problems.append(f"liveness unreadable: {type(e).__name__} (is the database migrated? lupus db upgrade)")
        out["problems"] = problems
        out["status"] = "ok" if ok else "failing"
        return JSONResponse(out, 200 if ok else 503)

    @app.get("/livez")
    async def livez() -> JSONResponse:
        """This web process answers and reaches its database: what a platform's own health check
        asks (Fly's). /healthz would take the web machines out of service, or stop a deploy, when
        only the worker is down, and a web that takes webhooks is what lets the players' moves in."""
        def database() -> None:
            with web.service.db.connect() as conn:
                conn.execute(sql("select 1"))

        try:
            await run_in_threadpool(database)
        except Exception as e:
            return JSONResponse({"status": "failing", "database": f"unreachable: {type(e).__name__}"}, 503)
        return JSONResponse({"status": "ok", "database": "ok"})

    @app.get("/metrics")
    async def metrics_route(request: Request) -> Response:
        """Prometheus' text format: this machine's counters and the deployment's gauges."""
        if cfg.METRICS_TOKEN and not hmac.compare_digest(
                request.headers.get("authorization", "").encode(), f"Bearer {cfg.METRICS_TOKEN}".encode()):
            raise HTTPException(401, "a bearer token is needed (METRICS_TOKEN)")

        def read() -> bytes:
            try:
                return metrics.exposition(cfg, web.service.db)
            except Exception as e:  # the database is away: the counters still say something
                log.warning("metrics: gauges unreadable: %s", e)
                return metrics.exposition(cfg, None)

        return Response(await run_in_threadpool(read), media_type=metrics.CONTENT_TYPE_LATEST)

    @app.post("/telegram/webhook", openapi_extra=TELEGRAM_WEBHOOK)
    async def telegram_webhook(request: Request) -> JSONResponse:
        if not channels(cfg)["telegram"]["on"]:
            raise HTTPException(404, "Telegram is off")
        if not telegram.authentic(request.headers.get("x-telegram-bot-api-secret-token", ""),
                                  cfg.TELEGRAM_WEBHOOK_SECRET):
            raise HTTPException(403, "bad secret")
        body = await read_body(request, "application/json")
        try:
            item = telegram.incoming(telegram.update_of(body), await web.bot_username())
        except telegram.NotJson:
            raise HTTPException(400, "malformed JSON") from None
        except telegram.NotAnUpdate:
            raise HTTPException(400, "not a Telegram update") from None
        replies: list[str] = []
        if item is not None and not item.unusable:
            replies = await web.inbound(item)
        return JSONResponse(telegram.webhook_answer(item, replies))

    @app.post("/sms/twilio", openapi_extra=TWILIO_SMS)
    async def twilio_sms(request: Request) -> Response:
        form = await web.twilio_form(request)
        if not form.get("MessageSid") or not form.get("From"):
            raise HTTPException(400, "not an incoming message")
        await run_in_threadpool(web.handle_sms, form)
        return Response(TWIML_EMPTY, media_type="text/xml")

    @app.post("/sms/twilio/status", openapi_extra=TWILIO_STATUS)
    async def twilio_status(request: Request) -> Response:
        form = await web.twilio_form(request)
        key = (request.query_params.get("key") or "").replace("\x00", "")
        if not key or not form.get("MessageSid"):
            raise HTTPException(400, "not a status callback")
        await run_in_threadpool(sms.record_status, web.service, key, form)
        return Response(status_code=204)

    app.add_middleware(CountUpdates)
    return app


def deployment_app(handoff: Callable[[str], AfterCommit] | None = None) -> FastAPI:
    """What a web process serves, built from the environment: ``worker.web`` calls it with the
    worker's ``handoff`` (given the broker's URL, what enqueues each command's messages). A
    deployment that cannot work (a channel without a shared broker or a server database) stops here
    with one line saying what is missing. Building it reads the settings and makes the hand-off, and
    connects to nothing: the service connects on the first command, the hand-off on the first
    message, Telegram is asked for its username on the first update."""
    cfg = get_settings()
    problem = cfg.deployment_problem()
    if problem:
        import sys

        print(f"lupus web: {problem}", file=sys.stderr, flush=True)
        raise SystemExit(2)
    after_commit = handoff(cfg.REDIS_URL) if handoff is not None and cfg.REDIS_URL else None
    return create_app(cfg, after_commit=after_commit)


configure_logging()
settle_heap()
