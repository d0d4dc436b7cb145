"""Random, Unicode and hostile messages through both channels' webhooks: no 5xx, every reply a
readable text, the game still valid.

Telegram updates (authentic, with the secret) and Twilio SMS (signed as Twilio signs) carry what
Hypothesis makes (``texts.hostile_texts``) from players of a running game and from strangers; a
share of the Telegram bodies are mangled: cut short, or with a text that is not a string (an object
where the string belongs, which the webhook ignores). 400 messages by default; 50,000 per channel
(100,000 in all) in the ``slow`` suite.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlmodel import Session, col, select

import engine
from service import web
from service.game.app import Service
from service.sandbox import inbound
from service.settings import Settings
from service.store.models import Game, Outbox
from tests.service.conftest import Clock

from .texts import hostile_texts

TOKEN = "7000000003:FUZZ-token"
SECRET = "fuzz-secret"
AUTH = "fuzz-auth-token"
SID = "AC" + "f" * 32
PUBLIC = "https://lupus.example.org"
NAMES = ["ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal"]
_ids = itertools.count(1)


def fuzz_settings(url: str) -> Settings:
    return Settings(
        _env_file=None,
        DATABASE_URL=url,
        PUBLIC_URL=PUBLIC,  # type: ignore[call-arg]
        TELEGRAM_BOT_TOKEN=TOKEN,
        TELEGRAM_WEBHOOK_SECRET=SECRET,
        TELEGRAM_API_URL="http://127.0.0.1:9/bot",
        TWILIO_ACCOUNT_SID=SID,
        TWILIO_AUTH_TOKEN=AUTH,
        TWILIO_MESSAGING_SERVICE_SID="MG" + "f" * 32,
        TWILIO_API_URL="http://127.0.0.1:9",
    )


def telegram_body(who: int, text: str, mangle: int) -> str:
    update = inbound.text_update(inbound.telegram_user(who, f"p{who}", language_code="en"), text, update_id=next(_ids))
    body = json.dumps(update)
    if mangle == 1:
        return body[: len(body) // 2]  # cut short
    if mangle == 2:
        update["message"]["text"] = {"nested": text}  # the wrong type where a string belongs
        return json.dumps(update)
    return body


def sms_form(who: int, text: str) -> dict[str, str]:
    form = inbound.incoming_sms(SID, f"+3933300{who:05d}", "+15005550006", text)
    form["MessageSid"] = f"SM{next(_ids):032d}"
    return form


def _run(pg: Any, examples: int) -> None:
    clock = Clock()
    cfg = fuzz_settings(str(pg.url))
    svc = Service(cfg, pg, clock=clock)
    with TestClient(web.create_app(cfg, svc)) as client:

        def telegram(who: int, text: str, mangle: int = 0) -> int:
            headers = inbound.telegram_headers(SECRET)
            body = telegram_body(who, text, mangle)
            return client.post("/telegram/webhook", content=body, headers=headers).status_code

        def sms(who: int, text: str) -> int:
            form = sms_form(who, text)
            headers = inbound.signed(AUTH, PUBLIC + "/sms/twilio", form)
            return client.post("/sms/twilio", data=form, headers=headers).status_code

        # A running game of eight: four by Telegram, four by SMS.
        assert telegram(0, "new") == 200
        with Session(pg) as s:
            code = s.exec(select(Game)).one().code
        for i, n in enumerate(NAMES):
            assert (telegram(i, f"join {code} {n}") if i < 4 else sms(i, f"join {code} {n}")) == 200
        assert telegram(0, f"#{code} start") == 200
        seen = [0]

        @settings(
            max_examples=examples,
            deadline=None,
            database=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )
        @given(
            channel=st.sampled_from(["telegram", "sms"]),
            who=st.integers(0, 11),
            text=hostile_texts(code),
            mangle=st.sampled_from([0, 0, 0, 0, 1, 2]),
        )
        def fuzz(channel: str, who: int, text: str, mangle: int) -> None:
            status = telegram(who, text, mangle) if channel == "telegram" else sms(who, text)
            assert status < 500, (channel, text, status)
            if channel == "sms" or mangle == 0:
                assert status == 200, (channel, text, status)
            with Session(pg) as s:
                rows = s.exec(select(Outbox).where(col(Outbox.id) > seen[0]).order_by(col(Outbox.id))).all()
                game = s.exec(select(Game).where(Game.code == code)).one()
            for row in rows:
                assert row.text.strip() and "Traceback" not in row.text, (text, row.key, row.text)
                seen[0] = max(seen[0], row.id or 0)
            assert game.state is not None
            state = engine.from_json(game.state)
            assert engine.from_json(engine.to_json(state)) == state

        fuzz()


def test_hostile_messages_through_both_channels(pg: Any) -> None:
    _run(pg, 400)


def test_a_message_text_that_is_not_a_string_is_4xx_or_ignored(pg: Any) -> None:
    cfg = fuzz_settings(str(pg.url))
    with TestClient(web.create_app(cfg, Service(cfg, pg, clock=Clock()))) as client:
        r = client.post(
            "/telegram/webhook", content=telegram_body(1, "vote bob", 2), headers=inbound.telegram_headers(SECRET)
        )
    assert r.status_code < 500


@pytest.mark.slow
@pytest.mark.timeout(6 * 3600)
def test_100000_hostile_messages_through_both_channels(pg: Any) -> None:
    _run(pg, 100_000)
