"""Both stand-ins mounted under prefixes of one server (as the sandbox page will serve them), with
the real senders configured by TELEGRAM_API_URL / TWILIO_API_URL style base URLs; and updates
delivered to the webhook the bot registered, with its secret."""

from __future__ import annotations

import json

from fastapi import FastAPI, Request, Response

from service.channels.sms.sender import TwilioSender
from service.channels.telegram.sender import TelegramSender
from service.sandbox import inbound
from service.sandbox.fake_telegram import FakeTelegram
from service.sandbox.fake_twilio import FakeTwilio
from service.sandbox.server import ServerThread

from .conftest import TOKEN


def test_prefixed_base_urls_and_webhook_delivery():
    telegram, twilio = FakeTelegram(TOKEN), FakeTwilio()
    received: list[tuple[dict, str | None]] = []
    app = FastAPI()
    app.mount("/telegram", telegram.app)
    app.mount("/twilio", twilio.app)

    @app.post("/service/telegram/webhook")
    async def webhook(request: Request) -> Response:
        received.append((json.loads(await request.body()), request.headers.get(inbound.SECRET_HEADER)))
        return Response(status_code=200)

    with ServerThread(app) as url:
        tg = TelegramSender(TOKEN, api_url=url + "/telegram")
        sms = TwilioSender(twilio.account_sid, twilio.auth_token, from_number="+15005550006", api_url=url + "/twilio/")
        assert tg.send("42", "ciao", dedup_key="a").ok
        assert sms.send("+393330000001", "ciao", dedup_key="b").ok
        assert tg.call(lambda b: b.set_webhook(url + "/service/telegram/webhook", secret_token="sekrit"))
        update = inbound.text_update(inbound.telegram_user(42, "Anna"), "/start G7")
        assert telegram.deliver(update) == 200
        tg.close()
        sms.close()
    assert [m["text"] for m in telegram.sent(42)] == ["ciao"]
    assert [m["body"] for m in twilio.messages()] == ["ciao"]
    assert received == [(update, "sekrit")]
