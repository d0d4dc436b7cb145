"""`lupus doctor` against a deployment made of local stand-ins: Telegram's and Twilio's, a web app
serving PUBLIC_URL, PostgreSQL and Redis. Healthy, it says so and exits 0; with Telegram posting
updates to another address (or a number whose settings the runbook warns about), it names what is
wrong and exits 1."""

from __future__ import annotations

import contextlib
import re
import socket
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import redis
import sqlalchemy.exc
from sqlalchemy import text

from service.ops.doctor import counted
from service.ops.health import BEAT_LEADER_KEY, beat
from service.ops.postdeploy import DONE
from service.sandbox.fake_telegram import FakeTelegram
from service.sandbox.fake_twilio import FakeTwilio
from service.sandbox.server import ServerThread
from service.settings import Settings
from service.store.db import make_engine
from service.store.models import utcnow
from service.web import create_app
from tests.databases import flushed_redis, no_postgres, redis_url, throwaway_pg

from .procfile import ROOT, procfile
from .test_operating import until
from .test_processes import env, start, stop

pytestmark = pytest.mark.processes  # starts the real processes: not in the fast lane

TOKEN = "123456:TEST-token_doctor"
NUMBER = "+15005550006"


@dataclass
class Deployment:
    env: dict[str, str]
    public: str
    telegram: FakeTelegram
    twilio: FakeTwilio
    db_url: str

    def doctor(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", "-c", "exec lupus doctor " + " ".join(args)],
            cwd=ROOT,
            env=env(**self.env),
            capture_output=True,
            text=True,
            timeout=180,
        )

    def heartbeats(self, age: float = 0.0, roles: tuple[str, ...] = ("worker", "beat"), n: int = 1) -> None:
        db = make_engine(self.db_url)
        try:
            now = utcnow()
            for role in roles:
                beat(db, role, f"{role} test:{n}", now, now - timedelta(seconds=age), ("telegram", "sms"))
        finally:
            db.dispose()
        if "beat" in roles and n == 1:  # it leads, as a standby beat writes beside its lock
            redis.Redis.from_url(self.env["REDIS_URL"]).set(BEAT_LEADER_KEY, "test:1", ex=60)

    def beats(self) -> list[str]:
        db = make_engine(self.db_url)
        try:
            with db.connect() as c:
                return list(c.execute(text("select name from heartbeats where role = 'beat'")).scalars())
        finally:
            db.dispose()

    def setup(self) -> None:
        """The runbook's step: each channel's platform told where the app is."""
        done = subprocess.run(
            ["bash", "-c", "exec lupus setup"],
            cwd=ROOT,
            env=env(**self.env),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture
def deployment() -> Iterator[Deployment]:
    with contextlib.ExitStack() as stack:
        try:
            db_url = stack.enter_context(throwaway_pg("lupus_doctor"))
        except sqlalchemy.exc.OperationalError:
            no_postgres()
        broker = redis_url(14)
        stack.enter_context(flushed_redis(broker))
        telegram, twilio = FakeTelegram(TOKEN), FakeTwilio(numbers=(NUMBER,))
        telegram_url = stack.enter_context(ServerThread(telegram.app))
        twilio_url = stack.enter_context(ServerThread(twilio.app))
        values = {
            "DATABASE_URL": db_url,
            "REDIS_URL": broker,
            "TELEGRAM_BOT_TOKEN": TOKEN,
            "TELEGRAM_WEBHOOK_SECRET": "doctor-secret",
            "TELEGRAM_API_URL": telegram_url,
            "TWILIO_ACCOUNT_SID": twilio.account_sid,
            "TWILIO_AUTH_TOKEN": twilio.auth_token,
            "TWILIO_FROM_NUMBER": NUMBER,
            "TWILIO_API_URL": twilio_url,
        }
        web = ServerThread(create_app(Settings(_env_file=None, **values)))  # type: ignore[arg-type,call-arg]
        public = stack.enter_context(web)
        yield Deployment({**values, "PUBLIC_URL": public}, public, telegram, twilio, db_url)


def test_doctor_says_a_deployment_set_up_as_the_runbook_says_is_well(deployment: Deployment) -> None:
    d = deployment
    # The runbook's step: each channel's platform told where the app is (the webhook registered, the
    # number's incoming texts pointed at it), by one command that names no channel.
    d.twilio.configure_number(NUMBER, sms_url="https://demo.twilio.com/welcome/sms/reply", sms_method="GET")
    setup = subprocess.run(
        ["bash", "-c", "exec lupus setup"], cwd=ROOT, env=env(**d.env), capture_output=True, text=True, timeout=120
    )
    assert setup.returncode == 0, setup.stdout + setup.stderr
    assert f"ok   twilio sms url: incoming texts to {NUMBER} now go to POST {d.public}/sms/twilio" in setup.stdout
    assert f"now posts updates to {d.public}/telegram/webhook" in setup.stdout
    assert d.twilio.phone_numbers[NUMBER]["sms_method"] == "POST"
    d.heartbeats()

    done = d.doctor()
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1] == "all good" and not [line for line in lines if line.startswith("FAIL")], done.stdout
    for says in (
        f"telegram webhook: Telegram posts updates to {d.public}/telegram/webhook",
        f"twilio sms url: incoming texts go to POST {d.public}/sms/twilio",
        "database: reachable and migrated",
        "broker: shared (REDIS_URL) and reachable",
        "worker: 1 process(es)",
        "beat: 1 beat: the one on test:1 schedules;",
        f"public address: {d.public} answers",
    ):
        assert any(line.startswith("ok") and says in line for line in lines), (says, done.stdout)


