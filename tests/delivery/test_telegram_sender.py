"""The real TelegramSender (python-telegram-bot 22) against the stand-in Bot API over real HTTP."""

from __future__ import annotations

import multiprocessing
import threading

import pytest
from telegram.error import BadRequest, ChatMigrated, Forbidden, InvalidToken, NetworkError, RetryAfter, TimedOut

from service.channels.telegram.sender import TelegramSender, bot_base_url, chat_id, classify
from service.delivery.loop import BackgroundLoop
from service.delivery.senders import Button, PermanentReason, SendStatus
from service.sandbox.fake_telegram import FakeTelegram, TelegramLimits
from service.sandbox.server import ServerThread

from .conftest import TOKEN


@pytest.fixture
def sender(fake_telegram):
    s = TelegramSender(TOKEN, api_url=fake_telegram.url)
    yield s
    s.close()


def test_base_url_is_built_as_ptb_expects():
    assert bot_base_url("http://127.0.0.1:8081") == "http://127.0.0.1:8081/bot"
    assert bot_base_url("https://api.telegram.org/bot/") == "https://api.telegram.org/bot"
    assert chat_id("-1001234") == -1001234 and chat_id("@lupus") == "@lupus"
    assert TelegramSender("123456:abc").bot_id == "123456"


def test_a_message_with_buttons_reaches_the_chat(fake_telegram, sender):
    keyboard = [[Button("Alice", data="vote:1"), Button("Bob", data="vote:2")], [Button("Rules", url="https://x.y/")]]
    result = sender.send("42", "Chi vuoi votare?", buttons=keyboard, dedup_key="out:1")
    assert result.status is SendStatus.SENT and result.message_id == "1"
    [msg] = fake_telegram.sent(42)
    assert msg["text"] == "Chi vuoi votare?"
    assert msg["reply_markup"] == {
        "inline_keyboard": [
            [{"text": "Alice", "callback_data": "vote:1"}, {"text": "Bob", "callback_data": "vote:2"}],
            [{"text": "Rules", "url": "https://x.y/"}],
        ]
    }
    # The URL PTB used: base_url + token + "/" + method, and getMe once, at initialization.
    assert [c.method for c in fake_telegram.calls()] == ["getMe", "sendMessage"]


def test_one_bot_per_process_reused_for_every_send(fake_telegram, sender):
    for i in range(5):
        assert sender.send(str(100 + i), f"m{i}", dedup_key=f"k{i}").ok
    assert len(fake_telegram.calls("getMe")) == 1
    bot = sender.bot
    assert sender.bot is bot


def test_429_becomes_retry_after(fake_telegram, sender):
    fake_telegram.force_retry_after(7)
    result = sender.send("42", "hi", dedup_key="k")
    assert result.status is SendStatus.RETRY_AFTER and result.retry_after == 7
    body = fake_telegram.calls("sendMessage")[0].response
    assert body == {
        "ok": False,
        "error_code": 429,
        "description": "Too Many Requests: retry after 7",
        "parameters": {"retry_after": 7},
    }
    assert sender.send("42", "hi", dedup_key="k").ok


def test_the_stand_in_enforces_the_private_chat_window():
    fake = FakeTelegram(TOKEN, limits=TelegramLimits(private=[(2, 60.0)]))
    with ServerThread(fake.app) as url:
        s = TelegramSender(TOKEN, api_url=url)
        results = [s.send("5", str(i), dedup_key=str(i)) for i in range(3)]
        s.close()
    assert [r.status for r in results] == [SendStatus.SENT, SendStatus.SENT, SendStatus.RETRY_AFTER]
    assert results[2].retry_after is not None and 59 <= results[2].retry_after <= 60


def test_blocked_never_started_and_missing_chats_are_permanent(fake_telegram, sender):
    fake_telegram.block(43)
    fake_telegram.block(44, "Forbidden: bot can't initiate conversation with a user")
    fake_telegram.strict_chats = True
    fake_telegram.register_chat(43)
    fake_telegram.register_chat(44)
    r43, r44, r45 = (sender.send(str(c), "x", dedup_key=str(c)) for c in (43, 44, 45))
    assert (r43.status, r43.reason) == (SendStatus.PERMANENT, PermanentReason.BLOCKED)
    assert r44.reason is PermanentReason.BLOCKED
    assert (r45.status, r45.reason) == (SendStatus.PERMANENT, PermanentReason.NOT_FOUND)
    assert fake_telegram.sent() == []


def test_a_group_that_became_a_supergroup_is_followed(fake_telegram, sender):
    fake_telegram.migrate(-55, -10055)
    result = sender.send("-55", "Alba", dedup_key="k")
    assert result.ok and result.new_address == "-10055"
    assert [m["text"] for m in fake_telegram.sent(-10055)] == ["Alba"]


def test_too_long_is_rejected_not_retried(sender):
    result = sender.send("42", "x" * 5000, dedup_key="k")
    assert (result.status, result.reason) == (SendStatus.PERMANENT, PermanentReason.REJECTED)


