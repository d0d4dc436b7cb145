"""The real TwilioSender (twilio 9) against the stand-in Messages API over real HTTP."""

from __future__ import annotations

import base64
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from twilio.base.exceptions import TwilioRestException

from service.channels.sms.sender import TwilioSender, classify
from service.delivery.senders import Button, PermanentReason, SendStatus

FROM = "+15005550006"
TO = "+393331234567"


@pytest.fixture
def sender(fake_twilio):
    s = TwilioSender(
        fake_twilio.account_sid,
        fake_twilio.auth_token,
        from_number=FROM,
        api_url=fake_twilio.url,
        status_callback="https://lupus.example/sms/twilio/status",
    )
    yield s
    s.close()


def test_a_text_is_sent_from_the_number_in_gsm7(fake_twilio, sender):
    result = sender.send(TO, "È l’alba… vota “Bob”", buttons=[[Button("x", data="y")]], dedup_key="out:7")
    assert result.ok and result.message_id.startswith("SM")
    [msg] = fake_twilio.messages(TO)
    assert msg["body"] == "E' l'alba... vota \"Bob\""
    assert msg["from"] == FROM and msg["encoding"] == "GSM-7" and msg["num_segments"] == "1"
    assert parse_qs(urlsplit(msg["status_callback"]).query) == {"key": ["out:7"]}
    assert sender.cost("È l’alba… " * 20) == 2  # 200 GSM-7 characters once normalised


def test_the_response_looks_like_twilios(fake_twilio, sender):
    sender.send(TO, "ciao", dedup_key="k")
    [call] = fake_twilio.calls()
    assert call.status == 201 and call.path == f"Accounts/{fake_twilio.account_sid}/Messages.json"
    assert call.params == {
        "To": TO,
        "From": FROM,
        "Body": "ciao",
        "StatusCallback": "https://lupus.example/sms/twilio/status?key=k",
    }
    assert {"sid", "status", "num_segments", "date_created", "uri", "api_version"} <= call.response.keys()
    assert call.response["status"] == "queued"
    fetched = sender.client.messages(call.response["sid"]).fetch()
    assert fetched.body == "ciao" and fetched.to == TO


def test_a_messaging_service_can_send_instead_of_a_number(fake_twilio):
    s = TwilioSender(
        fake_twilio.account_sid, fake_twilio.auth_token, messaging_service_sid="MG" + "1" * 32, api_url=fake_twilio.url
    )
    assert s.send(TO, "ciao", dedup_key="k").ok
    assert fake_twilio.messages()[0]["messaging_service_sid"] == "MG" + "1" * 32
    assert s.sender_id == "MG" + "1" * 32
    s.close()


def test_stop_makes_a_number_permanently_opted_out(fake_twilio, sender):
    fake_twilio.opt_out(TO)
    result = sender.send(TO, "ciao", dedup_key="k")
    assert (result.status, result.reason) == (SendStatus.PERMANENT, PermanentReason.OPTED_OUT)
    assert fake_twilio.calls()[0].response["code"] == 21610
    fake_twilio.opt_in(TO)
    assert sender.send(TO, "ciao", dedup_key="k").ok


def test_an_invalid_number_is_not_found_and_a_long_body_rejected(sender):
    assert sender.send("3331234567", "x", dedup_key="k").reason is PermanentReason.NOT_FOUND
    assert sender.send(TO, "x" * 1700, dedup_key="k").reason is PermanentReason.REJECTED


def test_rate_limited_and_unreachable_are_retried(fake_twilio, sender):
    fake_twilio.max_per_second = 1
    assert sender.send(TO, "1", dedup_key="a").ok
    limited = sender.send(TO, "2", dedup_key="b")
    assert limited.status is SendStatus.RETRY_AFTER and limited.retry_after == 1.0
    down = TwilioSender("AC" + "0" * 32, "t", from_number=FROM, api_url="http://127.0.0.1:9", timeout=2)
    assert down.send(TO, "x", dedup_key="k").status is SendStatus.TRANSIENT


def test_wrong_credentials_are_the_deployments_fault_not_the_players(fake_twilio):
    s = TwilioSender(fake_twilio.account_sid, "wrong", from_number=FROM, api_url=fake_twilio.url)
    result = s.send(TO, "x", dedup_key="k")
    assert result.status is SendStatus.TRANSIENT and "20003" in (result.error or "")


def test_the_stand_in_checks_basic_auth_itself(fake_twilio):
    url = f"{fake_twilio.url}/2010-04-01/Accounts/{fake_twilio.account_sid}/Messages.json"
    assert httpx.post(url, data={"To": TO, "From": FROM, "Body": "x"}).status_code == 401
    good = base64.b64encode(f"{fake_twilio.account_sid}:{fake_twilio.auth_token}".encode()).decode()
    headers = {"Authorization": "Basic " + good}
    r = httpx.post(url, data={"To": TO, "From": "+19999999999", "Body": "x"}, headers=headers)
    assert r.status_code == 400 and r.json()["code"] == 21606


def test_classify_twilio_errors():
    def err(status, code):
        return TwilioRestException(status, "/x", "m", code)

    assert classify(err(400, 21610)).reason is PermanentReason.OPTED_OUT
    assert classify(err(400, 21614)).reason is PermanentReason.NOT_FOUND
    assert classify(err(429, 20429)).status is SendStatus.RETRY_AFTER
    assert classify(err(503, None)).status is SendStatus.TRANSIENT
    assert classify(err(400, 21617)).reason is PermanentReason.REJECTED
