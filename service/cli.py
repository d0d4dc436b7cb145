"""The ``lupus`` command."""

from __future__ import annotations

import faulthandler
import json
import signal
import sys
from pathlib import Path

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Lupus in Tabula, moderated by message.")


@app.command()
def replay(
    file: Path = typer.Argument(..., exists=True, dir_okay=False, help="a game record (YAML or JSON)"),
    as_: str | None = typer.Option(None, "--as", help="print what this player was told, and his view"),
) -> None:
    """Play a game record and print where it stands, as one JSON object."""
    from engine import summary, view
    from engine.errors import LupusError
    from engine.record import RecordError, ReplayError, load_record
    from engine.record import replay as play

    try:
        record = load_record(file)
        result = play(record)
    except RecordError as e:
        typer.echo(f"{file}: {e}", err=True)
        raise typer.Exit(2) from None
    except ReplayError as e:
        typer.echo(f"{file}: move {e.position} ({e.move}): {e.error.reason}", err=True)
        raise typer.Exit(2) from None
    except LupusError as e:
        typer.echo(f"{file}: {e.reason}", err=True)
        raise typer.Exit(2) from None
    if as_ is None:
        out = summary(result.state)
    else:
        if as_ not in result.state.players:
            typer.echo(f"{file}: {as_} is not playing in this game", err=True)
            raise typer.Exit(2)
        out = {"player": as_, "told": [e.to_json() for e in result.told(as_)], "view": view(result.state, as_)}
    typer.echo(json.dumps(out, ensure_ascii=False))


db_app = typer.Typer(add_completion=False, no_args_is_help=True, help="The database.")
app.add_typer(db_app, name="db")


@db_app.command("upgrade")
def db_upgrade(revision: str = typer.Argument("head", help="the revision to reach")) -> None:
    """Run the migrations on DATABASE_URL (what the release process runs)."""
    from service.settings import get_settings
    from service.store.db import upgrade

    upgrade(get_settings().DATABASE_URL, revision)
    typer.echo(f"database at {revision}")


@app.command()
def setup(
    fresh: bool = typer.Option(False, "--fresh", help="forget what the platforms still hold for the bot "
                               "(Telegram's pending updates)"),
) -> None:
    """Tell each configured channel's platform where this deployment is (PUBLIC_URL): Telegram's
    webhook, with its secret and its "/" menu in every language of ours; the Twilio number's
    incoming texts. Run once after the first deploy and whenever PUBLIC_URL changes (the postdeploy
    step runs it). Exit status 1 when a platform refused, 2 when no channel is configured."""
    from service.channels import CHANNELS
    from service.channels.base import FAIL
    from service.settings import get_settings

    cfg = get_settings()
    done = [check for channel in CHANNELS.values() for check in channel.setup(cfg, fresh=fresh)]
    if not done:
        typer.echo("no channel is configured (TELEGRAM_BOT_TOKEN, or TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN)",
                   err=True)
        raise typer.Exit(2)
    for check in done:
        typer.echo(check.line())
    if any(c.status == FAIL for c in done):
        raise typer.Exit(1)


@app.command()
def games() -> None:
    """List the games: code, status, phase (number and kind), deadline in the game's own time zone
    (named), the zone, players."""
    from zoneinfo import ZoneInfo

    from sqlmodel import Session, col, func, select

    import engine
    from service.settings import get_settings
    from service.store.db import make_engine
    from service.store.models import Game, Seat
    from service.texts.i18n import zone_name

    with Session(make_engine(get_settings().DATABASE_URL)) as s:
        rows = s.exec(select(Game, func.count(col(Seat.id)))
                      .join(Seat, col(Seat.game_id) == col(Game.id), isouter=True)
                      .group_by(col(Game.id)).order_by(col(Game.id))).all()
        for g, n in rows:
            deadline = "-"
            if g.deadline:
                zone = ZoneInfo(g.timezone)
                when = g.deadline.astimezone(zone)
                deadline = f"{when:%Y-%m-%d %H:%M} {zone_name(g.deadline, zone)}"
            paused = " paused" if g.paused else ""
            kind = engine.public_view(engine.from_json(g.state))["phase"] if g.state else "-"
            typer.echo(f"{g.code}  {g.status:<8} phase {g.phase_no:<3} {kind:<11} {deadline:<22} "
                       f"{g.timezone:<20} {n} players{paused}")


