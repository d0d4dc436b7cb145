"""The sandbox: the real service, its real webhook routes and its real senders, with Telegram and
Twilio replaced by the stand-ins and the players by phones on a web page.

    page ──► Sandbox.say ──► inbound.py builds a Telegram update / a signed Twilio form
                             ──► POST to the real web app (/telegram/webhook, /sms/twilio)
    outbox ──► the in-process worker ──► the real senders ──► FakeTelegram / FakeTwilio
                                                               ──► what each phone shows

Why the worker runs in-process here and not as a Celery worker on the embedded broker: the sandbox
moves the clock ("next deadline"), and the worker must read the same clock as the web app; one
process shares it for free, where separate processes would need it stored somewhere. It calls the
same domain functions the Celery tasks call (dispatch the outbox, sweep due deadlines, reminders),
and it sends at once instead of after the embedded broker's one-second poll. `lupus up` says so.
"""

from __future__ import annotations

import itertools
import logging
import random
import secrets
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import Engine, event
from sqlmodel import Session, col, select

from service.channels.sms.inbound import keyword
from service.delivery.dispatch import deliver
from service.delivery.senders import PermanentReason
from service.game.app import Service
from service.game.failures import tell_hosts_lost, tell_hosts_mute_refused
from service.game.reminders import install, remind, tell_hosts_unreachable
from service.sandbox import board, inbound
from service.sandbox.clock import SandboxClock, clock_text, duration_words
from service.sandbox.fake_telegram import FakeTelegram
from service.sandbox.fake_twilio import FakeTwilio
from service.sandbox.page import make_app
from service.sandbox.phones import NAMES, SMS_MAX, TELEGRAM_MAX, Phone, cut, seated, timeline
from service.sandbox.robots import pending_moves
from service.sandbox.server import ServerThread
from service.sandbox.tables import Tables
from service.settings import Settings
from service.store.db import is_sqlite, make_engine, upgrade
from service.store.models import Game
from service.store.status import GameStatus
from service.texts.i18n import deadline_text

log = logging.getLogger(__name__)
TOKEN = "7000000001:sandbox-token"
FROM_NUMBER = "+15005550006"


class _Later:
    """An ASGI app set after its server is bound: the web app needs its own address (PUBLIC_URL)."""

    app: Any = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.app(scope, receive, send)


