"""``lupus doctor``: what the runbook sets up, checked against the live deployment and explained in
plain words. Run it where the deployment's configuration is (``heroku run lupus doctor``, ``fly ssh
console -C "lupus doctor"``); every check reaches the real thing: Telegram's getWebhookInfo, the
Twilio number's configuration, the database, the broker, the heartbeats, the public address.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from sqlalchemy import text

from service.settings import Settings, redis_tls_options

OK, FAIL, SKIP = "ok", "FAIL", "-"


@dataclass(frozen=True)
class Check:
    name: str
    status: str  # OK, FAIL or SKIP (not applicable, or not checkable from here)
    says: str

    def line(self) -> str:
        return f"{self.status:<4} {self.name}: {self.says}"


def run(settings: Settings, setup: bool = False) -> list[Check]:
    """Every check, in the runbook's order; one that raises is a failure that says what it met.
    ``setup``: only what must hold before the processes start (a release's postdeploy step): the
    configuration, an https PUBLIC_URL, the database migrated, the broker reachable."""
    out: list[Check] = []
    checks = ((configuration, public_address, database, broker) if setup else
              (configuration, public_url, database, broker, liveness, connections, telegram, twilio))
    for check in checks:
        try:
            out.extend(check(settings))
        except Exception as e:
            out.append(Check(check.__name__.replace("_", " "), FAIL, f"the check itself failed: {e!r}"))
    return out


def configuration(cfg: Settings) -> list[Check]:
    problem = cfg.deployment_problem()
    if problem:
        return [Check("configuration", FAIL, problem)]
    given = cfg.channels_configured()
    if not given:
        return [Check("configuration", FAIL, "no channel is configured (TELEGRAM_BOT_TOKEN, or TWILIO_ACCOUNT_SID "
                      "and TWILIO_AUTH_TOKEN): players cannot reach the bot")]
    return [Check("configuration", OK, "a shared broker (REDIS_URL), a server database (DATABASE_URL) and "
                  f"{', '.join(given)}")]


LOCAL = ("http://127.0.0.1:", "http://[::1]:")
"""Set by hand for local stand-ins (the default when PUBLIC_URL is unset, http://localhost:8000, is no
such choice: it means nobody set it)."""


def public_address(cfg: Settings) -> list[Check]:
    url = cfg.PUBLIC_URL
    if url.startswith(LOCAL) and cfg.channels_configured():
        return [Check("public address", OK, f"PUBLIC_URL is {url}: a local address, which only local stand-ins "
                      "reach (Telegram and Twilio need the app's public https address)")]
    if not url.startswith("https://"):
        return [Check("public address", FAIL, f"PUBLIC_URL is {url}: Telegram and Twilio call an https address. "
                      "On Heroku: heroku labs:enable runtime-dyno-metadata (then it is found by itself), or "
                      "heroku config:set PUBLIC_URL=$(heroku apps:info -s | sed -n 's/^web_url=//p' | sed 's:/$::')")]
    return [Check("public address", OK, f"PUBLIC_URL is {url}")]


def public_url(cfg: Settings) -> list[Check]:
    url = cfg.PUBLIC_URL
    first = public_address(cfg)
    if first[0].status == FAIL:
        return first
    try:
        answer = httpx.get(url + "/livez", timeout=10, follow_redirects=False)
    except httpx.HTTPError as e:
        return [Check("public address", FAIL, f"{url} does not answer ({type(e).__name__}): is it this app's "
                      "address, and is a web process running?")]
    try:
        ours = answer.status_code == 200 and answer.json().get("status") == "ok"
    except ValueError:
        ours = False
    if not ours:
        return [Check("public address", FAIL, f"{url}/livez answered {answer.status_code}: either PUBLIC_URL is "
                      "another site, or this app's web process cannot reach its database")]
    return [Check("public address", OK, f"{url} answers")]


def database(cfg: Settings) -> list[Check]:
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    from service.store.db import alembic_config, make_engine

    db = make_engine(cfg.DATABASE_URL)
    try:
        with db.connect() as conn:
            current = set(MigrationContext.configure(conn).get_current_heads())
    except Exception as e:
        return [Check("database", FAIL, f"cannot connect ({type(e).__name__}): is DATABASE_URL right?")]
    finally:
        db.dispose()
    heads = set(ScriptDirectory.from_config(alembic_config(cfg.DATABASE_URL)).get_heads())
    if current != heads:
        return [Check("database", FAIL, f"not migrated (at {', '.join(sorted(current)) or 'nothing'}, the code "
                      f"needs {', '.join(sorted(heads))}): the release step runs `alembic upgrade head`; "
                      "run it by hand with `lupus db upgrade`")]
    return [Check("database", OK, f"reachable and migrated ({', '.join(sorted(heads))})")]


def broker(cfg: Settings) -> list[Check]:
    if not cfg.REDIS_URL:
        return [Check("broker", FAIL, "REDIS_URL is not set: every process would use its own embedded broker "
                      "and beat's sweeps would never reach the worker")]
    import redis

    client = redis.Redis.from_url(cfg.REDIS_URL, socket_timeout=5, socket_connect_timeout=5,
                                  **redis_tls_options(cfg.REDIS_URL))
    try:
        client.ping()
        queued = client.llen("lupus")
    except redis.RedisError as e:
        return [Check("broker", FAIL, f"REDIS_URL does not answer ({type(e).__name__})")]
    finally:
        client.close()
    return [Check("broker", OK, f"shared (REDIS_URL) and reachable, {queued} task(s) queued")]


def liveness(cfg: Settings) -> list[Check]:
    from service.ops.health import ROLES
    from service.ops.health import liveness as read
    from service.store.db import make_engine

    db = make_engine(cfg.DATABASE_URL)
    try:
        live = read(db, cfg)
    finally:
        db.dispose()
    out = []
    for role in ROLES:
        age = live.age(role)
        if live.silent(role):
            seen = "never seen" if age is None else f"last seen {age:.0f} s ago"
            out.append(Check(role, FAIL, f"silent ({seen}): without a {role} phases do not close. Is the "
                             f"`{role}` process scaled to {'exactly ' if role == 'beat' else ''}1? "
                             f"(heroku ps:scale {role}=1; fly scale count {role}=1)"))
        else:
            out.append(Check(role, OK, f"{live.alive[role]} process(es), last heartbeat {age:.0f} s ago"))
    if live.alive.get("beat", 0) > 1:
        out.append(Check("beat", FAIL, f"{live.alive['beat']} beats are running: run exactly one"))
    out.append(Check("deadlines", FAIL if live.overdue else OK,
                     f"{live.overdue} phase(s) overdue by more than {live.overdue_after:.0f} s"
                     if live.overdue else "no phase is overdue"))
    unsent = ("nothing waits" if live.oldest_unsent is None
              else f"the oldest unsent text waits {live.oldest_unsent:.0f} s")
    out.append(Check("outbox", OK, f"{unsent}; {live.failed_last_hour} send(s) given up in the last hour"))
    return out


def connections(cfg: Settings) -> list[Check]:
    if cfg.DATABASE_URL.startswith("sqlite"):
        return []
    from service.store.db import make_engine

    db = make_engine(cfg.DATABASE_URL)
    try:
        with db.connect() as conn:
            server = int(conn.execute(text("SHOW max_connections")).scalar_one())
            role = int(conn.execute(text("SELECT rolconnlimit FROM pg_roles WHERE rolname = current_user"))
                       .scalar_one())
    finally:
        db.dispose()
    allowed = min(server, role) if role >= 0 else server
    # One web and one worker machine, beat's and the worker's heartbeats, and two one-off commands.
    budget = cfg.WEB_DB_CONNECTIONS + cfg.WORKER_DB_CONNECTIONS + 4
    says = (f"one web and one worker machine may open {budget} (WEB_DB_CONNECTIONS {cfg.WEB_DB_CONNECTIONS} + "
            f"WORKER_DB_CONNECTIONS {cfg.WORKER_DB_CONNECTIONS} + 4), the database allows {allowed}")
    if budget > allowed:
        return [Check("connections", FAIL, says + ": lower them (the runbook's table has the figures per plan)")]
    return [Check("connections", OK, says + "; each more machine adds its own")]


def _expected(cfg: Settings, path: str) -> str:
    return cfg.PUBLIC_URL.rstrip("/") + path


def telegram(cfg: Settings) -> list[Check]:
    if not cfg.TELEGRAM_BOT_TOKEN:
        return [Check("telegram", SKIP, "off (TELEGRAM_BOT_TOKEN is not set)")]
    from telegram import Bot

    from service.channels.telegram.sender import bot_base_url

    async def ask() -> Any:
        async with Bot(cfg.TELEGRAM_BOT_TOKEN or "", base_url=bot_base_url(cfg.TELEGRAM_API_URL)) as bot:
            return await bot.get_webhook_info()

    info = asyncio.run(ask())
    want = _expected(cfg, "/telegram/webhook")
    out = []
    if info.url != want:
        where = f"to {info.url}" if info.url else "nowhere (no webhook is set)"
        out.append(Check("telegram webhook", FAIL, f"Telegram posts updates {where}, not to {want}: run "
                         "`lupus telegram set-webhook` (heroku run ..., fly ssh console -C ...)"))
    else:
        out.append(Check("telegram webhook", OK, f"Telegram posts updates to {want}"))
    pending = int(info.pending_update_count or 0)
    out.append(Check("telegram pending", FAIL if pending > 100 else OK,
                     f"{pending} update(s) wait to be delivered" + (": the webhook is failing or slow" if pending > 100
                                                                     else "")))
    if info.last_error_date is not None:
        when = info.last_error_date if info.last_error_date.tzinfo else info.last_error_date.replace(tzinfo=UTC)
        ago = datetime.now(UTC) - when
        recent = ago < timedelta(hours=1)
        out.append(Check("telegram last error", FAIL if recent else OK,
                         f"{int(ago.total_seconds() // 60)} min ago: {info.last_error_message}"
                         + (" (a 403 is a wrong TELEGRAM_WEBHOOK_SECRET; a timeout or 5xx, the web process)"
                            if recent else "")))
    return out


def twilio(cfg: Settings) -> list[Check]:
    if not (cfg.TWILIO_ACCOUNT_SID and cfg.TWILIO_AUTH_TOKEN):
        return [Check("twilio", SKIP, "off (TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN are not set)")]
    if not cfg.TWILIO_FROM_NUMBER:
        return [Check("twilio number", SKIP, "a Messaging Service sends (TWILIO_MESSAGING_SERVICE_SID): check in the "
                      "console that its Integration sends incoming messages to "
                      f"{_expected(cfg, '/sms/twilio')} (not checked from here)")]
    from twilio.base.exceptions import TwilioRestException
    from twilio.rest import Client

    client = Client(cfg.TWILIO_ACCOUNT_SID, cfg.TWILIO_AUTH_TOKEN)
    client.api.base_url = cfg.TWILIO_API_URL
    try:
        numbers = client.incoming_phone_numbers.list(phone_number=cfg.TWILIO_FROM_NUMBER, limit=5)
    except TwilioRestException as e:
        return [Check("twilio number", FAIL, f"Twilio refused ({e.status}, {e.code}): are TWILIO_ACCOUNT_SID and "
                      "TWILIO_AUTH_TOKEN this account's?")]
    if not numbers:
        return [Check("twilio number", FAIL, f"{cfg.TWILIO_FROM_NUMBER} is not a number of this account "
                      "(TWILIO_FROM_NUMBER, in E.164: +39...)")]
    number = numbers[0]
    want = _expected(cfg, "/sms/twilio")
    out = []
    if number.sms_url != want or (number.sms_method or "POST").upper() != "POST":
        now = f"{number.sms_method} {number.sms_url}" if number.sms_url else "nowhere"
        out.append(Check("twilio sms url", FAIL, f"incoming texts go {now}, not to POST {want}: set it under the "
                         "number's Messaging configuration, \"A message comes in\""))
    else:
        out.append(Check("twilio sms url", OK, f"incoming texts go to POST {want}"))
    status = number.status_callback or ""
    if status.startswith(_expected(cfg, "/sms/twilio/status")):
        out.append(Check("twilio status url", FAIL, f"the number has a status callback ({status}): remove it. The "
                         "app asks for each text's delivery report itself (with the text's key); "
                         "reports sent to the number's URL carry none, and are refused"))
    else:
        out.append(Check("twilio status url", OK, "each text asks for its own delivery report, at "
                         f"{_expected(cfg, '/sms/twilio/status')}"))
    return out