@app.command()
def outbox() -> None:
    """Outbox depth by status (and how late the oldest pending message is), and the broker's queue
    depth when the broker can be reached."""
    from sqlalchemy.exc import OperationalError, ProgrammingError
    from sqlmodel import Session, col, func, select

    from service.settings import get_settings
    from service.store.db import make_engine
    from service.store.models import Outbox, utcnow

    cfg = get_settings()
    try:
        with Session(make_engine(cfg.DATABASE_URL)) as s:
            rows = s.exec(select(Outbox.status, func.count(col(Outbox.id))).group_by(col(Outbox.status))).all()
            oldest = s.exec(select(func.min(col(Outbox.not_before)))
                            .where(col(Outbox.status) == "pending")).first()
    except (OperationalError, ProgrammingError) as e:
        typer.echo(f"cannot read the outbox ({type(e.orig).__name__}): is the database migrated? "
                   "(lupus db upgrade)", err=True)
        raise typer.Exit(1) from None
    counts = dict(rows)
    for status in sorted(set(counts) | {"pending", "sent", "failed"}):
        typer.echo(f"{status:<10} {counts.get(status, 0)}")
    if oldest is not None:
        late = (utcnow() - (oldest if oldest.tzinfo else oldest.replace(tzinfo=utcnow().tzinfo))).total_seconds()
        typer.echo(f"oldest pending due {max(0, int(late))} s ago")
    typer.echo(f"broker     {broker_depth(cfg.REDIS_URL)}")


def broker_depth(redis_url: str | None, queue: str = "lupus", data_dir: Path = Path("var")) -> str:
    """Messages waiting in the worker's queue, as a line for people: Redis, or the embedded broker."""
    if redis_url:
        import redis

        from service.settings import redis_tls_options

        client = redis.Redis.from_url(redis_url, socket_timeout=3, socket_connect_timeout=3,
                                      **redis_tls_options(redis_url))
        try:
            return f"redis, {client.llen(queue)} queued"
        except redis.RedisError as e:
            return f"redis unreachable ({type(e).__name__})"
        finally:
            client.close()
    import sqlite3

    path = data_dir / "celery.db"
    if not path.exists():
        return "embedded (no queue yet)"
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
            (n,) = conn.execute("SELECT count(*) FROM kombu_message m JOIN kombu_queue q ON m.queue_id = q.id "
                                "WHERE q.name = ? AND m.visible", (queue,)).fetchone()
    except sqlite3.Error as e:
        return f"embedded, unreadable ({e})"
    return f"embedded, {n} queued"


@app.command()
def web(
    host: str = typer.Option("0.0.0.0", help="the address to listen on"),
    port: int | None = typer.Option(None, help="the port (default: PORT)"),
) -> None:
    """Serve the webhooks as a deployment does (the Procfile's `web`): on PORT, WEB_CONCURRENCY
    processes, behind the platform's proxy. A configuration that cannot work is refused first, with
    one line naming what is missing (before any process is started, so none is restarted in a loop)."""
    import uvicorn

    from service.ops import metrics
    from service.ops.health import start_heartbeat
    from service.ops.logging import configure
    from service.ops.preflight import refusal
    from service.settings import get_settings

    cfg = get_settings()
    problem = refusal(cfg, "web")
    if problem:
        typer.echo(f"lupus web: {problem}", err=True)
        raise typer.Exit(2)
    configure()
    metrics.multiprocess(cfg, "web")  # the processes uvicorn starts count in the same folder
    heartbeat = start_heartbeat(cfg, "web")  # what this machine carries, for /healthz and doctor
    # uvicorn serving in this process raises SIGTERM again once it has shut down: exit, and cleanly.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        # By name: the app is built in each of uvicorn's processes. worker.web puts service.web's app
        # together with the worker's hand-off (the service imports nothing of the worker).
        uvicorn.run("worker.web:app", host=host, port=port or cfg.PORT, workers=cfg.WEB_CONCURRENCY,
                    proxy_headers=True, forwarded_allow_ips="*", log_config=None)
    finally:
        heartbeat.stop()


