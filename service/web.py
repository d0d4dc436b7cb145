"""The web app: the webhooks of every registered channel (Telegram's, Twilio's SMS and delivery
reports), health, a home page.

Each channel brings its own webhook routes (``Channel.webhook``): each authenticates, parses the
request into one command text, and makes one call of the application service through the app
(``Web``, the channel's ``Hub``); no rules live in them, and no code here names a channel.

Why the service is called before the webhook is answered (and not after, from a queue): the call
is one short transaction, and a 200 then means the message is committed (its update_id or
MessageSid in the inbound log, its replies in the outbox). Had we answered first, a crash in
between would lose the message, since Telegram and Twilio retry only what was not answered 2xx.
The call runs in a worker thread (the service is synchronous), so the event loop stays free; the
Telegram messages that arrive while one transaction runs are committed together in the next
(``service.store.group_commit``), for less CPU and fewer connections a move when many come at once. A
repeat delivery is dropped by the inbound log; out-of-order updates are fine (each is one
command). Replies go through the outbox, never in the webhook's answer, so they are rate
limited, retried and opt-out aware like everything else; only a button tap is answered in the
response itself (answerCallbackQuery, as the Bot API allows), which costs no request.
"""

from __future__ import annotations

import gc
import hmac
import logging
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from sqlalchemy import text as sql
from starlette.concurrency import run_in_threadpool

from service.channels import CHANNELS
from service.channels.base import Incoming, Webhook
from service.game.app import AfterCommit, Service
from service.ops import metrics
from service.ops.health import liveness
from service.ops.logging import configure as configure_logging
from service.ops.preflight import configuration, reason
from service.ops.reporting import init_sentry
from service.settings import Settings, get_settings, redis_tls_options
from service.store.db import is_sqlite, make_engine
from service.store.group_commit import GroupCommit

log = logging.getLogger(__name__)
# Connections of one web process (Settings.db_pool): a command holds one for one short transaction,
# in one of the thread pool's threads (40); Telegram's commands, committed together, take one between
# them. With one process, 16 kept and 8 more when needed: SQLAlchemy's default of five, at 16
# requests in flight, opens and closes an overflow connection every 20 or so commands (a backend
# started each time), and a few threads on as few connections serve a fraction of the commands a
# second that 40 threads do. Several processes share WEB_DB_CONNECTIONS (the runbook's budget).
HOME = """<!doctype html><html><head><meta charset="utf-8"><title>Lupus by Message</title></head>
<body><h1>Lupus by Message</h1><p>A moderator bot for Lupus in Tabula (Werewolf), played slowly by
Telegram and SMS. Write <code>help</code> to the bot to begin. Health: <a href="/healthz">/healthz</a>.</p>
</body></html>"""


def channels(settings: Settings) -> dict[str, dict[str, Any]]:
    """Which channels are on, and why one is off (a channel without credentials is simply off)."""
    out: dict[str, dict[str, Any]] = {}
    for channel in CHANNELS.values():
        why = channel.webhook_off(settings)
        out[channel.name] = {"on": True} if why is None else {"on": False, "why": why}
    return out


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
    """What the routes share (each channel's ``Hub``): the settings, the service (made on first use)
    and the commands committed together; and each registered channel's webhook (``webhooks``)."""

    def __init__(self, settings: Settings, service: Service | None, after_commit: AfterCommit | None = None) -> None:
        self.settings = settings
        self._service = service
        self._after_commit = after_commit
        self._settled = service is not None  # a test's app (it brings its service) is left alone
        self.inbound: GroupCommit[Incoming, list[str]] = GroupCommit(self._handle_many)
        """Messages committed together when they come together (``service.store.group_commit``)."""
        self.webhooks: dict[str, Webhook] = {
            channel.name: hook for channel in CHANNELS.values() if (hook := channel.webhook(self)) is not None
        }

    def _handle_many(self, messages: list[Incoming]) -> list[list[str] | Exception]:
        out = self.service.handle_inbound_many(messages)
        self.first_command_done()
        return out

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

    async def close(self) -> None:
        """At shutdown: what each channel's webhook holds (Telegram's app and its connection pool)."""
        for hook in self.webhooks.values():
            await hook.close()


