"""``lupus doctor``: what the runbook sets up, checked against the live deployment and explained in
plain words. Run it where the deployment's configuration is (``heroku run lupus doctor``, ``fly ssh
console -C "lupus doctor"``); every check reaches the real thing: the database, the broker, the
heartbeats, the public address, and each channel's platform (``Channel.doctor``: Telegram's
getWebhookInfo, the Twilio number's configuration).
"""

from __future__ import annotations

from collections.abc import Callable

import httpx
from sqlalchemy import text

from service.channels import CHANNELS
from service.channels.base import FAIL, OK, SKIP, Check
from service.ops.preflight import reason
from service.settings import Settings, redis_tls_options

__all__ = ["FAIL", "OK", "SKIP", "Check", "run"]


def run(settings: Settings, setup: bool = False) -> list[Check]:
    """Every check, in the runbook's order; one that raises is a failure that says what it met.
    ``setup``: only what must hold before the processes start (a release's postdeploy step): the
    configuration, an https PUBLIC_URL, the database migrated, the broker reachable."""
    out: list[Check] = []
    checks: list[tuple[str, Callable[[Settings], list[Check]]]] = [
        (check.__name__.replace("_", " "), check)
        for check in (
            (configuration, public_address, database, broker)
            if setup
            else (configuration, public_url, database, broker, liveness, connections)
        )
    ]
    if not setup:  # then each channel reads its platform's side back (where it posts, what it holds)
        checks += [(name, channel.doctor) for name, channel in CHANNELS.items()]
    for name, check in checks:
        try:
            out.extend(check(settings))
        except Exception as e:
            out.append(Check(name, FAIL, f"the check itself failed: {e!r}"))
    return out


def configuration(cfg: Settings) -> list[Check]:
    from service.ops.preflight import half_set_up

    problem = cfg.deployment_problem() or half_set_up(cfg)  # PUBLIC_URL: the public address's check
    if problem:
        return [Check("configuration", FAIL, problem)]
    given = cfg.channels_configured()
    if not given:
        return [
            Check(
                "configuration",
                FAIL,
                "no channel is configured (TELEGRAM_BOT_TOKEN, or TWILIO_ACCOUNT_SID "
                "and TWILIO_AUTH_TOKEN): players cannot reach the bot",
            )
        ]
    return [
        Check(
            "configuration", OK, f"a shared broker (REDIS_URL), a server database (DATABASE_URL) and {', '.join(given)}"
        )
    ]


LOCAL = ("http://127.0.0.1:", "http://[::1]:")
"""Set by hand for local stand-ins (the default when PUBLIC_URL is unset, http://localhost:8000, is no
such choice: it means nobody set it)."""


def public_address(cfg: Settings) -> list[Check]:
    url = cfg.PUBLIC_URL
    if url.startswith(LOCAL) and cfg.channels_configured():
        return [
            Check(
                "public address",
                OK,
                f"PUBLIC_URL is {url}: a local address, which only local stand-ins "
                "reach (Telegram and Twilio need the app's public https address)",
            )
        ]
    if not url.startswith("https://"):
        return [
            Check(
                "public address",
                FAIL,
                f"PUBLIC_URL is {url}: Telegram and Twilio call an https address. "
                "On Heroku: heroku labs:enable runtime-dyno-metadata (then it is found by itself from the next "
                "deploy), or "
                "heroku config:set PUBLIC_URL=$(heroku apps:info -s | sed -n 's/^web_url=//p' | sed 's:/$::')",
            )
        ]
    return [Check("public address", OK, f"PUBLIC_URL is {url}")]


def public_url(cfg: Settings) -> list[Check]:
    url = cfg.PUBLIC_URL
    first = public_address(cfg)
    if first[0].status == FAIL:
        return first
    try:
        answer = httpx.get(url + "/livez", timeout=10, follow_redirects=False)
    except httpx.HTTPError as e:
        return [
            Check(
                "public address",
                FAIL,
                f"{url} does not answer ({type(e).__name__}): is it this app's address, and is a web process running?",
            )
        ]
    try:
        ours = answer.status_code == 200 and answer.json().get("status") == "ok"
    except ValueError:
        ours = False
    if not ours:
        return [
            Check(
                "public address",
                FAIL,
                f"{url}/livez answered {answer.status_code}: either PUBLIC_URL is "
                "another site, or this app's web process cannot reach its database",
            )
        ]
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
        return [
            Check("database", FAIL, f"cannot connect ({reason(getattr(e, 'orig', None) or e)}): is DATABASE_URL right?")
        ]
    finally:
        db.dispose()
    heads = set(ScriptDirectory.from_config(alembic_config(cfg.DATABASE_URL)).get_heads())
    if current != heads:
        return [
            Check(
                "database",
                FAIL,
                f"not migrated (at {', '.join(sorted(current)) or 'nothing'}, the code "
                f"needs {', '.join(sorted(heads))}): the release step runs `alembic upgrade head`; "
                "run it by hand with `lupus db upgrade`",
            )
        ]
    return [Check("database", OK, f"reachable and migrated ({', '.join(sorted(heads))})")]


