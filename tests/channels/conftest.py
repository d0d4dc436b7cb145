"""The running app (uvicorn on a free port) in front of a migrated database, with the Telegram and
Twilio stand-ins recording every outbound call, and players who write as those services post."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import Engine, text
from sqlmodel import Session, select

from engine import Phase
from service.channels.sms.sender import TwilioSender
from service.channels.telegram.presentation import CHOSEN, read_button
from service.channels.telegram.sender import TelegramSender
from service.game.app import Service
from service.sandbox import inbound
from service.sandbox.fake_telegram import FakeTelegram
from service.sandbox.fake_twilio import FakeTwilio
from service.sandbox.server import ServerThread
from service.settings import Settings
from service.store.models import Game, Identity, Outbox
from service.web import create_app
from tests.service.conftest import Clock, db, pg_url, sqlite_template  # noqa: F401

from .drain import drain

TOKEN = "7000000001:CHANNELS-test_token"
SECRET = "webhook-secret-42"
SERVICE_SID = "MG" + "7" * 32
PUBLIC_URL = "https://lupus.example.org"  # behind a proxy: the app never sees this URL itself
TABLES = ("identities", "games", "seats", "game_events", "inbound", "outbox")
_ids = itertools.count(1)


@dataclass
class Stack:
    db: Engine
    url: str
    svc: Service
    clock: Clock
    tg: FakeTelegram
    tw: FakeTwilio
    settings: Settings
    senders: dict[str, Any] = field(default_factory=dict)
    http: httpx.Client = field(default_factory=lambda: httpx.Client(timeout=30))
    """One client for the whole test: a new one per request costs a TLS context (a third of a second)."""

    # -- posting as Telegram and Twilio do --------------------------------------------------------
    def post_update(self, update: dict[str, Any], secret: str | None = SECRET) -> httpx.Response:
        """Post as Telegram does; the stand-in then makes the call the answer names (a tap's answer)."""
        r = self.http.post(
            self.url + "/telegram/webhook", content=json.dumps(update), headers=inbound.telegram_headers(secret)
        )
        self.tg.webhook_answered(update, r.status_code, r.content)
        return r

    def post_sms(self, form: dict[str, str], path: str = "/sms/twilio", token: str | None = None) -> httpx.Response:
        headers = inbound.signed(token or self.tw.auth_token, PUBLIC_URL + path, form)
        return self.http.post(self.url + path, data=form, headers=headers)

    # -- the worker's part ------------------------------------------------------------------------
    def deliver(self) -> int:
        total = 0
        while n := drain(self.db, self.senders):
            total += n
        return total

    def finish_phase(self) -> None:
        game = self.game()
        assert game.deadline is not None
        self.clock.now = max(self.clock.now, game.deadline)
        assert sum(self.svc.close_phase(g, n) for g, n in self.svc.due_games()) == 1

    # -- looking ----------------------------------------------------------------------------------
    def game(self) -> Game:
        with Session(self.db) as s:
            game = s.exec(select(Game).order_by(Game.id.desc())).first()  # type: ignore[union-attr]
            assert game is not None
            return game

    def identity(self, channel: str, address: str) -> Identity:
        with Session(self.db) as s:
            person = s.exec(select(Identity).where(Identity.channel == channel, Identity.address == address)).one()
            return person

    def outbox(self) -> list[Outbox]:
        with Session(self.db) as s:
            return list(s.exec(select(Outbox).order_by(Outbox.id)))  # type: ignore[arg-type]

    def snapshot(self) -> dict[str, list[Any]]:
        """Every row of every table: what "changes nothing" is checked against."""
        out: dict[str, list[Any]] = {}
        with self.db.connect() as conn:
            for table in TABLES:
                out[table] = [tuple(map(str, r)) for r in conn.execute(text(f"select * from {table} order by id"))]
        return out


@dataclass
class TgPlayer:
    stack: Stack
    uid: int
    first_name: str

    @property
    def user(self) -> dict[str, Any]:
        return inbound.telegram_user(self.uid, self.first_name, language_code="en")

    def say(self, text_: str, chat: dict[str, Any] | None = None) -> httpx.Response:
        r = self.stack.post_update(inbound.text_update(self.user, text_, chat=chat))
        assert r.status_code == 200, r.text
        return r

    def texts(self) -> list[str]:
        return [m["text"] for m in self.stack.tg.sent(self.uid)]

    def tap(self, move: str) -> httpx.Response:
        """Tap the newest button his chat shows for ``move`` (``vote bob``): its data carries the
        player's seat (``#K7Q/4 vote 3``), its label his name."""
        for msg, button in reversed(self.buttons()):
            if button_move(button) == move.casefold():
                return self.tap_on(msg, button)
        raise AssertionError(f"{self.first_name} has no button for {move}")

    def buttons(self) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """Every button his chat shows now (keyboards as edited), with its message, oldest first."""
        return [
            (msg, b)
            for msg in self.stack.tg.messages(self.uid)
            for row in (msg.get("reply_markup") or {}).get("inline_keyboard", [])
            for b in row
        ]

    def tap_on(self, msg: dict[str, Any], button: dict[str, Any]) -> httpx.Response:
        r = self.stack.post_update(inbound.callback_update(self.user, button["callback_data"], msg))
        assert r.status_code == 200, r.text
        return r


@dataclass
class SmsPlayer:
    stack: Stack
    number: str

    def say(self, body: str) -> httpx.Response:
        form = inbound.incoming_sms(self.stack.tw.account_sid, self.number, "+15005550006", body)
        r = self.stack.post_sms(form)
        assert r.status_code == 200, r.text
        return r

    def texts(self) -> list[str]:
        return [m["body"] for m in self.stack.tw.messages(self.number)]


def make_settings(
    db_url: str, tg_url: str = "http://127.0.0.1:9", tw_url: str = "http://127.0.0.1:9", **over: Any
) -> Settings:
    values: dict[str, Any] = dict(
        DATABASE_URL=db_url,
        REDIS_URL=None,
        PUBLIC_URL=PUBLIC_URL,
        TELEGRAM_BOT_TOKEN=TOKEN,
        TELEGRAM_WEBHOOK_SECRET=SECRET,
        TELEGRAM_API_URL=tg_url,
        TWILIO_ACCOUNT_SID="AC" + "0" * 32,
        TWILIO_AUTH_TOKEN="sandbox-token",
        TWILIO_FROM_NUMBER=None,
        TWILIO_MESSAGING_SERVICE_SID=SERVICE_SID,
        TWILIO_API_URL=tw_url,
    )
    values.update(over)
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


@pytest.fixture
def stack(db: Engine) -> Iterator[Stack]:  # noqa: F811
    tg = FakeTelegram(TOKEN, enforce_limits=False)
    tw = FakeTwilio()
    tw.add_messaging_service(SERVICE_SID)
    with ServerThread(tg.app) as tg_url, ServerThread(tw.app) as tw_url:
        settings = make_settings(str(db.url), tg_url, tw_url)
        clock = Clock()
        # Seeds from a seeded generator: every run deals the same cards, so a failure replays.
        svc = Service(settings, db, clock=clock, random_bits=random.Random(20260302).getrandbits)
        with ServerThread(create_app(settings, svc)) as url:
            s = Stack(db, url, svc, clock, tg, tw, settings)
            s.senders = {
                "telegram": TelegramSender(TOKEN, api_url=tg_url),
                "sms": TwilioSender(
                    tw.account_sid,
                    tw.auth_token,
                    messaging_service_sid=SERVICE_SID,
                    api_url=tw_url,
                    status_callback=PUBLIC_URL + "/sms/twilio/status",
                ),
            }
            try:
                yield s
            finally:
                s.http.close()
                for sender in s.senders.values():
                    sender.close()


def button_move(button: dict[str, Any]) -> str:
    """The move a button makes, with the player's name its label shows (``vote bob``), not his seat."""
    read = read_button(str(button.get("callback_data", "")))
    assert read is not None, button
    verb, _, target = read[0].split(" ", 1)[1].partition(" ")
    label = str(button["text"]).removeprefix(CHOSEN).split()
    return f"{verb} {label[-1]}".casefold() if target else verb


def tg_player(stack: Stack, name: str) -> TgPlayer:
    return TgPlayer(stack, 500_000 + next(_ids), name)


def sms_player(stack: Stack) -> SmsPlayer:
    return SmsPlayer(stack, f"+3933{next(_ids):08d}")


def later(stack: Stack, minutes: int) -> None:
    stack.clock.now += timedelta(minutes=minutes)


def phase_moves(state: Any) -> list[tuple[str, str, str]]:
    """What the mixed games' players do in a phase, as (player, verb, target): the Werewolves kill
    the last human, the Seers look at the first Werewolf, the nominations and the ballot go to him."""
    alive = [p for p in state.players if p in state.alive]
    wolves = [p for p in alive if state.roles[p].value == "werewolf"]
    humans = [p for p in alive if p not in wolves]
    if state.phase is Phase.NIGHT:
        return [(w, "kill", humans[-1]) for w in wolves] + [
            (s, "see", wolves[0]) for s in alive if state.roles[s].value == "seer"
        ]
    if state.phase is Phase.NOMINATIONS:
        return [(p, "vote", wolves[0] if p != wolves[0] else humans[0]) for p in alive]
    if state.phase is Phase.BALLOT:
        target = wolves[0] if wolves[0] in state.suspects else state.suspects[0]
        return [(p, "vote", target) for p in alive if p not in state.suspects]
    return []
