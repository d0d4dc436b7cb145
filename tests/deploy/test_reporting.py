"""Errors reach Sentry from every process when SENTRY_DSN is set (and nothing happens without it);
counting never fails what it counts; /metrics asks for METRICS_TOKEN when there is one. Sentry's
ingest is a local stand-in that records envelopes; each process runs in a subprocess of its own,
since the SDK is global to a process."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from service.channels.recording import RecordingSender
from service.delivery.senders import SendResult, SendStatus
from service.ops import metrics
from service.sandbox.server import ServerThread
from service.settings import Settings
from service.store.db import upgrade
from service.web import create_app

from .procfile import ROOT
from .test_processes import env

pytestmark = pytest.mark.processes  # starts the real processes: not in the fast lane


class Ingest:
    """What a Sentry server receives: every envelope, as text (events and transactions)."""

    def __init__(self) -> None:
        self.envelopes: list[str] = []
        self._lock = threading.Lock()
        self.app = FastAPI()

        @self.app.post("/api/{project}/envelope/")
        async def envelope(project: str, request: Request) -> JSONResponse:
            body = await request.body()
            if request.headers.get("content-encoding") == "gzip":
                body = gzip.decompress(body)
            elif request.headers.get("content-encoding") == "br":
                import brotli  # type: ignore[import-not-found]

                body = brotli.decompress(body)
            with self._lock:
                self.envelopes.append(body.decode(errors="replace"))
            return JSONResponse({"id": "0" * 32})

    def events(self) -> list[dict[str, Any]]:
        out = []
        with self._lock:
            for envelope in self.envelopes:
                for line in envelope.splitlines():
                    if line.startswith("{") and '"event_id"' in line and '"level"' in line:
                        out.append(json.loads(line))
        return out


@pytest.fixture
def ingest() -> Iterator[tuple[Ingest, str]]:
    sentry = Ingest()
    with ServerThread(sentry.app) as url:
        yield sentry, url.replace("http://", "http://public@") + "/1"


def run(code: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env(**extra), capture_output=True, text=True, timeout=120
    )


def test_a_worker_error_reaches_sentry_tagged_with_its_process(ingest: tuple[Ingest, str]) -> None:
    sentry, dsn = ingest
    done = run(
        "import logging, sentry_sdk\n"
        "from service.settings import get_settings\n"
        "from service.ops.reporting import init_sentry\n"
        "assert init_sentry(get_settings(), 'worker')\n"
        "logging.getLogger('lupus.worker').error('task.failed: lupus.close_phase boom')\n"
        "sentry_sdk.flush(10)\n",
        SENTRY_DSN=dsn,
    )
    assert done.returncode == 0, done.stderr
    events = sentry.events()
    assert any("boom" in json.dumps(e) and e.get("tags", {}).get("process") == "worker" for e in events), (
        sentry.envelopes
    )


def test_a_web_request_that_fails_reaches_sentry_without_its_body(ingest: tuple[Ingest, str]) -> None:
    sentry, dsn = ingest
    done = run(
        "import sentry_sdk\n"
        "from fastapi.testclient import TestClient\n"
        "from service.sandbox import inbound\n"
        "from service.web import create_app\n"
        "client = TestClient(create_app(), raise_server_exceptions=False)\n"
        "update = inbound.text_update(inbound.telegram_user(7, 'Bea'), 'my secret vote')\n"
        "headers = inbound.telegram_headers('webhook-secret-value')\n"
        "r = client.post('/telegram/webhook', json=update, headers=headers)\n"
        "assert r.status_code == 500, r.status_code\n"
        "sentry_sdk.flush(10)\n",
        SENTRY_DSN=dsn,
        TELEGRAM_BOT_TOKEN="1:x",
        TELEGRAM_WEBHOOK_SECRET="webhook-secret-value",
        TELEGRAM_API_URL="http://127.0.0.1:9",
        DATABASE_URL="postgresql://nobody@127.0.0.1:9/none",
    )
    assert done.returncode == 0, done.stderr
    events = sentry.events()
    assert any(e.get("tags", {}).get("process") == "web" for e in events), sentry.envelopes
    # Neither what the player wrote nor the webhook's secret leaves the process.
    assert not any("my secret vote" in envelope for envelope in sentry.envelopes), sentry.envelopes
    assert not any("webhook-secret-value" in envelope for envelope in sentry.envelopes), sentry.envelopes


def test_without_a_dsn_nothing_starts() -> None:
    done = run(
        "import sentry_sdk\n"
        "from service.settings import get_settings\n"
        "from service.ops.reporting import init_sentry\n"
        "from service.web import create_app\n"
        "create_app()\n"
        "assert not init_sentry(get_settings(), 'worker')\n"
        "assert not sentry_sdk.get_client().is_active()\n"
    )
    assert done.returncode == 0, done.stderr


def test_counting_never_fails_the_send_it_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    """A text the platform accepted must be settled as sent even if its counter cannot be written
    (a metrics file removed under a running process): the send's result comes back as it was."""

    def broken(**_: str) -> None:
        raise FileNotFoundError("counter_123.db")

    monkeypatch.setattr(metrics.TEXTS_SENT, "labels", broken)
    sender = metrics.Metered(RecordingSender())
    result = sender.send("42", "hello", dedup_key="k1")
    assert isinstance(result, SendResult) and result.status is SendStatus.SENT
    assert sender.cost("hello") == 1 and sender.channel == "telegram"  # the rest is the sender's own


def test_metrics_ask_for_the_token_when_one_is_set(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'app.db'}"
    upgrade(url)
    settings = Settings(_env_file=None, DATABASE_URL=url, METRICS_TOKEN="scrape-me")  # type: ignore[call-arg]
    with ServerThread(create_app(settings)) as web:
        assert httpx.get(web + "/metrics", timeout=30).status_code == 401
        assert httpx.get(web + "/metrics", headers={"Authorization": "Bearer wrong"}, timeout=30).status_code == 401
        answer = httpx.get(web + "/metrics", headers={"Authorization": "Bearer scrape-me"}, timeout=30)
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/plain")
    assert "lupus_phases_overdue 0.0" in answer.text and 'lupus_outbox_depth{status="pending"} 0.0' in answer.text
