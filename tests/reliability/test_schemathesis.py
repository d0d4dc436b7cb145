"""schemathesis over the app's OpenAPI description (each channel's webhook routes say what they
take): no 5xx on any request it generates, whether the request carries the right Telegram secret /
Twilio signature (so it gets past the gate into the service) or whatever header it made up.

The app serves no description; ``create_app(...).openapi()`` builds the one its routes declare.
50 requests per operation by default (two real 5xx were found so: a
Telegram date past time_t (OverflowError or OSError), and NUL bytes in Twilio's fields); 3,000 in the ``slow`` suite.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.core.result import Ok

from service import web
from service.game.app import Service
from service.sandbox import inbound
from tests.service.conftest import Clock

from .test_fuzz_channels import AUTH, PUBLIC, SECRET, SID, fuzz_settings


def _sign(case: Any) -> None:
    """Make the request authentic: the webhook's secret, or Twilio's signature over what is sent."""
    path = case.formatted_path
    if path == "/telegram/webhook":
        case.headers = {**(case.headers or {}), "X-Telegram-Bot-Api-Secret-Token": SECRET}
        return
    if path.startswith("/sms/"):
        form = {str(k): str(v) for k, v in dict(case.body or {}).items()} if isinstance(case.body, dict) else {}
        form["AccountSid"] = SID
        case.body = form
        url = PUBLIC + path + ("?" + urlencode(case.query) if case.query else "")
        case.headers = {**(case.headers or {}), **inbound.signed(AUTH, url, form)}


def _run(pg: Any, examples: int) -> None:
    cfg = fuzz_settings(str(pg.url))
    app = web.create_app(cfg, Service(cfg, pg, clock=Clock()))
    schema = schemathesis.openapi.from_dict(app.openapi())
    schema.app = app
    results = list(schema.get_all_operations())
    assert all(isinstance(r, Ok) for r in results), results  # every operation of the schema loads
    operations = [r.ok() for r in results if isinstance(r, Ok)]
    assert {op.path for op in operations} >= {"/telegram/webhook", "/sms/twilio", "/sms/twilio/status"}
    # One client for every request (``case.call()`` would start the app anew for each).
    with TestClient(app, base_url=PUBLIC) as client:
        for op in operations:

            @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
            @given(case=op.as_strategy(), authentic=st.booleans())
            def call(case: Any, authentic: bool) -> None:
                if authentic:
                    _sign(case)
                kwargs = case.as_transport_kwargs(base_url=PUBLIC)
                if not kwargs.get("cookies"):
                    kwargs.pop("cookies", None)
                response = client.request(**kwargs)
                assert response.status_code < 500, (kwargs, response.text[:500])

            call()


def test_no_5xx_on_what_schemathesis_generates(pg: Any) -> None:
    _run(pg, 50)


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_no_5xx_on_3000_requests_per_operation(pg: Any) -> None:
    _run(pg, 3000)