class Sandbox(Tables):
    def __init__(
        self,
        data_dir: Path | str = "var",
        *,
        port: int = 0,
        host: str = "127.0.0.1",
        database_url: str | None = None,
        seed: int | None = None,
        **settings: Any,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.clock = SandboxClock()
        # No flood limits in the stand-ins and none in the limiter: a sandbox game moves a day on at
        # a click, and Telegram's 20 texts a minute would hold its phones back for minutes.
        # (tests/delivery covers the limits, the 429s and the retries.)
        self.telegram = FakeTelegram(TOKEN, enforce_limits=False)
        self.twilio = FakeTwilio(numbers=(FROM_NUMBER,))
        self.phones: dict[str, Phone] = {}
        self.rnd = random.Random(seed)
        self.robot_done: set[tuple[int, int, str]] = set()
        self._lock = threading.RLock()  # the phones
        self._tick_lock = threading.RLock()  # one tick at a time (the worker's thread, the controls)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._ids = itertools.count(1)
        self._thread: threading.Thread | None = None
        self.page_server = ServerThread(make_app(self), host=host, port=port)
        self._web_app = _Later()
        self.web_server = ServerThread(self._web_app)
        self.url, self.web_url = self.page_server.url, self.web_server.url
        self.settings = Settings(
            DATABASE_URL=database_url or f"sqlite:///{(self.data_dir / 'sandbox.db').resolve()}",
            REDIS_URL=None,
            PUBLIC_URL=self.web_url,
            TELEGRAM_BOT_TOKEN=TOKEN,
            TELEGRAM_WEBHOOK_SECRET=secrets.token_urlsafe(16),
            TELEGRAM_API_URL=self.url + "/telegram",
            TWILIO_ACCOUNT_SID=self.twilio.account_sid,
            TWILIO_AUTH_TOKEN=self.twilio.auth_token,
            TWILIO_FROM_NUMBER=FROM_NUMBER,
            TWILIO_MESSAGING_SERVICE_SID=None,
            TWILIO_API_URL=self.url + "/twilio",
            **settings,
        )
        self.telegram.webhook = {
            "url": self.web_url + "/telegram/webhook",
            "secret_token": self.settings.TELEGRAM_WEBHOOK_SECRET,
        }
        self.service: Service | None = None
        self.delivery: Any = None
        self.http = httpx.Client(timeout=60)

    # -- life --------------------------------------------------------------------------------------
    def start(self) -> str:
        """Migrate, serve the page and the web app, start the worker; returns the page's address."""
        from service.web import create_app

        upgrade(self.settings.DATABASE_URL)
        self.service = Service(
            self.settings,
            db=_sandbox_db(self.settings.DATABASE_URL),
            clock=self.clock,
            after_commit=lambda _ids: self._wake.set(),
        )
        install(self.service)  # what the worker adds to the service: absences counted at each close
        self._web_app.app = create_app(self.settings, self.service)
        self.delivery = _make_delivery(self.settings)
        self.page_server.start()
        self.web_server.start()
        self._thread = threading.Thread(target=self._run, name="sandbox-worker", daemon=True)
        self._thread.start()
        return self.url

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(30)
        self.web_server.stop()
        self.page_server.stop()
        self.http.close()
        if self.delivery is not None:
            self.delivery.close()
        if self.service is not None:
            self.service.db.dispose()

    def __enter__(self) -> Sandbox:
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()

    # -- the in-process worker --------------------------------------------------------------------
    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(0.5)
            self._wake.clear()
            try:
                self.tick()
            except Exception:  # a bad tick must not stop the sandbox; the next one tries again
                log.exception("sandbox tick failed")

    def tick(self) -> None:
        """What beat and the worker do, once: send the outbox, close due phases, let robots move."""
        with self._tick_lock:
            for _ in range(20):
                self._dispatch()
                closed = self._sweep()
                moved = self._robots_move()
                if not closed and not moved:
                    break
            self._dispatch()

    def _dispatch(self) -> int:
        """The worker's `lupus.dispatch` / `lupus.sweep_outbox`."""
        assert self.service is not None
        svc = self.service

        def unreachable(identity_id: int, reason: PermanentReason, games: list[int]) -> None:
            tell_hosts_unreachable(svc, identity_id, reason.value, games)

        report = deliver(
            svc.db,
            self.delivery.senders,
            self.delivery.limiter,
            clock=self.clock,
            lease=self.settings.DISPATCH_LEASE_SECONDS,
            max_attempts=self.settings.OUTBOX_MAX_ATTEMPTS,
            on_unreachable=unreachable,
        )
        if report.refused:  # as the worker does: Telegram would not mute a Ghost
            tell_hosts_mute_refused(svc, report.refused)
        if report.lost:  # as the worker does: a text that will never arrive, told to the hosts
            tell_hosts_lost(svc, report.lost)
        if report.soonest() is not None:
            self._wake.set()  # held back by a rate limit: try again on the next turn
        return int(report.sent)

    def _sweep(self) -> int:
        """The worker's `lupus.sweep_deadlines` and `lupus.reminders`."""
        assert self.service is not None
        closed = sum(self.service.close_phase(g, n) for g, n in self.service.due_games())
        remind(self.service)
        return closed

    def _robots_move(self) -> int:
        assert self.service is not None
        with self._lock:
            robots = {(p.channel, p.address): p for p in self.phones.values() if p.robot}
        if not robots:
            return 0
        moves = pending_moves(self.service.db, robots, self.robot_done, self.rnd)
        for who, text in moves:
            self.say(robots[who].name, text)
        return len(moves)

    # -- the controls ------------------------------------------------------------------------------
    def next_deadline(self, code: str | None = None) -> datetime | None:
        """Move the clock just past the deadline of game ``code`` (the only running game when None)
        and let the worker close it; returns that deadline (None when nothing moved: ``advance``
        says why)."""
        return self.advance(code).deadline

    def advance(self, code: str | None = None) -> Advanced:
        """``next_deadline``, with a line saying what it did: which phase closed, what came next,
        and any other game whose deadline the clock passed on the way (the clock is one for all)."""
        assert self.service is not None
        with Session(self.service.db) as s:
            games = list(s.exec(select(Game).order_by(col(Game.id))))
        running = [g for g in games if g.status == GameStatus.RUNNING]
        if code:
            wanted = code.strip().lstrip("#").upper()
            game = next((g for g in games if g.code == wanted), None)
            if game is None:
                return Advanced(f"There is no game #{wanted}.")
        elif not running:
            return Advanced("No game is running: nothing has a deadline. Start one (its host writes start).")
        elif len(running) > 1:
            return Advanced("Several games are running: pick one (" + ", ".join(f"#{g.code}" for g in running) + ").")
        else:
            game = running[0]
        if game.status == GameStatus.LOBBY:
            return Advanced(f"#{game.code} has not started: no deadline yet (its host writes start).")
        if game.status != GameStatus.RUNNING:
            return Advanced(f"#{game.code} is {game.status}: it has no deadline.")
        if game.paused or game.deadline is None:
            return Advanced(f"#{game.code} is paused: no deadline to move to (its host writes resume).")
        when = game.deadline
        before = {g.code: board.phase(g) for g in running}
        start = self.clock.now()
        self.clock.advance_to(when + timedelta(seconds=1))
        self.tick()
        with Session(self.service.db) as s:
            after = {g.code: board.phase(g) for g in s.exec(select(Game).where(col(Game.code).in_(list(before))))}
        moved = duration_words(max(timedelta(), when - start))
        line = (
            f"The clock jumped {moved}, to {deadline_text(when, game.timezone, 'en')}: #{game.code}"
            f" {before[game.code]} closed, now {after.get(game.code, '?')}."
        )
        also = [
            f"#{c} {before[c]} closed, now {after[c]}" for c in before if c != game.code and after.get(c) != before[c]
        ]
        if also:
            line += " Also past its deadline on the way: " + "; ".join(also) + "."
        return Advanced(line, when)

    def add_phone(self, name: str | None = None, channel: str = "telegram", robot: bool = False) -> Phone:
        with self._lock:
            taken = {n.lower() for n in self.phones}
            if name is None:
                name = next((n for n in NAMES if n.lower() not in taken), f"P{len(self.phones) + 1}")
            name = name.strip()
            if channel not in ("telegram", "sms"):
                raise ValueError("A phone is on Telegram or on SMS.")
            if not name or name.lower() in taken:
                raise ValueError(
                    f"There is a phone called {name} already: pick another name."
                    if name
                    else "Give the phone a name, or leave the box empty for one of ours."
                )
            n = len(self.phones) + 1
            address = str(100000 + n) if channel == "telegram" else f"+39333{n:07d}"
            phone = Phone(name, channel, address, robot)
            self.phones[name] = phone
            return phone

    def say(self, name: str, text: str) -> int:
        """`name` writes `text` to the bot, as his phone would send it (a long Telegram message in
        several, an SMS over 1,600 characters refused: ``ValueError``); returns the HTTP status the
        web app answered (the worst, for several messages)."""
        phone = self.phones[name]
        if phone.channel == "sms" and len(text) > SMS_MAX:
            raise ValueError(f"Too long for an SMS: at most {SMS_MAX:,} characters, this one has {len(text):,}.")
        status = 0
        for part in cut(text, TELEGRAM_MAX) if phone.channel == "telegram" else [text]:
            status = max(status, self._send(phone, part))
        self.flush()
        return status

    def _send(self, phone: Phone, text: str) -> int:
        with self._lock:
            phone.said.append((self._inbox_mark(phone), text))
        if phone.channel == "telegram":
            update = inbound.text_update(phone.user(), text, message_id=next(self._ids))
            return self.telegram.deliver(update)
        form = inbound.incoming_sms(self.twilio.account_sid, phone.address, FROM_NUMBER, text)
        # The carrier's side of STOP and START, as Twilio keeps it: texts to an opted-out number fail.
        word = keyword(form)
        if word == "stop":
            self.twilio.opt_out(phone.address)
        elif word == "start":
            self.twilio.opt_in(phone.address)
        url = self.settings.PUBLIC_URL + "/sms/twilio"
        return self.http.post(
            self.web_url + "/sms/twilio", data=form, headers=inbound.signed(self.twilio.auth_token, url, form)
        ).status_code

    def tap(self, name: str, message_id: int, data: str) -> int:
        """`name` taps the inline button carrying `data` under the bot's message `message_id`."""
        phone = self.phones[name]
        if phone.channel != "telegram":
            raise ValueError("Only Telegram phones have buttons.")
        message = next((m for m in self.telegram.messages(int(phone.address)) if m["message_id"] == message_id), None)
        if message is None:
            raise ValueError(f"{name}'s phone has no message {message_id}.")
        label = next(
            (
                b.get("text", data)
                for row in message.get("reply_markup", {}).get("inline_keyboard", [])
                for b in row
                if b.get("callback_data") == data
            ),
            None,
        )
        if label is None:
            raise ValueError("That button is no longer under the message.")
        with self._lock:
            phone.said.append((self._inbox_mark(phone), f"[{label}]"))
        status = self.telegram.deliver(inbound.callback_update(phone.user(), data, message))
        self.flush()
        return status

    def flush(self) -> None:
        """Send what is in the outbox now, so a reply shows before the next thing anyone writes."""
        with self._tick_lock:
            self._dispatch()
        self._wake.set()  # and let the worker's turn see what else is due

    # -- what the page shows -----------------------------------------------------------------------
    def _inbox(self, phone: Phone) -> list[dict[str, Any]]:
        if phone.channel == "telegram":
            return self.telegram.messages(int(phone.address))
        return self.twilio.messages(to=phone.address)

    def _inbox_mark(self, phone: Phone) -> int:
        inbox = self._inbox(phone)
        if phone.channel == "telegram":
            return max((m["message_id"] for m in inbox), default=0)
        return len(inbox)

    def timeline(self, phone: Phone) -> list[dict[str, Any]]:
        """His chat as his phone shows it: the bot's messages and his own, in order."""
        return timeline(phone, self._inbox(phone))

    def games(self) -> list[dict[str, Any]]:
        assert self.service is not None
        return board.games(self.service.db, self._phone_names())

    def failures(self) -> list[dict[str, Any]]:
        """What the worker gave up sending (failed outbox rows), newest first, and to whom."""
        assert self.service is not None
        return board.failures(self.service.db, self._phone_names())

    def _phone_names(self) -> dict[tuple[str, str], str]:
        with self._lock:
            return {(p.channel, p.address): p.name for p in self.phones.values()}

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            phones = list(self.phones.values())
        games = self.games()
        where = seated(games)
        return {
            "now": self.clock.now().isoformat(),
            # In the zone of the game listed first (the phones write times in their game's zone).
            "clock": clock_text(
                self.clock.now(), self.clock.offset, games[0]["timezone"] if games else self.settings.DEFAULT_TIMEZONE
            ),
            "games": games,
            "failures": self.failures(),
            "phones": [
                {
                    "name": p.name,
                    "channel": p.channel,
                    "address": p.address,
                    "robot": p.robot,
                    "game": where.get(p.name, (None, False))[0],
                    "dead": where.get(p.name, (None, False))[1],
                    "messages": self.timeline(p),
                }
                for p in phones
            ],
        }


@dataclass(frozen=True)
class Advanced:
    """What "next deadline" did, in a line for the page; ``deadline``: the one passed (None: none)."""

    line: str
    deadline: datetime | None = None


def _sandbox_db(url: str) -> Engine:
    """The service's engine; on SQLite without waiting for the disk at each commit (a sandbox's
    games are worth less than the seconds a click would otherwise take on a slow disk)."""
    db = make_engine(url)
    if is_sqlite(url):

        @event.listens_for(db, "connect")
        def _fast(dbapi_conn: Any, _record: Any) -> None:
            dbapi_conn.execute("PRAGMA synchronous=OFF")

    return db


def _make_delivery(cfg: Settings) -> Any:
    from service.delivery.limiter import Rate, Rule
    from service.delivery.wiring import make_delivery, make_policy

    # The stand-ins take any rate: every channel's every kind of chat, fast.
    fast = [Rule("channel", Rate(10_000, 1.0, burst=10_000))]
    return make_delivery(cfg, policy={key: fast for key in make_policy(cfg)})
