"""The webhook reads an update's few fields from its JSON (no python-telegram-bot objects): every
shape the Bot API sends becomes the same command it always did, and shapes it never sends are a 400."""

from __future__ import annotations

from typing import Any

import pytest

from service.channels.base import Incoming, Tap
from service.channels.telegram.inbound import NotAnUpdate, incoming, webhook_answer
from service.channels.telegram.presentation import buttons, read_button
from service.sandbox import inbound

TG = "telegram"
ANN = inbound.telegram_user(11, "Ann Marie")
GROUP = inbound.telegram_chat(-500, "Villaggio")


def _tap(data: Any, chat: dict[str, Any] | None = None) -> dict[str, Any]:
    message = {"message_id": 3, "date": 0, "chat": chat or inbound.telegram_chat(ANN), "text": "Vote?"}
    update = inbound.callback_update(ANN, "x", message, update_id=40)
    update["callback_query"]["data"] = data
    return update


def test_the_fields_a_command_needs_come_from_the_json() -> None:
    it = "it"  # ANN's Telegram is in Italian (from.language_code)
    assert incoming(inbound.text_update(ANN, " vote bob ", update_id=7)) == Incoming(
        TG, "11", "7", "vote bob", "Ann", None, language=it
    )
    assert incoming(inbound.text_update(ANN, "/start AB12", update_id=8)) == Incoming(
        TG, "11", "8", "join AB12", "Ann", None, language=it
    )
    said = incoming(inbound.text_update(ANN, "/vote@lupus_bot bob", chat=GROUP, update_id=9), "lupus_bot")
    assert said == Incoming(TG, "11", "9", "/vote@lupus_bot bob", "Ann", "-500", language=it)
    assert incoming(inbound.text_update(ANN, "/vote@other_bot bob", chat=GROUP, update_id=9), "lupus_bot") is None
    talk = incoming(inbound.text_update(ANN, "hello all", chat=GROUP, update_id=10))
    assert talk == Incoming(TG, "11", "10", "hello all", "Ann", "-500", overheard=True, language=it)
    # A tap: the move as typed with its game, the phase its button was for, the message it is under.
    update = _tap(" #AB12/7 vote 3")
    tap = incoming(update)
    assert tap == Incoming(
        TG,
        "11",
        "40",
        "#AB12 vote 3",
        "Ann",
        None,
        callback_id=update["callback_query"]["id"],
        tap=Tap(7, "11", 3),
        language=it,
    )
    assert incoming(_tap("#AB12/7 vote 3", chat=GROUP)).chat == "-500"  # type: ignore[union-attr]
    # A button made before buttons carried their phase: a tap of no known phase (changes nothing).
    old = incoming(_tap("#AB12 vote bob"))
    assert old is not None and old.tap is not None and (old.text, old.tap.phase) == ("#AB12 vote bob", None)


@pytest.mark.parametrize(
    ("code", "lang"), [("en", "en"), ("es-419", "es"), ("IT", "it"), ("pt-br", None), (None, None), (5, None)]
)
def test_the_language_telegram_names_is_taken_when_it_is_ours(code: Any, lang: str | None) -> None:
    user = dict(ANN, language_code=code)
    if code is None:
        del user["language_code"]
    assert incoming(inbound.text_update(user, "help")).language == lang  # type: ignore[union-attr]


@pytest.mark.parametrize("data", [None, "  ", "hello", "#AB12/7 help", "#AB12/x vote 3", "vote bob", "#AB12/7"])
def test_a_tap_whose_data_is_no_button_of_ours_is_answered_and_does_nothing(data: Any) -> None:
    update = _tap(data)
    tap = incoming(update)
    assert tap is not None and tap.unusable and tap.text == ""
    answer = webhook_answer(tap)
    assert answer["method"] == "answerCallbackQuery"
    assert answer["callback_query_id"] == update["callback_query"]["id"]
    assert answer["text"] == "Questo pulsante non funziona più: scrivi aiuto."  # in his language


def test_a_taps_answer_is_the_first_line_of_its_first_reply_and_fits_telegram() -> None:
    tap = incoming(_tap("#AB12/7 vote 3"))
    assert webhook_answer(tap) == {"method": "answerCallbackQuery", "callback_query_id": tap.callback_id}  # type: ignore[union-attr]
    assert webhook_answer(tap, ["Cat is dead.\nChoose: ...", "more"])["text"] == "Cat is dead."
    long = webhook_answer(tap, ["x" * 500])["text"]
    assert len(long) == 200 and long.endswith("\u2026")
    assert webhook_answer(incoming(inbound.text_update(ANN, "help")), ["Help"]) == {}  # no tap: nothing to answer


def test_a_buttons_data_stays_within_64_bytes_whatever_the_names() -> None:
    names = ["Ŵęŗęŵőłƒ" * 2 + "ĳĳĳĳ", "黒い狼の王様です黒い狼の王様です黒い狼", "bob"]  # 20 characters, up to 60 bytes
    rows = buttons(
        [f"vote {n}" for n in names] + [f"kill {n}:left" for n in names], "ABCDEFGH", "en", phase=123456, seats=names
    )
    data = [b["data"] for row in rows for b in row]
    assert all(len(d.encode()) <= 64 for d in data), data
    assert [read_button(d) for d in data[:3]] == [(f"#ABCDEFGH vote {i}", 123456) for i in (1, 2, 3)]
    assert read_button(data[3]) == ("#ABCDEFGH kill 1:left", 123456)


@pytest.mark.parametrize(
    "update",
    [
        {"update_id": 1, "edited_message": {"message_id": 1}},
        {"update_id": 2, "message": None},
        {"update_id": 3, "message": {"message_id": 1, "date": 0, "chat": {"id": 1, "type": "private"}}},  # a sticker
        {
            "update_id": 4,
            "message": {
                "message_id": 1,
                "date": 0,
                "chat": {"id": 1, "type": "private"},
                "text": {"a": 1},
                "from": ANN,
            },
        },
        {
            "update_id": 5,
            "message": {
                "message_id": 1,
                "date": 0,
                "chat": {"id": 1, "type": "private"},
                "text": "new",
                "from": {"id": 3, "is_bot": True, "first_name": "Bot"},
            },
        },
        {
            "update_id": 6,
            "message": {"message_id": 1, "date": 0, "chat": {"id": 1, "type": "private"}, "text": "  ", "from": ANN},
        },
    ],
)
def test_updates_the_game_does_not_use_are_ignored(update: dict[str, Any]) -> None:
    assert incoming(update) is None


@pytest.mark.parametrize(
    "update",
    [
        {"update_id": 1, "message": "hi"},
        {"update_id": 2, "message": []},
        {"update_id": 3, "message": {"message_id": 1, "text": "new", "from": ANN}},  # no chat
        {
            "update_id": 4,
            "message": {"message_id": 1, "chat": {"id": "1", "type": "private"}, "text": "new", "from": ANN},
        },
        {
            "update_id": 5,
            "message": {"message_id": 1, "chat": {"id": 1, "type": "private"}, "text": "new", "from": {"id": 1}},
        },
        {"update_id": 6, "callback_query": {"id": "1", "from": ANN, "data": 5}},
        {"update_id": 7, "callback_query": {"from": ANN, "data": "x"}},
        {"update_id": 8, "callback_query": {"id": "1", "data": "x"}},
        {"update_id": 9, "callback_query": {"id": "1", "from": ANN, "data": "x", "message": {"chat": 5}}},
    ],
)
def test_shapes_telegram_never_sends_are_refused(update: dict[str, Any]) -> None:
    with pytest.raises(NotAnUpdate):
        incoming(update)
