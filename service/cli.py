"""The ``lupus`` command.

Its help reads like the tools operators know (click's plain layout, not rich's panels): paragraphs
flowed to the terminal, flags without type tags, each command's exit status in its help (and in
deploy/README.md). The first sentence of each docstring is the command's line in ``lupus --help``.
"""

from __future__ import annotations

import faulthandler
import json
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import typer
from typer.core import TyperCommand

from service.store.status import OutboxStatus

T = TypeVar("T")


class Plain(TyperCommand):
    """click's plain help, but for two marks of Typer's own on a command's arguments: the type tag in
    the Arguments list (``FILE <file>``) and the braces round a required one in the usage line."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return [piece.removeprefix("{").removesuffix("}") for piece in super().collect_usage_pieces(ctx)]

    def format_options(self, ctx: Any, formatter: Any) -> None:
        records = [(p.param_type_name, record) for p in self.get_params(ctx) if (record := p.get_help_record(ctx))]
        for title, kind in (("Arguments", "argument"), ("Options", "option")):
            rows = [(name.split()[0] if kind == "argument" else name, text) for k, (name, text) in records if k == kind]
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


HELP = """Lupus in Tabula, moderated by message: the operator's commands.

Settings come from the environment (deploy/README.md, Configuration). Exit status: as each command
says; 2 also for a command line that cannot be read (an unknown option, a missing argument)."""
app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None, help=HELP)


def _version(asked: bool) -> None:
    if asked:
        from importlib.metadata import version

        typer.echo(f"lupus {version('lupus-by-message')}")
        raise typer.Exit()


@app.callback()
def _main(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    pass


@app.command(cls=Plain)
def replay(
    file: Path = typer.Argument(..., exists=True, dir_okay=False, metavar="FILE", help="A game record (YAML or JSON)."),
    as_: str | None = typer.Option(
        None, "--as", metavar="PLAYER", help="Print what this player was told, and his view."
    ),
) -> None:
    """Play a game record and print where it stands.

    One JSON object: where the game stands, or what PLAYER was told and his view.

    Exit status: 0 printed; 2 the record cannot be read, a move in it is illegal (named, with the
    reason), or PLAYER is not in the game."""
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


db_app = typer.Typer(
    add_completion=False, no_args_is_help=True, rich_markup_mode=None, help="The database: its migrations."
)
app.add_typer(db_app, name="db")


@db_app.command("upgrade", cls=Plain)
def db_upgrade(revision: str = typer.Argument("head", metavar="REVISION", help="The revision to reach.")) -> None:
    """Migrate DATABASE_URL to this code's schema.

    What the release step runs before a release goes live (alembic upgrade head).

    Exit status: 0 migrated; 1 the database cannot be reached or a migration failed (one line says
    which)."""
    from sqlalchemy.exc import SQLAlchemyError

    from service.ops.preflight import reason
    from service.settings import get_settings
    from service.store.db import upgrade

    try:
        upgrade(get_settings().DATABASE_URL, revision)
    except SQLAlchemyError as e:
        typer.echo(f"lupus db upgrade: {reason(getattr(e, 'orig', None) or e)}", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"database at {revision}")


@app.command()
def setup(
    fresh: bool = typer.Option(
        False, "--fresh", help="Forget what the platforms still hold for the bot (Telegram's pending updates)."
    ),
    postdeploy: bool = typer.Option(
        False,
        "--postdeploy",
        help="As Heroku's postdeploy step (app.json): check "
        "first (doctor --setup), set up what can be, say what to do next, and exit 0 "
        "whatever was found, for a failed postdeploy fails a new app's deploy.",
    ),
) -> None:
    """Tell each channel's platform where the app is.

    Each configured channel's platform learns where this deployment is (PUBLIC_URL): Telegram's
    webhook, with its secret and its "/" menu in every language of ours; the Twilio number's
    incoming texts. Run it once after the first deploy and whenever PUBLIC_URL changes.

    Exit status: 0 done (always, with --postdeploy); 1 a platform refused (its line says why); 2 no
    channel is configured, or PUBLIC_URL is not known."""
    from service.channels import CHANNELS
    from service.channels.base import FAIL
    from service.ops.preflight import no_public_url
    from service.settings import get_settings

    cfg = get_settings()
    if postdeploy:
        from service.ops.postdeploy import postdeploy as steps

        for line in steps(cfg):
            typer.echo(line)
        return
    if problem := no_public_url(cfg):
        typer.echo(f"lupus setup: {problem}", err=True)
        raise typer.Exit(2)
    done = [check for channel in CHANNELS.values() for check in channel.setup(cfg, fresh=fresh)]
    if not done:
        typer.echo(
            "no channel is configured (TELEGRAM_BOT_TOKEN, or TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN)", err=True
        )
        raise typer.Exit(2)
    for check in done:
        typer.echo(check.line())
    if any(c.status == FAIL for c in done):
        raise typer.Exit(1)


@app.command()
def games() -> None:
    """List the games, with their phases and deadlines.

    A line a game: code, status, phase (number and kind), deadline in the game's own time zone
    (named), the zone, players.

    Exit status: 0 listed; 1 the database cannot be read (one line says why)."""
    from zoneinfo import ZoneInfo

    from sqlmodel import Session, col, func, select

    import engine
    from service.settings import get_settings
    from service.store.db import make_engine
    from service.store.models import Game, Seat
    from service.texts.i18n import zone_name

    with Session(make_engine(get_settings().DATABASE_URL)) as s:
        rows = _read(
            lambda: s.exec(
                select(Game, func.count(col(Seat.id)))
                .join(Seat, col(Seat.game_id) == col(Game.id), isouter=True)
                .group_by(col(Game.id))
                .order_by(col(Game.id))
            ).all()
        )
        for g, n in rows:
            deadline = "-"
            if g.deadline:
                zone = ZoneInfo(g.timezone)
                when = g.deadline.astimezone(zone)
                deadline = f"{when:%Y-%m-%d %H:%M} {zone_name(g.deadline, zone)}"
            paused = " paused" if g.paused else ""
            kind = engine.public_view(engine.from_json(g.state))["phase"] if g.state else "-"
            typer.echo(
                f"{g.code}  {g.status:<8} phase {g.phase_no:<3} {kind:<11} {deadline:<22} "
                f"{g.timezone:<20} {n} players{paused}"
            )


def _read(query: Callable[[], T]) -> T:
    """A read of the database, or one line saying why it failed and exit status 1."""
    from sqlalchemy.exc import SQLAlchemyError

    from service.ops.preflight import reason

    try:
        return query()
    except SQLAlchemyError as e:
        typer.echo(
            f"cannot read the database ({reason(getattr(e, 'orig', None) or e)}): is DATABASE_URL right, "
            "and the database migrated? (lupus db upgrade)",
            err=True,
        )
        raise typer.Exit(1) from None


@app.command()
def outbox() -> None:
    """Show the texts waiting to be sent, and the broker's queue.

    The outbox's rows by status, how late the oldest pending one is, and the tasks queued in the
    broker when it can be reached.

    Exit status: 0 shown; 1 the database cannot be read (one line says why)."""
    from sqlmodel import Session, col, func, select

    from service.ops.queue import broker_depth
    from service.settings import get_settings
    from service.store.db import make_engine
    from service.store.models import Outbox, utcnow

    cfg = get_settings()
    with Session(make_engine(cfg.DATABASE_URL)) as s:
        rows = _read(
            lambda: s.exec(select(Outbox.status, func.count(col(Outbox.id))).group_by(col(Outbox.status))).all()
        )
        oldest = s.exec(
            select(func.min(col(Outbox.not_before))).where(col(Outbox.status) == OutboxStatus.PENDING)
        ).first()
    counts = dict(rows)
    for status in sorted(set(counts) | {OutboxStatus.PENDING, OutboxStatus.SENT, OutboxStatus.FAILED}):
        typer.echo(f"{status:<10} {counts.get(status, 0)}")
    if oldest is not None:
        late = (utcnow() - (oldest if oldest.tzinfo else oldest.replace(tzinfo=utcnow().tzinfo))).total_seconds()
        typer.echo(f"oldest pending due {max(0, int(late))} s ago")
    typer.echo(f"broker     {broker_depth(cfg.REDIS_URL)}")


@app.command()
def web(
    host: str = typer.Option("0.0.0.0", metavar="ADDRESS", help="The address to listen on."),
    port: int | None = typer.Option(None, metavar="PORT", help="The port.  [default: PORT from the environment]"),
) -> None:
    """Serve the webhooks, as the Procfile's web process.

    On PORT, in WEB_CONCURRENCY processes, behind the platform's proxy. What cannot work is refused
    first, in one line: a channel half set up or without PUBLIC_URL, a database or broker that does
    not answer, a channel in use elsewhere that this process lacks (deploy/README.md, section 5).

    Exit status: 0 stopped (SIGTERM, Ctrl-C); 2 refused at start."""
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
        uvicorn.run(
            "worker.web:app",
            host=host,
            port=port or cfg.PORT,
            workers=cfg.WEB_CONCURRENCY,
            proxy_headers=True,
            forwarded_allow_ips="*",
            log_config=None,
        )
    finally:
        heartbeat.stop()


@app.command()
def doctor(
    setup: bool = typer.Option(
        False,
        "--setup",
        help="Only what must hold before the processes start (the "
        "configuration, PUBLIC_URL, the database migrated, the broker): a postdeploy step.",
    ),
) -> None:
    """Check the deployment against the runbook.

    In plain words, a line a check, each problem with what fixes it: the configuration, the public
    address, the database and its migrations, the broker, the processes' heartbeats and the
    channels they carry, overdue phases, the connection budget, and each configured channel's
    platform (Telegram's webhook, the Twilio number).

    Exit status: 0 all good; 1 something is wrong (the FAIL lines)."""
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
    port: int = typer.Option(
        8000, metavar="PORT", help="The sandbox page's port (0: any free one; a busy one falls back to any)."
    ),
    data: Path = typer.Option(Path("var"), metavar="DIR", help="Where the sandbox's SQLite database lives."),
    host: str = typer.Option("127.0.0.1", metavar="ADDRESS", help="The address to listen on."),
) -> None:
    """Run everything locally on embedded defaults: the sandbox.

    The sandbox page (phones on Telegram and SMS), the real web app behind it, and the worker, with
    stand-ins for Telegram and Twilio: no Redis, no PostgreSQL, nothing leaves the machine. Each
    start begins from an empty database.

    Exit status: 0 stopped (Ctrl-C, SIGTERM)."""
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
The sandbox is running. Open this page in your browser:

    {url}/

Behind the page, on this machine only: the bot's real web app (port {sandbox.web_server.port}), stand-ins
for Telegram and Twilio, and the worker (in this process; no Redis needed).
The database starts empty each time: {sandbox.settings.DATABASE_URL.removeprefix("sqlite:///")}
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
