"""The app's edges: health, the home page, importing without a database, channels off, and
``lupus setup``."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from sqlalchemy import Engine
from typer.testing import CliRunner

from service.cli import app as cli
from service.game.app import Service
from service.sandbox import inbound
from service.sandbox.fake_telegram import FakeTelegram
from service.sandbox.server import ServerThread
from service.settings import get_settings
from service.web import create_app

from .conftest import PUBLIC_URL, SECRET, TOKEN, Stack, make_settings, tg_player

ROOT = Path(__file__).resolve().parents[2]


def test_home_and_health(stack: Stack) -> None:
    home = stack.http.get(stack.url + "/")
    assert home.status_code == 200 and "Lupus" in home.text
    health = stack.http.get(stack.url + "/healthz")
    assert health.status_code == 200
    body = health.json()
    assert body["database"] == "ok" and body["broker"] == "not configured"
    assert body["channels"] == {"telegram": {"on": True}, "sms": {"on": True}}


def test_health_says_what_is_off_and_what_fails(tmp_path: Path) -> None:
    settings = make_settings(
        f"sqlite:///{tmp_path}/x.db",
        TELEGRAM_BOT_TOKEN=None,
        TWILIO_AUTH_TOKEN=None,
        TWILIO_MESSAGING_SERVICE_SID=None,
        REDIS_URL="redis://127.0.0.1:9/0",
    )
    with ServerThread(create_app(settings)) as url, httpx.Client(timeout=30) as http:
        r = http.get(url + "/healthz")
        assert r.status_code == 503
        body = r.json()
        assert body["database"] == "ok" and body["broker"].startswith("unreachable")
        assert body["channels"]["telegram"] == {"on": False, "why": "TELEGRAM_BOT_TOKEN not set"}
        assert body["channels"]["sms"]["why"] == (
            "TWILIO_AUTH_TOKEN and TWILIO_FROM_NUMBER or TWILIO_MESSAGING_SERVICE_SID not set"
        )
        # A channel that is off has no webhook: nothing is read, nothing stored.
        assert (
            http.post(
                url + "/telegram/webhook", json={"update_id": 1}, headers={"X-Telegram-Bot-Api-Secret-Token": SECRET}
            ).status_code
            == 404
        )
        assert http.post(url + "/sms/twilio", data={"Body": "x"}).status_code == 404


def test_health_fails_when_the_database_is_unreachable() -> None:
    settings = make_settings("postgresql+psycopg://nobody@127.0.0.1:9/none")
    with ServerThread(create_app(settings)) as url, httpx.Client(timeout=30) as http:
        r = http.get(url + "/healthz")
        assert r.status_code == 503 and r.json()["database"].startswith("unreachable")


def test_a_web_process_freezes_what_it_built_once_its_first_command_is_done(db: Engine, stack: Stack) -> None:
    """``service.web.settle_heap``: what a web process holds after its first command (SQLAlchemy's
    mappers and compiled statements among it) is left out of later full collections, which walked
    it for 60 to 115 ms. A test's app, which brings its own service, is left alone."""
    gc.unfreeze()  # what importing service.web froze: counted from nothing here
    try:
        tg_player(stack, "ann").say("help")
        assert gc.get_freeze_count() == 0
        with ServerThread(create_app(make_settings(str(db.url)))) as url, httpx.Client(timeout=30) as http:
            assert http.get(url + "/healthz").status_code == 200
            assert gc.get_freeze_count() == 0  # no command yet
            update = inbound.text_update(inbound.telegram_user(7, "Bea", language_code="en"), "help")
            r = http.post(url + "/telegram/webhook", json=update, headers={"X-Telegram-Bot-Api-Secret-Token": SECRET})
            assert r.status_code == 200
            assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_importing_the_app_needs_no_database() -> None:
    env = {**os.environ, "DATABASE_URL": "postgresql://nobody@127.0.0.1:9/none"}
    code = "import worker.web as w; print(type(w.app).__name__)"  # what `lupus web` serves
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "FastAPI"


def test_set_webhook_registers_the_public_url_with_the_secret(monkeypatch: pytest.MonkeyPatch, db: Engine) -> None:
    fake = FakeTelegram(TOKEN)
    with ServerThread(fake.app) as url:
        for name, value in {
            "TELEGRAM_BOT_TOKEN": TOKEN,
            "TELEGRAM_WEBHOOK_SECRET": SECRET,
            "TELEGRAM_API_URL": url,
            "PUBLIC_URL": PUBLIC_URL + "/",
        }.items():
            monkeypatch.setenv(name, value)
        get_settings.cache_clear()
        try:
            result = CliRunner().invoke(cli, ["setup"])
        finally:
            get_settings.cache_clear()
        assert result.exit_code == 0, result.output
        assert fake.webhook == {
            "url": PUBLIC_URL + "/telegram/webhook",
            "secret_token": SECRET,
            "allowed_updates": ["message", "callback_query"],
        }
        # The "/" menu, for private chats and groups, in each language and by default (English).
        for scope, words in (
            ("all_private_chats", ("help", "aiuto", "ayuda")),
            ("all_group_chats", ("begin", "inizia", "empezar")),
        ):
            for lang, word in zip(("en", "it", "es"), words, strict=True):
                commands = fake.commands(scope, lang)
                assert word in [c["command"] for c in commands] and all(c["description"] for c in commands)
            assert fake.commands(scope) == fake.commands(scope, "en")
        assert [c["command"] for c in fake.commands("all_private_chats", "it")][:4] == [
            "aiuto",
            "stato",
            "ruolo",
            "giocatori",
        ]
        assert fake.commands("all_group_chats", "es")[0] == {
            "command": "ayuda",
            "description": "qué puedes hacer ahora",
        }
        assert "menu: the / menu is set in en, it, es" in result.output
        assert f"@lupus_sandbox_bot now posts updates to {PUBLIC_URL}/telegram/webhook" in result.output
        # Telegram now posts to the app with the secret, and the app takes it.
        settings = make_settings(str(db.url), url)
        with ServerThread(create_app(settings, Service(settings, db))) as app_url:
            fake.webhook["url"] = app_url + "/telegram/webhook"
            from service.sandbox.inbound import telegram_user, text_update

            assert fake.deliver(text_update(telegram_user(42, "Ann"), "/start")) == 200
    monkeypatch.delenv("TELEGRAM_BOT_TOKEN")
    get_settings.cache_clear()
    try:
        refused = CliRunner().invoke(cli, ["setup"])  # no channel configured: nothing to tell any platform
        assert refused.exit_code == 2 and "no channel is configured" in refused.output
    finally:
        get_settings.cache_clear()