def test_doctor_names_a_wrong_webhook_and_what_else_the_runbook_warns_about(deployment: Deployment) -> None:
    d = deployment
    wrong = "https://my-lupus.herokuapp.com/telegram/webhook"  # the old runbook's example: another app
    d.telegram.webhook = {
        "url": wrong,
        "pending_update_count": 321,
        "last_error_date": int((datetime.now(UTC) - timedelta(minutes=5)).timestamp()),
        "last_error_message": "Wrong response from the webhook: 403 Forbidden",
    }
    d.twilio.configure_number(
        NUMBER, sms_url=d.public + "/sms/twilio", status_callback=d.public + "/sms/twilio/status"
    )  # the old runbook's step
    d.heartbeats(age=3600)  # the worker and beat stopped an hour ago

    done = d.doctor()
    assert done.returncode == 1, done.stdout + done.stderr
    failed = {
        line.split(":")[0].removeprefix("FAIL").strip(): line
        for line in done.stdout.splitlines()
        if line.startswith("FAIL")
    }
    assert wrong in failed["telegram webhook"] and f"{d.public}/telegram/webhook" in failed["telegram webhook"]
    assert "lupus setup" in failed["telegram webhook"]
    assert "321 update(s)" in failed["telegram pending"]
    assert "403 Forbidden" in failed["telegram last error"]
    assert "remove it" in failed["twilio status url"]
    assert re.search(r"silent \(last seen 36\d\d s ago\)", failed["worker"]) and "beat" in failed, failed
    assert done.stdout.splitlines()[-1] == f"{len(failed)} problem(s)"