@app.command()
def doctor(
    setup: bool = typer.Option(False, "--setup", help="only what must hold before the processes start "
                               "(the configuration, PUBLIC_URL, the database migrated, the broker): a postdeploy step"),
) -> None:
    """Check a live deployment against the runbook, in plain words: the database and its migrations,
    the broker, the worker's and beat's heartbeats, the public address, and each configured
    channel's platform (Telegram's webhook, the Twilio number). Exit status 1 when something is
    wrong."""
    from service.ops.doctor import FAIL, run
    from service.settings import get_settings

    checks = run(get_settings(), setup=setup)
    for check in checks:
        typer.echo(check.line())
    failed = [c for c in checks if c.status == FAIL]
    typer.echo(f"{len(failed)} problem(s)" if failed else "all good")
    if failed:
        raise typer.Exit(1)


@app.command()
def up(
    port: int = typer.Option(8000, help="the sandbox page's port (0: any free one; a busy one falls back to any)"),
    data: Path = typer.Option(Path("var"), help="where the sandbox's SQLite database lives"),
    host: str = typer.Option("127.0.0.1", help="the address to listen on"),
) -> None:
    """Run everything locally on embedded defaults: the sandbox page (phones on Telegram and SMS), the
    real web app behind it, and the worker. Starts from an empty database each time. Ctrl-C stops it."""
    import logging
    import time

    from service.ops.logging import configure
    from service.sandbox.world import Sandbox

    configure(json=False)
    logging.getLogger("alembic").setLevel(logging.WARNING)  # one line per migration plugin otherwise
    for name in ("sandbox.db", "sandbox.db-wal", "sandbox.db-shm"):
        (data / name).unlink(missing_ok=True)
    try:
        sandbox = Sandbox(data, port=port, host=host)
    except OSError:
        typer.echo(f"port {port} is busy; taking a free one")
        sandbox = Sandbox(data, port=0, host=host)
    url = sandbox.start()
    typer.echo(f"""
Lupus by Message is running on embedded defaults:
  database  {sandbox.settings.DATABASE_URL} (migrated)
  web app   {sandbox.web_url}  (the real webhooks: /telegram/webhook, /sms/twilio, /healthz)
  Telegram  stand-in at {url}/telegram    Twilio  stand-in at {url}/twilio
  worker    in this process (it shares the sandbox's movable clock; no Redis needed)

  Open the sandbox:  {url}/

Press Ctrl-C to stop.""")

    def _terminate(*_: object) -> None:
        raise KeyboardInterrupt  # `kill` or a process manager: stop as cleanly as on Ctrl-C

    signal.signal(signal.SIGTERM, _terminate)
    # A process started in the background by a script (`cmd &`) inherits SIGINT ignored, and Python
    # then never raises KeyboardInterrupt: Ctrl-C (or a test's SIGINT) would leave it running.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        typer.echo("stopping...")
    finally:
        # Stopping takes a second or two. Should it ever hang, every thread's stack is printed
        # and the process ends after a minute: Ctrl-C always gives the terminal back.
        faulthandler.dump_traceback_later(60, exit=True)
        sandbox.stop()
        faulthandler.cancel_dump_traceback_later()
    typer.echo("stopped")


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
