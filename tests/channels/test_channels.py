"""Telegram as its users expect it and SMS as its users expect it: reaching players privately,
joining, STOP/START/HELP, delivery reports."""

from __future__ import annotations

import re

from sqlmodel import Session, select

from service.sandbox import inbound
from service.store.models import Outbox

from .conftest import PUBLIC_URL, Stack, sms_player, tg_player
from .test_games import GROUP, GROUP_ID


def test_a_player_who_never_opened_the_bot_is_told_in_the_group_and_the_game_waits(stack: Stack) -> None:
    host = tg_player(stack, "Hana")
    host.say("/start")
    host.say("/new", chat=GROUP)
    code = stack.game().code
    shy = tg_player(stack, "Shy")
    stack.tg.block(shy.uid, "Forbidden: bot can't initiate conversation with a user")
    shy.say(f"/join@lupus_sandbox_bot {code}", chat=GROUP)  # joins from the group, never opened the bot
    others = [tg_player(stack, n) for n in ("Ann", "Bob", "Cat", "Dan", "Eve", "Fay")]
    for p in [host, *others]:
        p.say(f"/start {code}")
    stack.deliver()
    group_texts = [m["text"] for m in stack.tg.sent(GROUP_ID)]
    assert any("Shy joined" in t for t in group_texts)
    assert not stack.tg.calls("sendMessage") or all(
        c.params.get("chat_id") not in (shy.uid, str(shy.uid)) for c in stack.tg.calls("sendMessage")
    )
    host.say("/begin", chat=GROUP)
    stack.deliver()
    assert stack.game().status == "lobby"
    last = stack.tg.sent(GROUP_ID)[-1]["text"]
    assert "Shy" in last and "https://t.me/lupus_sandbox_bot" in last
    # He writes in the group again: he is told there how to fix it.
    shy.say("/status", chat=GROUP)
    stack.deliver()
    assert "Shy, I cannot write to you privately" in stack.tg.sent(GROUP_ID)[-1]["text"]
    # He opens the bot: now the game can start, and his secrets reach him privately.
    stack.tg.unblock(shy.uid)
    shy.say("/start")
    host.say("/begin", chat=GROUP)
    stack.deliver()
    assert stack.game().status == "running"
    assert any(t.startswith("Your character:") for t in shy.texts())


def test_telegram_commands_with_slash_suffix_or_plain_and_other_bots_ignored(stack: Stack) -> None:
    ann = tg_player(stack, "Ann")
    ann.say("/new")
    code = stack.game().code
    bob = tg_player(stack, "Bob Marley")
    bob.say(f"/start {code}")  # joins as "Bob" (first word of his first name)
    cat = tg_player(stack, "Cat")
    cat.say(f"join {code} Kitty")  # plain words work too
    stack.deliver()
    assert any("Bob joined" in t for t in ann.texts())
    assert any("Kitty joined" in t for t in ann.texts())
    before = stack.snapshot()
    ann.say("/players@SomeOtherBot", chat=GROUP)  # for another bot in the same group
    ann.say("just chatting in the group", chat=GROUP)  # a group's talk is not for the bot
    assert stack.snapshot()["inbound"] == before["inbound"]
    ann.say("/players@lupus_sandbox_bot", chat=GROUP)
    stack.deliver()
    assert "Kitty" in ann.texts()[-1]


def test_sms_join_numbered_lists_stop_start_help(stack: Stack) -> None:
    host = tg_player(stack, "Hana")
    host.say("/new")
    code = stack.game().code
    sms = [sms_player(stack) for _ in range(8)]
    for p, name in zip(sms, ("Dan", "Eve", "Fay", "Gus", "Ida", "Jo", "Kai", "Lu"), strict=True):
        p.say(f"JOIN {code} {name}")
    nameless = sms_player(stack)
    nameless.say(f"join {code}")  # his number is never used as a name
    stack.deliver()
    assert "NAME" in nameless.texts()[-1]
    dan = sms[0]
    dan.say("STOP")
    assert stack.identity("sms", dan.number).opted_out
    host.say("start")
    stack.deliver()
    assert stack.game().status == "running"
    # Opted out: not texted, but still seated and his moves count.
    assert not any("started" in t.lower() or "card" in t.lower() for t in dan.texts())
    assert "Dan" in (stack.game().setup.get("players") or [])
    # The wolves' choices come as a numbered list (the texts then accept "KILL 3"), in the SMS
    # form of the options text.
    assert any(re.search(r"Reply: kill 1 \w+ 2 \w+", t) for p in sms[1:] for t in p.texts())
    dan.say("HELP")  # still opted out: nothing is texted
    stack.deliver()
    texts_before = len(dan.texts())
    dan.say("START")
    stack.deliver()
    assert not stack.identity("sms", dan.number).opted_out
    assert len(dan.texts()) == texts_before + 1  # the help he asked for, now that he may be texted
    dan.say("HELP")
    stack.deliver()
    assert len(dan.texts()) == texts_before + 2


def test_twilio_delivery_reports_land_on_their_outbox_row(stack: Stack) -> None:
    dan = sms_player(stack)
    dan.say("help")
    stack.deliver()
    message = stack.tw.messages(dan.number)[-1]
    callback = message["status_callback"]
    assert callback.startswith(PUBLIC_URL + "/sms/twilio/status?key=")
    path = callback[len(PUBLIC_URL) :]
    key = callback.split("key=", 1)[1]
    for status in ("sent", "delivered", "sent"):  # a late "sent" does not undo "delivered"
        assert stack.post_sms(inbound.status_callback(message, status), path=path).status_code == 204
    with Session(stack.db) as s:
        row = s.exec(select(Outbox).where(Outbox.dedup_key == key.replace("%3A", ":"))).one()
        assert row.delivery == "delivered"
    # A number the carrier reports as opted out (21610) is treated as having texted STOP.
    form = inbound.status_callback(message, "undelivered", error_code=21610)
    assert stack.post_sms(form, path=path).status_code == 204
    assert stack.identity("sms", dan.number).opted_out
    # The query string is part of what Twilio signs: another key with the same signature is refused.
    headers = inbound.signed(stack.tw.auth_token, PUBLIC_URL + path, form)
    r = stack.http.post(stack.url + "/sms/twilio/status?key=other", data=form, headers=headers)
    assert r.status_code == 403