def test_doctor_setup_is_what_a_postdeploy_step_can_check(deployment: Deployment) -> None:
    """Before the processes run (Heroku's postdeploy): no heartbeat is asked for, but an address
    nobody set is refused, naming the command that prints the real one."""
    assert deployment.doctor("--setup").returncode == 0
    unset = {**deployment.env, "PUBLIC_URL": ""}
    done = subprocess.run(
        ["bash", "-c", "exec lupus doctor --setup"],
        cwd=ROOT,
        env=env(**unset),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 1, done.stdout
    assert "PUBLIC_URL is http://localhost:8000" in done.stdout and "heroku apps:info -s" in done.stdout
    dyno = {**unset, "HEROKU_APP_DEFAULT_DOMAIN_NAME": "my-lupus-1234567890ab.herokuapp.com"}
    done = subprocess.run(
        ["bash", "-c", "exec lupus doctor --setup"],
        cwd=ROOT,
        env=env(**dyno),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0 and "https://my-lupus-1234567890ab.herokuapp.com" in done.stdout, done.stdout


def test_doctor_passes_after_a_clean_beat_restart_and_takes_a_standby_beat(
    deployment: Deployment, tmp_path: Path
) -> None:
    """Every deploy restarts beat: the one stopped cleanly takes its heartbeat with it, so doctor
    counts the one running. A second beat (one schedules, the other stands by) is not a fault."""
    d = deployment
    d.setup()
    d.heartbeats(roles=("worker",))
    command = procfile()["beat"].replace("/tmp/celerybeat-schedule", str(tmp_path / "beat-schedule"))

    def beat_up(log: Path) -> subprocess.Popen[bytes]:
        proc = start(command, ROOT, log, **d.env, HEARTBEAT_SECONDS="0.5")
        until(lambda: len(d.beats()) == 1, 120, lambda: log.read_text(errors="replace")[-3000:])
        return proc

    first = beat_up(tmp_path / "beat.1.log")
    assert stop(first, tmp_path / "beat.1.log") == 0
    assert d.beats() == [], "a beat stopped cleanly left its heartbeat behind"
    again = beat_up(tmp_path / "beat.2.log")
    try:
        done = d.doctor()
        assert done.returncode == 0, done.stdout + done.stderr
        leader = f"{socket.gethostname()}:{again.pid}"
        assert f"ok   beat: 1 beat: the one on {leader} schedules; last heartbeat" in done.stdout, done.stdout

        d.heartbeats(roles=("beat",), n=2)  # a standby beat
        done = d.doctor()
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"ok   beat: 2 beats: the one on {leader} schedules, one stands by; last heartbeat" in done.stdout, (
            done.stdout
        )
    finally:
        stop(again, tmp_path / "beat.2.log")


def test_postdeploy_does_not_fail_a_new_app_and_says_what_to_do_next(deployment: Deployment) -> None:
    """app.json's postdeploy on a new app, whose address nobody could know yet: the checks, the two
    commands that follow, exit 0 (a failed postdeploy fails the new app). Once the address is
    known, the same step tells each platform where the app is."""
    d = deployment

    def run(*args: str, **given: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", "-c", "exec lupus setup " + " ".join(args)],
            cwd=ROOT,
            env=env(**{**d.env, **given}),
            capture_output=True,
            text=True,
            timeout=180,
        )

    new = run("--postdeploy", PUBLIC_URL="")
    assert new.returncode == 0, new.stdout + new.stderr
    assert "FAIL public address: PUBLIC_URL is http://localhost:8000" in new.stdout, new.stdout
    assert "heroku config:set -a <app> PUBLIC_URL=$(heroku apps:info -a <app> -s" in new.stdout, new.stdout
    assert "  heroku run -a <app> lupus setup\n" in new.stdout and not d.telegram.webhook.get("url"), new.stdout
    plain = run(PUBLIC_URL="")  # by hand, the same address unknown is a refusal
    assert plain.returncode == 2 and plain.stderr.startswith("lupus setup: PUBLIC_URL is not set"), plain.stderr

    known = run("--postdeploy")
    assert known.returncode == 0, known.stdout + known.stderr
    assert f"now posts updates to {d.public}/telegram/webhook" in known.stdout, known.stdout
    assert known.stdout.splitlines()[-1] == DONE


def test_doctor_names_the_beat_that_schedules() -> None:
    """With standby beats, the leader's host and pid (worker.standby writes them beside its lock)."""
    assert counted("beat", 2, "vm:12") == "2 beats: the one on vm:12 schedules, one stands by;"
    assert counted("beat", 3, "vm:12") == "3 beats: the one on vm:12 schedules, 2 stand by;"
    assert counted("beat", 1, "vm:12") == "1 beat: the one on vm:12 schedules;"
    assert counted("beat", 2) == "2 beats: one schedules, one stands by;"
    assert counted("worker", 2, "vm:12") == "2 process(es),"
