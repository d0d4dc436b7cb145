"""The role guide: ``guide seer`` / ``guida veggente`` / ``guia vidente`` answers, in the reader's
language, with the rulebook's text of that character (named in any language, accents optional)
or that theme's line, for every character and theme of every box; ``guide`` alone lists the
characters of the reader's rule set (outside a game, every box's, grouped by box) and the
expansion's themes. By SMS an answer about one character is at most two segments."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

from service.channels.sms.gsm7 import fold as gsm7
from service.channels.sms.gsm7 import segments
from service.texts import cards, render
from service.texts.guide import BOXES, box_name
from service.texts.i18n import LANGUAGES, role_name, t

from .conftest import Harness
from .play import open_game, start
from .test_sms_on_request import Sms

GUIDE = {"en": "guide", "it": "guida", "es": "guía"}
#: Every character by box, and the word that makes a box's own card read (Lupusburg's Werewolf).
CHARACTERS = [(box, role) for box, roles in BOXES.items() for role in roles]


def _reader(h: Harness, lang: str) -> str:
    who = f"reader_{lang}"
    h.say(who, f"lang {lang}")
    return who


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_character_of_every_box_answers_with_its_card_in_three_languages(h: Harness, lang: str) -> None:
    who = _reader(h, lang)
    for box, role in CHARACTERS:
        text = cards.card_text(lang, role, box)
        prefix = "lupusburg " if box == "lupusburg" else ""
        for typed in {role_name(other, role) for other in LANGUAGES} | {role}:  # named in any language
            (out,) = h.say(who, f"{GUIDE[lang]} {prefix}{typed}")
            assert out.startswith(f"{role_name(lang, role)} ({box_name(lang, box)}): {text}"), (typed, out)
    assert cards.card_text("en", "werewolf", "lupusburg") != cards.card_text("en", "werewolf")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_theme_answers_with_its_name_and_line_in_three_languages(h: Harness, lang: str) -> None:
    who = _reader(h, lang)
    for key in cards.themes():
        for other in LANGUAGES:
            (out,) = h.say(who, f"{GUIDE[lang]} {cards.theme_name(other, key)}")
            assert out.startswith(cards.theme_name(lang, key)) and out.endswith(cards.theme_line(lang, key)), out
            assert key not in out


def test_names_are_typed_without_accents_and_the_telegram_answer_says_how_to_play(h: Harness) -> None:
    (out,) = h.say("mia", "guia vidente")  # Spanish, without the accent: sets his language
    assert out == (f"Vidente (Lupus in Tabula): {cards.card_text('es', 'seer')}\n" + t("es", "rolehelp.seer"))
    (out,) = h.say("mia", "guía hombre buho")
    assert out.startswith("Hombre Búho (Lupus in Tabula): ")
    (out,) = h.say("mia", "guía nadie")
    assert out == "Ningún personaje ni tema se llama nadie. Escribe guía para ver la lista."


def test_guide_alone_lists_every_box_outside_a_game_and_the_rule_sets_inside(h: Harness) -> None:
    (out,) = h.say("ann", "guida")
    lines = out.split("\n")
    assert lines[:3] == [
        "Lupus in Tabula: Villico, Lupo Mannaro, Veggente, Medium, Indemoniato, Guardia del corpo, Gufo, Massone, "
        "Criceto Mannaro, Mitomane.",
        "La vendetta della Lupa Mannara: Lara, Barone Samedi, Miss Purple, Darius, Mucca Mannara, Morto Vivente, "
        "Dorian Lupo, Dottor Jekyll, Amleto, Indovino.",
        "Lupusburg: Lupo Mannaro, Ladro, Cittadino.",
    ]
    assert lines[3] == "Temi della Vendetta della Lupa Mannara:"
    assert lines[4:-1] == cards.themes_list("it").split("\n") and len(lines[4:-1]) == 7
    assert lines[-1] == "Scrivi guida NOME per un personaggio o un tema."
    # In a Lupusburg game: its characters only, no theme.
    open_game(h, "en", names=["bob"], extra="lupusburg")
    assert h.say("bob", "guide") == [
        "Lupusburg: Werewolf, Thief, Townsfolk.\nWrite guide NAME for a character or a theme."
    ]
    (out,) = h.say("bob", "guide werewolf")  # his box's Werewolf
    assert out == f"Werewolf (Lupusburg): {cards.card_text('en', 'werewolf', 'lupusburg')}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_by_sms_each_answer_is_at_most_two_segments(db: Engine, lang: str) -> None:
    h = Sms(db)
    who = _reader(h, lang)
    for box, role in CHARACTERS:
        prefix = "lupusburg " if box == "lupusburg" else ""
        (out,) = h.say(who, f"{GUIDE[lang]} {prefix}{role}")
        assert gsm7(cards.card_text(lang, role, box)) in out and segments(out) <= 2, out
    for key in cards.themes():
        (out,) = h.say(who, f"{GUIDE[lang]} {key}")
        assert segments(out) <= 2, out
    (listed,) = h.say(who, GUIDE[lang])
    assert gsm7(cards.theme_names(lang)) in listed and cards.theme_line(lang, "mythomania") not in listed


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_card_of_tabula_and_the_expansion_is_said_in_a_sentence_at_the_deal(lang: str) -> None:
    # Seen: the expansion's cards were dealt with "Write help to see what you can do now."
    for role in (*BOXES["tabula"], *BOXES["expansion"]):
        said = render.role_help(lang, role)
        assert said != t(lang, "rolehelp.default") and len(said) <= 160, (role, said)


def test_an_italian_expansion_game_deals_each_card_with_its_sentence(h: Harness) -> None:
    names = ["ann", "bob", "cat", "dan", "eve", "fay", "gil", "hal", "ivy"]
    open_game(h, "it", names=names, extra="tema il turno di notte")
    start(h, "it")
    roles = {p: r.value for p, r in h.state().roles.items()}  # type: ignore[attr-defined]
    assert "baron_samedi" in roles.values()
    for who, role in roles.items():
        dealt = next(m for m in h.inbox(who) if m.startswith("Il tuo personaggio"))
        assert f"{role_name('it', role)}. {render.role_help('it', role)}" in dealt, dealt
