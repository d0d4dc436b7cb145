"""The ``lupus`` command."""

from __future__ import annotations

import json
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
    from service.db import upgrade
    from service.settings import get_settings

    upgrade(get_settings().DATABASE_URL, revision)
    typer.echo(f"database at {revision}")


telegram_app = typer.Typer(add_completion=False, no_args_is_help=True, help="The Telegram bot.")
app.add_typer(telegram_app, name="telegram")


@telegram_app.command("set-webhook")
def telegram_set_webhook(
    drop_pending: bool = typer.Option(False, "--drop-pending", help="forget updates Telegram still holds"),
) -> None:
    """Register PUBLIC_URL/telegram/webhook with Telegram (via TELEGRAM_API_URL), with the secret
    Telegram then sends in every update, and the update types the bot reads."""
    import asyncio

    from telegram import Bot
    from telegram.error import TelegramError

    from service.channels.telegram import ALLOWED_UPDATES
    from service.delivery.telegram_sender import bot_base_url
    from service.settings import get_settings

    cfg = get_settings()
    if not (cfg.TELEGRAM_BOT_TOKEN and cfg.TELEGRAM_WEBHOOK_SECRET):
        typer.echo("TELEGRAM_BOT_TOKEN and TELEGRAM_WEBHOOK_SECRET must be set", err=True)
        raise typer.Exit(2)
    url = cfg.PUBLIC_URL.rstrip("/") + "/telegram/webhook"

    async def register() -> str:
        async with Bot(cfg.TELEGRAM_BOT_TOKEN or "", base_url=bot_base_url(cfg.TELEGRAM_API_URL)) as bot:
            await bot.set_webhook(url, secret_token=cfg.TELEGRAM_WEBHOOK_SECRET,
                                  allowed_updates=list(ALLOWED_UPDATES), drop_pending_updates=drop_pending)
            return str(bot.username)

    try:
        username = asyncio.run(register())
    except TelegramError as e:
        typer.echo(f"Telegram refused: {e}", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"@{username} now posts updates to {url}")


@app.command()
def games() -> None:
    """List the games: code, status, phase, deadline (UTC), players."""
    from sqlmodel import Session, col, func, select

    from service.db import make_engine
    from service.models import Game, Seat
    from service.settings import get_settings

    with Session(make_engine(get_settings().DATABASE_URL)) as s:
        rows = s.exec(select(Game, func.count(col(Seat.id)))
                      .join(Seat, col(Seat.game_id) == col(Game.id), isouter=True)
                      .group_by(col(Game.id)).order_by(col(Game.id))).all()
        for g, n in rows:
            deadline = g.deadline.strftime("%Y-%m-%d %H:%M") if g.deadline else "-"
            paused = " paused" if g.paused else ""
            typer.echo(f"{g.code}  {g.status:<8} phase {g.phase_no:<3} {deadline:<16} {n} players{paused}")


@app.command()
def up() -> None:
    """Run locally on embedded defaults (for now: replay the example game)."""
    example = Path(__file__).resolve().parent.parent / "examples" / "first-game.yaml"
    typer.echo(f"Replaying {example.name}:")
    replay(example, None)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
