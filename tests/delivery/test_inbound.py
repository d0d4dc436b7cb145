"""Inbound payloads as Telegram and Twilio send them: PTB parses the updates, Twilio's own validator
accepts the signatures over real HTTP, and a wrong URL or a changed parameter does not."""

from __future__ import annotations

import httpx
from fastapi import FastAPI, Request
from fastapi.responses import PlainTextResponse
from telegram import Bot, Update
from twilio.request_validator import RequestValidator

from service.channels.sms.sender import TwilioSender
from service.sandbox import inbound
from service.sandbox.server import ServerThread

from .conftest import TOKEN


def test_updates_parse_in_python_telegram_bot(fake_telegram):
    alice = inbound.telegram_user(11, "Alice", username="alice")
    start = Update.de_json(inbound.text_update(alice, "/start JOIN42"), Bot(TOKEN))
    user, chat, message = start.effective_user, start.effective_chat, start.message
    assert user is not None and chat is not None and message is not None
    assert user.id == 11 and chat.type == "private"
    assert message.text == "/start JOIN42" and message.entities[0].type == "bot_command"
    group = inbound.telegram_chat(-500, "Villaggio")
    said = Update.de_json(inbound.text_update(alice, "vote bob", chat=group, message_id=9), Bot(TOKEN))
    assert said.effective_chat is not None
    assert said.effective_chat.id == -500 and said.effective_chat.title == "Villaggio"
    bot_message = {
        "message_id": 3,
        "date": 0,
        "chat": inbound.telegram_chat(alice),
        "from": fake_telegram.me,
        "text": "Vote?",
        "reply_markup": {"inline_keyboard": [[{"text": "Bob", "callback_data": "v:2"}]]},
    }
    tap = Update.de_json(inbound.callback_update(alice, "v:2", bot_message), Bot(TOKEN))
    assert tap.callback_query is not None and tap.callback_query.message is not None
    assert tap.callback_query.data == "v:2" and tap.callback_query.message.message_id == 3
    assert start.update_id != said.update_id


def test_twilio_posts_are_signed_as_twilio_signs_them(fake_twilio):
    seen: list[tuple[str, dict[str, str], bool]] = []
    public = "https://lupus.example"  # what Twilio was told; the request itself arrives on 127.0.0.1

    app = FastAPI()

    @app.post("/sms/twilio")
    @app.post("/sms/twilio/status")
    async def hook(request: Request) -> PlainTextResponse:
        form = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
        url = public + request.url.path + (f"?{request.url.query}" if request.url.query else "")
        ok = RequestValidator(fake_twilio.auth_token).validate(url, form, request.headers["X-Twilio-Signature"])
        seen.append((request.url.path, form, ok))
        return PlainTextResponse("<Response/>", 200 if ok else 403)

    with ServerThread(app) as url:
        sms = inbound.incoming_sms(fake_twilio.account_sid, "+393330000001", "+15005550006", "JOIN 42 Anna")
        headers = inbound.signed(fake_twilio.auth_token, public + "/sms/twilio", sms)
        assert httpx.post(url + "/sms/twilio", data=sms, headers=headers).status_code == 200
        forged = {**sms, "Body": "JOIN 42 Mallory"}
        assert httpx.post(url + "/sms/twilio", data=forged, headers=headers).status_code == 403
        wrong_url = inbound.signed(fake_twilio.auth_token, "http://lupus.example/sms/twilio", sms)
        assert httpx.post(url + "/sms/twilio", data=sms, headers=wrong_url).status_code == 403

        sender = TwilioSender(
            fake_twilio.account_sid,
            fake_twilio.auth_token,
            from_number="+15005550006",
            api_url=fake_twilio.url,
            status_callback=public + "/sms/twilio/status",
        )
        assert sender.send("+393330000001", "Benvenuta", dedup_key="out:5").ok
        sender.close()
        [message] = fake_twilio.messages()
        callback_url = message["status_callback"]
        form = inbound.status_callback(message, "delivered")
        headers = inbound.signed(fake_twilio.auth_token, callback_url, form)
        path_and_query = callback_url.removeprefix(public)
        assert httpx.post(url + path_and_query, data=form, headers=headers).status_code == 200
    assert [ok for _, _, ok in seen] == [True, False, False, True]
    assert seen[-1][1]["MessageStatus"] == "delivered" and seen[-1][1]["MessageSid"] == message["sid"]