def broker(cfg: Settings) -> list[Check]:
    if not cfg.REDIS_URL:
        return [
            Check(
                "broker",
                FAIL,
                "REDIS_URL is not set: every process would use its own embedded broker "
                "and beat's sweeps would never reach the worker",
            )
        ]
    import redis

    client = redis.Redis.from_url(
        cfg.REDIS_URL, socket_timeout=5, socket_connect_timeout=5, **redis_tls_options(cfg.REDIS_URL)
    )
    try:
        client.ping()
        queued = client.llen("lupus")
    except redis.RedisError as e:
        return [Check("broker", FAIL, f"REDIS_URL does not answer ({reason(e)})")]
    finally:
        client.close()
    return [Check("broker", OK, f"shared (REDIS_URL) and reachable, {queued} task(s) queued")]


def liveness(cfg: Settings) -> list[Check]:
    from service.ops.health import NO_HEARTBEAT, ROLES
    from service.ops.health import liveness as read
    from service.store.db import make_engine

    db = make_engine(cfg.DATABASE_URL)
    try:
        live = read(db, cfg)
    finally:
        db.dispose()
    leader = beat_leader(cfg) if cfg.REDIS_URL and cfg.STANDBY_BEATS else None
    out = []
    for role in ROLES:
        age = live.age(role)
        if live.silent(role):
            seen = NO_HEARTBEAT if age is None else f"last seen {age:.0f} s ago"
            out.append(
                Check(
                    role,
                    FAIL,
                    f"silent ({seen}): without a {role} phases do not close. Is the "
                    f"`{role}` process scaled to 1? (heroku ps:scale {role}=1; fly scale count {role}=1)",
                )
            )
        elif role == "beat" and leader == "":
            out.append(
                Check(
                    role,
                    FAIL,
                    f"{live.alive[role]} alive, none holds the schedule's lock in Redis: no "
                    "sweep is sent. A standby leads within BEAT_LOCK_SECONDS of a death; if this lasts, "
                    "restart beat",
                )
            )
        else:
            out.append(Check(role, OK, f"{counted(role, live.alive[role], leader)} last heartbeat {age:.0f} s ago"))
    webs = live.alive.get("web", 0)
    out.append(
        Check("web", OK, f"{webs} process(es) with a heartbeat")
        if webs
        else Check("web", SKIP, "no web heartbeat (a web of an older version, or none running: see public address)")
    )
    uneven = live.channel_problems()
    out += [Check("channels", FAIL, problem) for problem in uneven] or [
        Check("channels", OK, "each live web and worker carries the same channels, and no channel's texts wait long")
    ]
    out.append(
        Check(
            "deadlines",
            FAIL if live.overdue else OK,
            f"{live.overdue} phase(s) overdue by more than {live.overdue_after:.0f} s"
            if live.overdue
            else "no phase is overdue",
        )
    )
    unsent = (
        "nothing waits" if live.oldest_unsent is None else f"the oldest unsent text waits {live.oldest_unsent:.0f} s"
    )
    out.append(Check("outbox", OK, f"{unsent}; {live.failed_last_hour} send(s) given up in the last hour"))
    return out


def counted(role: str, alive: int, leader: str | None = None) -> str:
    """Live processes of ``role``: several beats take turns, one (``leader``: its host and pid, when
    known) schedules while the others stand by."""
    if role == "beat" and (alive > 1 or leader):
        others = "" if alive < 2 else f", {'one stands' if alive == 2 else f'{alive - 1} stand'} by"
        who = f"the one on {leader}" if leader else "one"
        return f"{alive} beat{'s' if alive > 1 else ''}: {who} schedules{others};"
    return f"{alive} process(es),"


def beat_leader(cfg: Settings) -> str:
    """The host and pid of the standby beat that schedules ("" if none holds the lock)."""
    import redis

    from service.ops.health import BEAT_LEADER_KEY

    client = redis.Redis.from_url(
        cfg.REDIS_URL or "", socket_timeout=5, socket_connect_timeout=5, **redis_tls_options(cfg.REDIS_URL or "")
    )
    try:
        value = client.get(BEAT_LEADER_KEY)
    finally:
        client.close()
    return value.decode() if isinstance(value, bytes) else (value or "")


def connections(cfg: Settings) -> list[Check]:
    if cfg.DATABASE_URL.startswith("sqlite"):
        return []
    from service.store.db import make_engine

    db = make_engine(cfg.DATABASE_URL)
    try:
        with db.connect() as conn:
            server = int(conn.execute(text("SHOW max_connections")).scalar_one())
            role = int(
                conn.execute(text("SELECT rolconnlimit FROM pg_roles WHERE rolname = current_user")).scalar_one()
            )
    finally:
        db.dispose()
    allowed = min(server, role) if role >= 0 else server
    # One web and one worker machine, the web's, the worker's and beat's heartbeats, two one-off commands.
    budget = cfg.WEB_DB_CONNECTIONS + cfg.WORKER_DB_CONNECTIONS + 5
    says = (
        f"one web and one worker machine may open {budget} (WEB_DB_CONNECTIONS {cfg.WEB_DB_CONNECTIONS} + "
        f"WORKER_DB_CONNECTIONS {cfg.WORKER_DB_CONNECTIONS} + 5), the database allows {allowed}"
    )
    if budget > allowed:
        return [Check("connections", FAIL, says + ": lower them (the runbook's table has the figures per plan)")]
    return [Check("connections", OK, says + "; each more machine adds its own")]
