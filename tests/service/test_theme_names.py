"""Themes and characters by name in the host's language: typed in any of the three (accents, case
and a leading article aside), shown in the reader's, never as identifiers (seen: "Il tema
mythomania è per 9-14 giocatori", "The themes: different_factions_different_afterlives, ...");
``new theme`` alone lists the themes, each with a line of what it is; the examples in the help
and the refusals are commands the parser takes, in the reader's words (seen: "nuova mazzo seer
medium")."""

from __future__ import annotations

import re

import pytest
from sqlmodel import Session, select

from engine import InvalidSetup
from service.game.host_choices import Choices, parse_choices
from service.store.models import Game
from service.texts import cards, grammar
from service.texts.errors import error_text
from service.texts.i18n import LANGUAGES, t

from .conftest import Harness
from .play import open_game


def choose(text: str) -> Choices:
    return parse_choices(text.split())


@pytest.mark.parametrize(
    "typed",
    [
        "tema mitomania",
        "theme mythomania",
        "tema mitomanía",
        "TEMA Mitomanía",
        "tema Mythomania",
    ],
)
def test_a_theme_is_named_in_any_language(typed: str) -> None:
    assert parse_choices(typed.split()).setup == {"theme": "mythomania"}


def test_a_theme_of_several_words_is_named_before_the_next_choice() -> None:
    # "notte" is both a word of the theme's name and the night's option word.
    c = choose("tema il turno di notte notte 10h")
    assert (c.setup, c.options) == ({"theme": "the_night_shift"}, {"night_minutes": 600})
    assert choose("tema turno di notte").setup == {"theme": "the_night_shift"}
    assert choose("tema noches de sangre dia 8:00").setup == {"theme": "nights_of_blood"}
    assert choose("theme the few and the special!").setup == {"theme": "the_few_and_the_special"}
    assert choose("tema pocos pero especiales").setup == {"theme": "the_few_and_the_special"}
    assert choose("theme nights_of_blood").setup == {"theme": "nights_of_blood"}  # records
    with pytest.raises(InvalidSetup):
        choose("tema unicorni")


def test_a_deck_names_its_characters_in_any_language() -> None:
    c = choose("mazzo veggente guardia del corpo, dottor jekyll")
    assert c.setup == {"specials": ["seer", "bodyguard", "dr_jekyll"]}
    assert choose("mazo vidente médium").setup == {"specials": ["seer", "medium"]}


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "Mythomania is a theme for 16 to 30 players (there are 9)."),
        ("it", "Mitomania è un tema per 16-30 giocatori (ce ne sono 9)."),
        ("es", "Mitomanía es un tema para 16 a 30 jugadores (hay 9)."),
    ],
)
def test_a_refusal_names_the_theme_in_the_readers_language(lang: str, text: str) -> None:
    e = InvalidSetup("setup.theme_range", "", theme="mythomania", minimum=16, maximum=30, count=9)
    assert error_text(lang, e) == text


@pytest.mark.parametrize(("lang", "new"), [("en", "new theme"), ("it", "nuova tema"), ("es", "nueva tema")])
def test_new_theme_alone_lists_the_themes_with_a_line_each(h: Harness, lang: str, new: str) -> None:
    out = h.say("host", new)
    with Session(h.db) as s:
        assert len(out) == 1 and s.exec(select(Game)).all() == []  # nothing was created
    lines = out[0].split("\n")
    assert len(lines) == 1 + len(cards.themes())
    for key, line in zip(cards.themes(), lines[1:], strict=True):
        assert line == f"{cards.theme_name(lang, key)}: {cards.theme_line(lang, key)}"
        assert key not in line
    assert "Mitomania: 16-30 giocatori" in out[0] if lang == "it" else True


def test_an_italian_host_reads_the_theme_in_italian(h: Harness) -> None:
    code = open_game(h, "it", names=["ann", "bob"], extra="tema mitomania")
    assert h.say("host", "inizia") == [
        "La partita non può iniziare. Mitomania è un tema per 16-30 giocatori (ce ne sono 2)."
    ]
    out = h.say("host", "imposta tema notti di sangue")
    assert out[0].startswith(f"Partita {code}") and "nights_of_blood" not in out[0]
    assert h.game().setup == {"theme": "nights_of_blood"}


def _examples(text: str, new_word: str) -> list[str]:
    """The commands an example in ``text`` shows: from each ``new`` word to the end of its clause."""
    return [m.group(0) for m in re.finditer(rf"\b{new_word}\b[^;.]*", text)]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_examples_of_new_are_commands_the_parser_takes(lang: str) -> None:
    new_word = {"en": "new", "it": "nuova", "es": "nueva"}[lang]
    examples = _examples(t(lang, "svc.new.bad", word="X"), new_word)
    assert len(examples) == 3, examples  # with a theme, with choices, and "new theme" alone
    for example in examples:
        p = grammar.parse(example)
        assert p.verb == "new", example
        if len(p.args) > 1:  # "new theme" alone lists the themes
            parse_choices(list(p.args))
