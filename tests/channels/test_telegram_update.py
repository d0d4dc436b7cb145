"""The webhook reads an update's few fields from its JSON (no python-telegram-bot objects): every
shape the Bot API sends becomes the same command it always did, and shapes it never sends are a 400."""

from __future__ import annotations

from typing import Any

import pytest

from service.channels.telegram import Incoming, NotAnUpdate, incoming
from service.sandbox import inbound

ANN = inbound.telegram_user(11, "Ann Marie")
GROUP = inbound.telegram_chat(-500, "Villaggio")


def _tap(data: Any, chat: dict[str, Any] | None = None) -> dict[str, Any]:
    message = {"message_id": 3, "date": 0, "chat": chat or inbound.telegram_chat(ANN), "text": "Vote?"}
    update = inbound.callback_update(ANN, "x", message, update_id=40)
    update["callback_query"]["data"] = data
    return update


def test_the_fields_a_command_needs_come_from_the_json() -> None:
    assert incoming(inbound.text_update(ANN, " vote bob ", update_id=7)) == Incoming("11", "7", "vote bob", "Ann", None)
    assert incoming(inbound.text_update(ANN, "/start AB12", update_id=8)) == Incoming("11", "8", "join AB12", "Ann",
                                                                                        None)
    said = incoming(inbound.text_update(ANN, "/vote@lupus_bot bob", chat=GROUP, update_id=9), "lupus_bot")
    assert said == Incoming("11", "9", "/vote@lupus_bot bob", "Ann", "-500")
    assert incoming(inbound.text_update(ANN, "/vote@other_bot bob", chat=GROUP, update_id=9), "lupus_bot") is None
    talk = incoming(inbound.text_update(ANN, "hello all", chat=GROUP, update_id=10))
    assert talk == Incoming("11", "10", "hello all", "Ann", "-500", overheard=True)
    update = _tap(" #AB12 vote bob")
    tap = incoming(update)
    assert tap == Incoming("11", "40", "#AB12 vote bob", "Ann", None, update["callback_query"]["id"])
    assert incoming(_tap("#AB12 vote bob", chat=GROUP)).chat == "-500"  # type: ignore[union-attr]


@pytest.mark.parametrize("update", [
    {"update_id": 1, "edited_message": {"message_id": 1}},
    {"update_id": 2, "message": None},
    {"update_id": 3, "message": {"message_id": 1, "date": 0, "chat": {"id": 1, "type": "private"}}},  # a sticker
    {"update_id": 4, "message": {"message_id": 1, "date": 0, "chat": {"id": 1, "type": "private"}, "text": {"a": 1},
                                 "from": ANN}},
    {"update_id": 5, "message": {"message_id": 1, "date": 0, "chat": {"id": 1, "type": "private"}, "text": "new",
                                 "from": {"id": 3, "is_bot": True, "first_name": "Bot"}}},
    {"update_id": 6, "message": {"message_id": 1, "date": 0, "chat": {"id": 1, "type": "private"}, "text": "  ",
                                 "from": ANN}},
    _tap(None), _tap("  "),
])
def test_updates_the_game_does_not_use_are_ignored(update: dict[str, Any]) -> None:
    assert incoming(update) is None


@pytest.mark.parametrize("update", [
    {"update_id": 1, "message": "hi"},
    {"update_id": 2, "message": []},
    {"update_id": 3, "message": {"message_id": 1, "text": "new", "from": ANN}},  # no chat
    {"update_id": 4, "message": {"message_id": 1, "chat": {"id": "1", "type": "private"}, "text": "new", "from": ANN}},
    {"update_id": 5, "message": {"message_id": 1, "chat": {"id": 1, "type": "private"}, "text": "new",
                                 "from": {"id": 1}}},
    {"update_id": 6, "callback_query": {"id": "1", "from": ANN, "data": 5}},
    {"update_id": 7, "callback_query": {"from": ANN, "data": "x"}},
    {"update_id": 8, "callback_query": {"id": "1", "data": "x"}},
    {"update_id": 9, "callback_query": {"id": "1", "from": ANN, "data": "x", "message": {"chat": 5}}},
])
def test_shapes_telegram_never_sends_are_refused(update: dict[str, Any]) -> None:
    with pytest.raises(NotAnUpdate):
        incoming(update)