def test_unreachable_server_and_wrong_token_are_transient(fake_telegram):
    down = TelegramSender(TOKEN, api_url="http://127.0.0.1:9", timeout=2)
    assert down.send("42", "x", dedup_key="k").status is SendStatus.TRANSIENT
    wrong = TelegramSender("999:wrong", api_url=fake_telegram.url)
    assert wrong.send("42", "x", dedup_key="k").status is SendStatus.TRANSIENT
    # A later send retries the initialization instead of keeping a broken Bot.
    fake_telegram.token = None
    assert wrong.send("42", "x", dedup_key="k").ok
    down.close()
    wrong.close()


def test_call_runs_other_methods_on_the_same_bot(fake_telegram, sender):
    assert sender.call(lambda b: b.set_webhook("https://example.org/telegram/webhook", secret_token="s3cret"))
    assert fake_telegram.webhook["secret_token"] == "s3cret"
    sender.send("42", "Vote?", buttons=[[Button("Bob", data="v:2")]], dedup_key="k")
    edited = sender.call(lambda b: b.edit_message_text("You voted Bob", chat_id=42, message_id=1))
    assert edited.text == "You voted Bob"
    assert fake_telegram.messages(42)[0]["text"] == "You voted Bob"
    assert "reply_markup" not in fake_telegram.messages(42)[0]


def test_senders_are_safe_from_many_threads(fake_telegram, sender):
    results = []

    def work(i: int) -> None:
        results.append(sender.send(str(1000 + i), "x", dedup_key=str(i)))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r.ok for r in results) and len(fake_telegram.sent()) == 20
    assert len(fake_telegram.calls("getMe")) == 1


def _send_in_child(sender: TelegramSender, queue) -> None:
    queue.put(sender.send("77", "from the child", dedup_key="child").status.value)


def test_a_forked_worker_process_gets_its_own_loop_and_bot(fake_telegram, sender):
    assert sender.send("77", "from the parent", dedup_key="parent").ok
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_send_in_child, args=(sender, queue))
    child.start()
    child.join(20)
    assert queue.get(timeout=1) == "sent"
    assert [m["text"] for m in fake_telegram.sent(77)] == ["from the parent", "from the child"]
    assert len(fake_telegram.calls("getMe")) == 2  # the child initialized its own Bot
    assert sender.send("77", "parent again", dedup_key="p2").ok  # the parent's Bot is untouched


def test_classify_maps_every_ptb_error():
    assert classify(RetryAfter(3)).retry_after == 3
    assert classify(Forbidden("Forbidden: bot was kicked from the group chat")).reason is PermanentReason.BLOCKED
    assert classify(Forbidden("Forbidden: user is deactivated")).reason is PermanentReason.NOT_FOUND
    assert classify(BadRequest("Bad Request: chat not found")).reason is PermanentReason.NOT_FOUND
    assert classify(BadRequest("Bad Request: can't parse entities")).reason is PermanentReason.REJECTED
    assert classify(TimedOut()).status is SendStatus.TRANSIENT
    assert classify(NetworkError("Bad Gateway")).status is SendStatus.TRANSIENT
    assert classify(InvalidToken()).status is SendStatus.TRANSIENT
    assert classify(ChatMigrated(-100)).status is SendStatus.TRANSIENT


def test_background_loop_runs_and_times_out():
    import asyncio

    loop = BackgroundLoop()

    async def answer() -> int:
        return 42

    assert loop.run(answer(), timeout=5) == 42
    with pytest.raises(TimeoutError):
        loop.run(asyncio.sleep(5), timeout=0.05)
    loop.stop()
    assert not loop.alive


def test_the_stand_in_answers_the_methods_a_game_uses(fake_telegram, sender):
    from telegram import ChatPermissions

    assert sender.call(lambda b: b.get_me()).username == "lupus_sandbox_bot"
    assert sender.call(lambda b: b.answer_callback_query("cbq-1", text="Voted"))
    assert sender.call(lambda b: b.get_chat(-200)).type == "group"
    with pytest.raises(BadRequest, match=r"(?i)not enough rights"):
        sender.call(lambda b: b.restrict_chat_member(-200, 9, ChatPermissions(can_send_messages=False)))
    fake_telegram.make_admin(-200)
    member = sender.call(lambda b: b.get_chat_member(-200, fake_telegram.me["id"]))
    assert member.status == "administrator" and member.can_restrict_members
    assert sender.call(lambda b: b.restrict_chat_member(-200, 9, ChatPermissions(can_send_messages=False)))
    assert sender.call(lambda b: b.delete_webhook())
    assert fake_telegram.webhook == {"url": ""}
    [restrict] = [c for c in fake_telegram.calls("restrictChatMember") if c.status == 200]
    assert restrict.params["permissions"]["can_send_messages"] is False
    status, body = fake_telegram.handle("noSuchMethod", {})
    assert (status, body["error_code"]) == (404, 404)
