"""The bot's "/" menu (setMyCommands, registered by ``lupus setup``; see test_app):
every command in it is one the grammar reads, in each language, and the runbook's list for BotFather
is the English one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from service.channels.telegram.presentation import MENU, MENU_WORDS, menu
from service.texts.grammar import parse
from service.texts.i18n import LANGUAGES

ROOT = Path(__file__).resolve().parents[2]
#: Telegram's rule for a command: 1 to 32 of a-z, 0-9 and _; a description of 1 to 256 characters.
COMMAND = re.compile(r"^[a-z0-9_]{1,32}$")


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("scope", sorted(MENU))
def test_every_command_of_the_menu_is_one_the_bot_reads(lang: str, scope: str) -> None:
    items = menu(lang, scope)
    assert len(items) == len(MENU[scope]) and len({c for c, _ in items}) == len(items)
    for (command, description), meant in zip(items, MENU[scope], strict=True):
        assert COMMAND.match(command) and 0 < len(description) <= 256, (command, description)
        assert not description.startswith("tg.menu."), description  # a text, in every language
        assert parse(f"/{command}").verb == ("start" if meant == "begin" else meant), (lang, command)
        assert parse(f"/{command}@lupus_bot").verb == parse(f"/{command}").verb


def test_the_menus_differ_by_language() -> None:
    assert len({tuple(menu(lang, "private")) for lang in LANGUAGES}) == len(LANGUAGES)
    assert set(MENU_WORDS) == set(LANGUAGES)


def test_the_runbook_lists_the_english_menu_for_botfather() -> None:
    text = (ROOT / "deploy" / "README.md").read_text()
    block = text.split("/setcommands", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    listed = [tuple(line.split(" - ", 1)) for line in block.strip().splitlines()]
    wanted = list(dict.fromkeys(menu("en", "private") + menu("en", "group")))
    assert listed == wanted
