"""Every refusal of the sandbox page's own API is a sentence a person reads: what is wrong and what
to do, never a validator's field path ("code: String should have at least 1 character")."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from service.sandbox.world import Sandbox

# What a validator or a framework says, which nobody playing should read.
JARGON = re.compile(
    r"String should|Input should|Field required|field required|value_error|\bbody\.|"
    r"Not Found|Method Not Allowed|Internal Server Error|JSON decode|^\w+: ",
    re.I,
)


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with Sandbox(tmp_path_factory.mktemp("refusals"), seed=2) as sb:
        sb.add_phone("Ann", "telegram")
        sb.add_phone("Bob", "sms")
        sb.say("Ann", "new")
        yield sb


def _refused(sandbox: Sandbox, path: str, body: Any = None, raw: str | None = None) -> tuple[int, str]:
    with httpx.Client(base_url=sandbox.url, timeout=30) as http:
        if raw is not None:
            r = http.post(path, content=raw, headers={"Content-Type": "application/json"})
        else:
            r = http.post(path, json=body)
    assert r.status_code >= 400, (path, body, r.text)
    detail = r.json()["detail"]
    assert isinstance(detail, str)
    return r.status_code, detail


def test_an_empty_game_code_asks_for_a_game(sandbox: Sandbox) -> None:
    assert _refused(sandbox, "/api/robots", {"code": "", "count": 2}) == (
        422,
        "Pick a game first: robots join a game in its lobby.",
    )
    assert _refused(sandbox, "/api/robots", {"code": "   ", "count": 2})[1] == (
        "Pick a game first: robots join a game in its lobby."
    )


@pytest.mark.parametrize(
    ("path", "body", "said"),
    [
        ("/api/robots", {"count": 2}, "Pick a game first: robots join a game in its lobby."),
        ("/api/robots", {"code": "ABCDEFGHIJ"}, "There is no game #ABCDEFGHIJ."),
        ("/api/robots", {"code": "ZZZZ", "count": 2}, "There is no game #ZZZZ."),
        ("/api/robots", {"code": "ZZZZ", "count": 0}, "Robots join 1 to 24 at a time."),
        ("/api/robots", {"code": "ZZZZ", "count": 99}, "Robots join 1 to 24 at a time."),
        ("/api/robots", {"code": "ZZZZ", "count": "many"}, "Robots join 1 to 24 at a time."),
        ("/api/phones", {"name": "x" * 40}, "A phone's name has at most 20 characters."),
        ("/api/phones", {"name": "Ann"}, "There is a phone called Ann already: pick another name."),
        ("/api/phones", {"name": "Cid", "channel": "fax"}, "A phone is on Telegram or on SMS."),
        ("/api/say", {"text": "hi"}, "Say which phone writes."),
        ("/api/say", {"phone": "Nobody", "text": "hi"}, "There is no phone called Nobody."),
        ("/api/say", {"phone": "Ann", "text": ""}, "Write something first."),
        (
            "/api/say",
            {"phone": "Bob", "text": "x" * 5000},
            "Too long for an SMS: at most 1,600 characters, this one has 5,000.",
        ),
        ("/api/tap", {"phone": "Bob", "message_id": 1, "data": "x"}, "Only Telegram phones have buttons."),
        ("/api/tap", {"phone": "Ann", "message_id": 999, "data": "x"}, "Ann's phone has no message 999."),
        (
            "/api/tap",
            {"phone": "Ann", "message_id": "first", "data": "x"},
            "Tap a button under one of the bot's messages.",
        ),
        ("/api/quick-game", {"size": 3}, "A quick game has 4 to 24 players."),
        ("/api/next-deadline", {"code": 5}, "There is no game by that code."),
    ],
)
def test_each_refusal_is_a_sentence(sandbox: Sandbox, path: str, body: dict[str, Any], said: str) -> None:
    _, detail = _refused(sandbox, path, body)
    assert detail == said
    assert not JARGON.search(detail), detail


def test_a_request_that_is_not_json_is_refused_in_a_sentence(sandbox: Sandbox) -> None:
    _, detail = _refused(sandbox, "/api/say", raw="{not json")
    assert detail == "The page sent something that is not JSON: reload it."


def test_a_button_no_longer_under_its_message_is_said_so(sandbox: Sandbox) -> None:
    ann = sandbox.phones["Ann"]
    message = sandbox.telegram.messages(int(ann.address))[-1]["message_id"]
    _, detail = _refused(sandbox, "/api/tap", {"phone": "Ann", "message_id": message, "data": "nothing"})
    assert detail == "That button is no longer under the message."


def test_an_unknown_api_address_is_refused_in_a_sentence(sandbox: Sandbox) -> None:
    r = httpx.post(sandbox.url + "/api/nothing", json={}, timeout=30)
    assert r.status_code == 404 and r.json() == {"detail": "The sandbox has no /api/nothing."}


def test_a_failure_behind_the_page_is_said_in_a_sentence(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "_send", lambda phone, text: 500)  # the bot's web app failed on it
    _, detail = _refused(sandbox, "/api/say", {"phone": "Ann", "text": "help"})
    assert detail == "The bot failed on that message (HTTP 500): the terminal running lupus up says why."

    def broken() -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(sandbox, "snapshot", broken)
    r = httpx.get(sandbox.url + "/api/state", timeout=30)
    assert r.status_code == 500
    assert r.json() == {"detail": "The sandbox failed (RuntimeError): the terminal running lupus up says why."}
