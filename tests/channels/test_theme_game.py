"""A whole expansion game with a theme, in Italian, read on each phone (Telegram and SMS): no English
word reaches an Italian reader, the theme is named in Italian, each player learns what his card does
at the deal, and everyone is told at the end whether he won."""

from __future__ import annotations

import re

from service.channels.sms.gsm7 import fold as gsm7
from service.texts.i18n import t

from ..service.test_catalog_words import english_words
from .conftest import SmsPlayer, Stack, sms_player, tg_player
from .test_story import IT, Person, _play_to_end, _state, _won_lines

TG_NAMES = ("Lia", "Ada", "Bea", "Cris")
SMS_NAMES = ("Dino", "Elio", "Fabio", "Gino")


def _table(stack: Stack) -> tuple[str, dict[str, Person], dict[str, int]]:
    host = tg_player(stack, "Lia")
    tg = [host] + [tg_player(stack, n) for n in TG_NAMES[1:]]
    for player in tg:  # their Telegram speaks English: each says he reads Italian
        player.say("/start")
        player.say("lingua it")
    stack.deliver()
    english = {player.first_name: len(player.texts()) for player in tg}  # read before he said "lingua it"
    host.say(f"nuova lingua it tema {THEME}")
    stack.deliver()
    code = stack.game().code
    # The game is created by its theme's Italian name ("(tabula, ...)" and "the_night_shift" before).
    assert host.texts()[-1].startswith(f"Partita {code} creata (Il turno di notte, Europe/Rome)."), host.texts()[-1]
    for player in tg:
        player.say(f"entra {code} {player.first_name}")
    sms = [sms_player(stack) for _ in SMS_NAMES]
    for phone, name in zip(sms, SMS_NAMES, strict=True):
        phone.say(f"ENTRA {code} {name}")
    host.say("inizia")
    stack.deliver()
    assert stack.game().status == "running" and stack.game().setup["theme"] == "the_night_shift"
    people: dict[str, Person] = {player.first_name: player for player in tg}
    people.update(zip(SMS_NAMES, sms, strict=True))
    return code, people, english


#: The theme as an Italian host types it.
THEME = "il turno di notte"


def _english_in(text: str, code: str) -> list[str]:
    """English words in a text an Italian reader got, the game's code and the players' names aside."""
    for name in (code, *TG_NAMES, *SMS_NAMES):
        text = re.sub(rf"\b{re.escape(name)}\b", " ", text)
    return english_words(text)


def test_a_theme_game_in_italian_speaks_italian_on_every_phone(stack: Stack) -> None:
    code, people, english = _table(stack)
    _play_to_end(stack, people, IT)
    stack.deliver()
    _won_lines(stack, people, "it", "")
    for name, p in people.items():
        texts = p.texts()[english.get(name, 0) :]
        assert texts, name
        found = {w for text in texts for w in _english_in(text, code)}
        assert not found, (name, found, texts)
    # Each player was told at the deal his card by its Italian name and what it does (by SMS, how to
    # ask the guide for it).
    roles = _state(stack).roles
    for name, p in people.items():
        role = roles[name].value
        if isinstance(p, SmsPlayer):
            said = gsm7(t("it", "role." + role))
            assert any(said in text and "guida" in text for text in p.texts()), (name, said)
        else:
            said = t("it", "rolehelp." + role)
            assert said != t("it", "rolehelp.default") and any(said in text for text in p.texts()), (name, said)
