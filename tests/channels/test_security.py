"""Forged, replayed, malformed and oversized requests each get their 4xx and change nothing."""

from __future__ import annotations

import json
from typing import Any

import httpx

from service.sandbox import inbound

from .conftest import PUBLIC_URL, SECRET, Stack, sms_player, tg_player


def _post(stack: Stack, path: str, body: bytes | str, headers: dict[str, str]) -> httpx.Response:
    return stack.http.post(stack.url + path, content=body, headers=headers)


def test_bad_telegram_requests_get_their_4xx_and_change_nothing(stack: Stack) -> None:
    ann = tg_player(stack, "Ann")
    ann.say("new")  # a game and an identity exist, so "nothing changed" has something to compare
    before = stack.snapshot()
    update = inbound.text_update(ann.user, "new")
    body = json.dumps(update)
    json_headers = inbound.telegram_headers(SECRET)
    cases = [
        ("no secret", body, inbound.telegram_headers(None), 403),
        ("forged secret", body, inbound.telegram_headers("not-the-secret"), 403),
        ("secret with a suffix", body, inbound.telegram_headers(SECRET + "x"), 403),
        ("malformed JSON", "{not json", json_headers, 400),
        ("JSON but not an object", "[1, 2]", json_headers, 400),
        ("no update_id", json.dumps({"message": update["message"]}), json_headers, 400),
        ("update_id a string", json.dumps({**update, "update_id": "7"}), json_headers, 400),
        ("message not an object", json.dumps({"update_id": 5, "message": "hi"}), json_headers, 400),
        ("wrong content type", body, {**json_headers, "Content-Type": "text/plain"}, 415),
        ("a form instead of JSON", "a=b", {**json_headers, "Content-Type": "application/x-www-form-urlencoded"}, 415),
        ("1 MB body", json.dumps({**update, "pad": "x" * 1_000_000}), json_headers, 413),
    ]
    for what, payload, headers, status in cases:
        r = _post(stack, "/telegram/webhook", payload, headers)
        assert r.status_code == status, (what, r.status_code, r.text)
    assert stack.snapshot() == before
    # A forged request that would otherwise have acted: still nothing stored.
    assert stack.post_update(inbound.text_update(ann.user, "new"), secret="forged").status_code == 403
    assert stack.snapshot() == before


def test_a_replayed_update_is_acted_on_once(stack: Stack) -> None:
    ann = tg_player(stack, "Ann")
    update = inbound.text_update(ann.user, "new")
    assert stack.post_update(update).status_code == 200
    after_first = stack.snapshot()
    assert len(after_first["games"]) == 1
    for _ in range(2):
        assert stack.post_update(update).status_code == 200  # Telegram must not retry it again
    assert stack.snapshot() == after_first
    # Updates may come out of order: an older update_id is still acted on, once.
    older = inbound.text_update(ann.user, "games", update_id=update["update_id"] - 50)
    assert stack.post_update(older).status_code == 200
    assert len(stack.snapshot()["inbound"]) == 2