def test_the_app_starts_and_stops_with_its_lifespan(stack: Stack) -> None:
    """uvicorn runs the lifespan in production: startup does nothing heavy, shutdown closes the
    Telegram app it initialized for the first update."""
    from fastapi.testclient import TestClient

    from service.sandbox.inbound import telegram_headers, telegram_user, text_update

    app = create_app(stack.settings, stack.svc)
    with TestClient(app) as client:
        r = client.post(
            "/telegram/webhook", json=text_update(telegram_user(77, "Zed"), "/start"), headers=telegram_headers(SECRET)
        )
        assert r.status_code == 200
        assert app.state.web.webhooks["telegram"].application().bot.username == "lupus_sandbox_bot"


@pytest.mark.postgres
def test_commands_go_on_when_the_database_drops_every_connection(pg_url: str) -> None:
    """The app's own engine lends pooled connections without a ping: one that a database restart
    dropped fails its command's first statement, and the command is retried on a new connection,
    acted on once."""
    from fastapi.testclient import TestClient
    from sqlalchemy import func, text
    from sqlmodel import col, select

    from service.sandbox.fake_telegram import FakeTelegram
    from service.sandbox.inbound import telegram_headers, telegram_user, text_update
    from service.store.db import make_engine
    from service.store.models import Inbound

    me = "lupus_web_dropped"
    url = pg_url + "?application_name=" + me
    admin = make_engine(pg_url)
    user = telegram_user(78, "Yan")
    fake = FakeTelegram(TOKEN)
    try:
        with ServerThread(fake.app) as tg_url, TestClient(create_app(make_settings(url, tg_url + "/bot"))) as client:
            with admin.connect() as c:
                before = c.execute(select(func.count()).select_from(Inbound)).scalar_one()
            updates = [text_update(user, "help") for _ in range(3)]
            for update in updates:
                r = client.post("/telegram/webhook", json=update, headers=telegram_headers(SECRET))
                assert r.status_code == 200
                with admin.connect() as c:
                    dropped = c.execute(
                        text(
                            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = :me"
                        ),
                        {"me": me},
                    ).scalar_one()
                assert dropped >= 1  # the pooled connection the next command will be lent
            with admin.connect() as c:
                ids = (
                    c.execute(
                        select(Inbound.external_id)
                        .where(col(Inbound.identity_id).is_not(None))
                        .order_by(col(Inbound.id))
                        .offset(before)
                    )
                    .scalars()
                    .all()
                )
            assert ids == [str(u["update_id"]) for u in updates]
    finally:
        admin.dispose()


@pytest.mark.redis
def test_the_web_hands_each_commands_messages_to_the_worker(tmp_path: Path) -> None:
    """With a broker, the web app's own service enqueues ``lupus.dispatch`` with the ids of the
    messages a command wrote, once committed (without it, replies waited for beat's outbox sweep)."""
    import base64
    import json
    import time

    from fastapi.testclient import TestClient
    from sqlmodel import Session, select

    from service.sandbox.inbound import telegram_headers, telegram_user, text_update
    from service.store.db import make_engine, upgrade
    from service.store.models import Outbox
    from tests.databases import flushed_redis, redis_url
    from worker.web import handoff

    db_url = f"sqlite:///{tmp_path}/web.db"
    upgrade(db_url)
    broker = redis_url(12)
    with (
        flushed_redis(broker) as r,
        TestClient(create_app(make_settings(db_url, REDIS_URL=broker), after_commit=handoff(broker))) as client,
    ):
        update = text_update(telegram_user(79, "Zoe"), "new")
        assert client.post("/telegram/webhook", json=update, headers=telegram_headers(SECRET)).status_code == 200
        end = time.monotonic() + 30
        while r.llen("lupus") == 0 and time.monotonic() < end:
            time.sleep(0.05)
        raw = r.lpop("lupus")
        assert isinstance(raw, bytes), "no task reached the broker"
        message = json.loads(raw)
        assert message["headers"]["task"] == "lupus.dispatch"
        with Session(make_engine(db_url)) as s:
            written = sorted(o.id for o in s.exec(select(Outbox)) if o.id is not None)
        body = message["body"]
        if message["properties"].get("body_encoding") == "base64":
            body = base64.b64decode(body)
        assert written and json.loads(body)[0] == [written]  # the task's args: the ids, in one task