class CountUpdates:
    """ASGI middleware: each platform's webhook calls, by channel and the status they were answered
    (``lupus_updates_received_total``). Pure ASGI, so the webhooks pay a dictionary look-up.
    ``routes``: which channel each path that brings updates is (``Webhook.updates``)."""

    def __init__(self, app: Any, routes: Mapping[str, str]) -> None:
        self.app = app
        self.routes = dict(routes)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        channel = self.routes.get(scope.get("path", "")) if scope["type"] == "http" else None
        if channel is None:
            return await self.app(scope, receive, send)

        async def counted(message: Any) -> None:
            if message["type"] == "http.response.start":
                metrics.safely(lambda: metrics.UPDATES.labels(channel=channel, status=str(message["status"])).inc())
            await send(message)

        await self.app(scope, receive, counted)


def _ping_database(web: Web) -> None:
    with web.service.db.connect() as conn:
        conn.execute(sql("select 1"))


def _ping_broker(cfg: Settings) -> None:
    import redis

    client = redis.Redis.from_url(
        cfg.REDIS_URL or "", socket_timeout=3, socket_connect_timeout=3, **redis_tls_options(cfg.REDIS_URL)
    )
    try:
        client.ping()
    finally:
        client.close()


async def _reach(web: Web, out: dict[str, Any]) -> bool:
    """Whether the database and the broker (where there is one) answer, each said in ``out``."""
    cfg = web.settings
    ok = True
    checks = (
        ("database", partial(_ping_database, web), True),
        ("broker", partial(_ping_broker, cfg), bool(cfg.REDIS_URL)),
    )
    for name, check, wanted in checks:
        if not wanted:
            out[name] = "not configured"
            continue
        try:
            await run_in_threadpool(check)
            out[name] = "ok"
        except Exception as e:  # the driver's words: `database "x" does not exist`, a refused port
            ok, out[name] = False, f"unreachable: {reason(getattr(e, 'orig', None) or e)}"
    return ok


async def _live(web: Web, out: dict[str, Any], problems: list[str]) -> bool:
    """Whether the worker, beat, phases and channels are well (``service.ops.health``), said in
    ``out`` and ``problems``; required only with a shared broker."""
    cfg = web.settings
    try:
        live = await run_in_threadpool(liveness, web.service.db, cfg)
        out.update(live.report())
        # Only where the worker and beat are processes of their own (a shared broker): the sandbox
        # runs them inside its own process, and writes no heartbeat.
        out["liveness"] = "required" if cfg.REDIS_URL else "not required (no REDIS_URL)"
        if cfg.REDIS_URL:
            problems += live.problems()
            return live.ok
    except Exception as e:  # not migrated yet, most likely
        problems.append(f"liveness unreadable: {type(e).__name__} (is the database migrated? lupus db upgrade)")
        return False
    return True


async def home() -> str:
    return HOME


async def healthz(request: Request) -> JSONResponse:
    """The deployment's health for an operator's monitor: 503 when the database or the broker does
    not answer, the worker or beat is silent, phases are overdue, a channel is carried by one kind
    of process and not another, or its texts wait too long (``service.ops.health``; all but the
    first with a shared broker only, where the worker and beat run as processes of their own)."""
    web: Web = request.app.state.web
    out: dict[str, Any] = {"channels": channels(web.settings)}
    ok = await _reach(web, out)
    problems: list[str] = [
        f"{name} {out[name]}" for name in ("database", "broker") if str(out[name]).startswith("unreachable")
    ]
    if out["database"] == "ok":
        ok = await _live(web, out, problems) and ok
    out["problems"] = problems
    out["status"] = "ok" if ok else "failing"
    return JSONResponse(out, 200 if ok else 503)