def test_bad_twilio_requests_get_their_4xx_and_change_nothing(stack: Stack) -> None:
    bob = sms_player(stack)
    bob.say("new")
    before = stack.snapshot()
    form = inbound.incoming_sms(stack.tw.account_sid, bob.number, "+15005550006", "new")
    good = inbound.signed(stack.tw.auth_token, PUBLIC_URL + "/sms/twilio", form)
    encoded = httpx.QueryParams(form).__str__()
    own_url = inbound.signed(stack.tw.auth_token, stack.url + "/sms/twilio", form)  # the proxy's URL: wrong
    other_form = {**form, "Body": "end yes"}
    cases: list[tuple[str, bytes | str, dict[str, str], int]] = [
        ("no signature", encoded, {"Content-Type": good["Content-Type"]}, 403),
        ("forged signature", encoded, {**good, "X-Twilio-Signature": "AAAA" + good["X-Twilio-Signature"][4:]}, 403),
        ("signed with another token", encoded, inbound.signed("other-token", PUBLIC_URL + "/sms/twilio", form), 403),
        ("signed for the request's own URL", encoded, own_url, 403),
        ("body changed after signing", httpx.QueryParams(other_form).__str__(), good, 403),
        ("a parameter added", encoded + "&Extra=1", good, 403),
        ("JSON instead of a form", json.dumps(form), {**good, "Content-Type": "application/json"}, 415),
        ("1 MB body", encoded + "&Pad=" + "x" * 1_000_000, good, 413),
        ("not UTF-8", b"Body=\xff\xfe", good, 400),
    ]
    for what, payload, headers, status in cases:
        r = _post(stack, "/sms/twilio", payload, headers)
        assert r.status_code == status, (what, r.status_code, r.text)
    # Signed, but not an incoming message, for another account, or with a MessageSid or sender longer
    # than Twilio's (schemathesis: a 129-character MessageSid was a 500).
    for bad in (
        {k: v for k, v in form.items() if k != "MessageSid"},
        {**form, "AccountSid": "AC" + "1" * 32},
        {**form, "MessageSid": "0" * 129},
        {**form, "From": "+" + "1" * 200},
    ):
        r = stack.post_sms(bad)
        assert r.status_code in (400, 403), r.text
    # The status route is signed too.
    r = _post(
        stack,
        "/sms/twilio/status?key=x",
        "MessageSid=SM1&MessageStatus=failed",
        {"Content-Type": "application/x-www-form-urlencoded", "X-Twilio-Signature": "forged"},
    )
    assert r.status_code == 403
    assert stack.snapshot() == before


def test_a_replayed_message_sid_is_acted_on_once(stack: Stack) -> None:
    bob = sms_player(stack)
    form = inbound.incoming_sms(stack.tw.account_sid, bob.number, "+15005550006", "new")
    r = stack.post_sms(form)
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/xml") and "<Response/>" in r.text
    after = stack.snapshot()
    assert stack.post_sms(form).status_code == 200
    assert stack.snapshot() == after


def test_unknown_routes_and_methods(stack: Stack) -> None:
    before = stack.snapshot()
    for method, path, status in [
        ("GET", "/telegram/webhook", 405),
        ("PUT", "/sms/twilio", 405),
        ("GET", "/nowhere", 404),
        ("POST", "/", 405),
        ("POST", "/telegram/webhook/../admin", 404),
        ("DELETE", "/healthz", 405),
        ("GET", "/sms/twilio/status", 405),
        ("POST", "/telegram", 404),
    ]:
        assert stack.http.request(method, stack.url + path).status_code == status, (method, path)
    assert stack.snapshot() == before


GARBAGE_UPDATES: list[dict[str, Any]] = [
    {"update_id": 1, "message": {"chat": 5}},
    {"update_id": 2, "callback_query": {}},
    {"update_id": 3, "message": {"message_id": 1, "date": "x", "chat": {"id": 1, "type": "private"}, "text": "hi"}},
    {"update_id": 4, "message": {"message_id": 1, "date": 0, "chat": {"id": "x"}, "text": 5}},
    {
        "update_id": 5,
        "message": {"message_id": 1, "date": 0, "chat": {"id": 1, "type": "private"}, "from": {"id": 1}, "text": "new"},
    },
    {
        "update_id": 6,
        "callback_query": {
            "id": "1",
            "from": {"id": 2, "is_bot": False, "first_name": "A"},
            "chat_instance": "1",
            "data": None,
        },
    },
    {"update_id": 7, "message": None},
    {"update_id": 8, "message": []},
    {"update_id": 9, "edited_message": {"message_id": 1}},
    {
        "update_id": 10,
        "message": {
            "message_id": 1,
            "date": 0,
            "text": "new",
            "chat": {"id": 3, "type": "private"},
            "from": {"id": 3, "is_bot": True, "first_name": "Bot"},
        },
    },
]


def test_garbage_updates_are_4xx_or_ignored_never_5xx(stack: Stack) -> None:
    """Whatever JSON arrives with the right secret: a clean 400, or 200 for an update we ignore,
    and nothing acted on (the bot's own messages, edits, shapes Telegram never sends)."""
    before = stack.snapshot()
    for update in GARBAGE_UPDATES:
        r = stack.post_update(update)
        assert r.status_code in (200, 400), (update, r.status_code, r.text)
    assert stack.snapshot()["games"] == before["games"]
    assert stack.snapshot()["outbox"] == before["outbox"]