async def livez(request: Request) -> JSONResponse:
    """This web process answers and reaches its database: what a platform's own health check
    asks (Fly's). /healthz would take the web machines out of service, or stop a deploy, when
    only the worker is down, and a web that takes webhooks is what lets the players' moves in."""
    try:
        await run_in_threadpool(_ping_database, request.app.state.web)
    except Exception as e:
        return JSONResponse({"status": "failing", "database": f"unreachable: {type(e).__name__}"}, 503)
    return JSONResponse({"status": "ok", "database": "ok"})


async def metrics_route(request: Request) -> Response:
    """Prometheus' text format: this machine's counters and the deployment's gauges."""
    web: Web = request.app.state.web
    cfg = web.settings
    if cfg.METRICS_TOKEN and not hmac.compare_digest(
        request.headers.get("authorization", "").encode(), f"Bearer {cfg.METRICS_TOKEN}".encode()
    ):
        raise HTTPException(401, "a bearer token is needed (METRICS_TOKEN)")

    def read() -> bytes:
        try:
            return metrics.exposition(cfg, web.service.db)
        except Exception as e:  # the database is away: the counters still say something
            log.warning("metrics: gauges unreadable: %s", e)
            return metrics.exposition(cfg, None)

    return Response(await run_in_threadpool(read), media_type=metrics.CONTENT_TYPE_LATEST)


def add_webhooks(app: FastAPI, web: Web) -> None:
    """Each registered channel's routes, and the count of the updates they bring (``CountUpdates``)."""
    for hook in web.webhooks.values():
        app.include_router(hook.router)
    routes = {path: name for name, hook in web.webhooks.items() for path in hook.updates}
    app.add_middleware(CountUpdates, routes=routes)


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    yield
    await app.state.web.close()


def create_app(
    settings: Settings | None = None, service: Service | None = None, *, after_commit: AfterCommit | None = None
) -> FastAPI:
    """The app. ``after_commit``: what the service it makes (on the first command) hands each
    command's new outbox ids to once committed; a deployment's is the worker's (``worker.web``),
    passed in so that nothing here knows the worker. A ``service`` brought along keeps its own."""
    cfg = settings or (service.settings if service is not None else get_settings())
    init_sentry(cfg, "web")
    web = Web(cfg, service, after_commit)
    app = FastAPI(title="Lupus by Message", openapi_url=None, docs_url=None, redoc_url=None, lifespan=lifespan)
    app.state.web = web
    app.add_api_route("/", home, methods=["GET"], response_class=HTMLResponse)
    app.add_api_route("/healthz", healthz, methods=["GET"])
    app.add_api_route("/livez", livez, methods=["GET"])
    app.add_api_route("/metrics", metrics_route, methods=["GET"])
    add_webhooks(app, web)
    return app


def deployment_app(handoff: Callable[[str], AfterCommit] | None = None) -> FastAPI:
    """What a web process serves, built from the environment: ``worker.web`` calls it with the
    worker's ``handoff`` (given the broker's URL, what enqueues each command's messages). A
    deployment whose settings cannot work (``service.ops.preflight.configuration``: a channel without
    a shared broker or a server database, half set up, without PUBLIC_URL) stops here with one line
    saying what is wrong; ``lupus web`` has checked that and what it reaches before. Building it
    reads the settings and makes the hand-off, and connects to nothing: the service connects on the
    first command, the hand-off on the first message, Telegram is asked for its username on the
    first update."""
    cfg = get_settings()
    problem = configuration(cfg, "web")
    if problem:
        import sys

        print(f"lupus web: {problem}", file=sys.stderr, flush=True)
        raise SystemExit(2)
    after_commit = handoff(cfg.REDIS_URL) if handoff is not None and cfg.REDIS_URL else None
    return create_app(cfg, after_commit=after_commit)


configure_logging()
settle_heap()
