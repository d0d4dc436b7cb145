"""The Italian and Spanish catalogs hold no English word a speaker would not write, and every
catalog is complete: each key in all three, translated, not fuzzy, with the English text's fields
and every plural form its language has."""

from __future__ import annotations

import re
from functools import cache

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po

import engine
from service.texts.i18n import LOCALE_DIR

#: English words that slipped into Italian and Spanish texts before, or could: the house words, the
#: words of a move or of the table, and glue words no Italian or Spanish sentence holds. The
#: characters' and themes' English identifiers are added from the engine (``FORBIDDEN``).
ENGLISH_WORDS = frozenset(
    (
        "left",
        "right",
        "house",
        "houses",
        "the",
        "and",
        "you",
        "your",
        "with",
        "of",
        "to",
        "is",
        "are",
        "was",
        "not",
        "or",
        "yes",
        "on",
        "off",
        "what",
        "who",
        "whom",
        "which",
        "for",
        "from",
        "this",
        "that",
        "game",
        "games",
        "vote",
        "votes",
        "voted",
        "night",
        "nights",
        "day",
        "days",
        "player",
        "players",
        "write",
        "text",
        "help",
        "new",
        "join",
        "start",
        "begin",
        "leave",
        "say",
        "status",
        "role",
        "card",
        "cards",
        "deck",
        "theme",
        "themes",
        "seat",
        "seats",
        "host",
        "ballot",
        "nominations",
        "suspect",
        "suspects",
        "kill",
        "see",
        "look",
        "protect",
        "peek",
        "show",
        "bet",
        "coin",
        "seal",
        "chest",
        "claw",
        "pack",
        "lodge",
        "town",
        "square",
        "ghost",
        "ghosts",
        "dead",
        "alive",
        "died",
        "killed",
        "lynched",
        "wins",
        "win",
        "won",
        "lost",
        "over",
        "until",
        "now",
        "dawn",
        "tie",
        "tally",
        "winner",
        "winners",
        "nobody",
        "shuffle",
        "again",
        "replace",
        "remove",
        "extend",
        "shorten",
        "pause",
        "resume",
        "volunteer",
        "record",
        "lang",
        "rules",
    )
)

#: Words of the characters' English names that the Italian and Spanish texts may keep: proper names
#: (the expansion's Lara, Baron Samedi's Samedi, Darius, Dorian, Dr. Jekyll and Mr. Hyde, Hamlet,
#: Miss Purple, whom Italian calls "Miss Purple" as it says "Miss Italia"), and Medium, the Italian
#: rulebook's own name for the card ("Medium (9): è un umano...").
PROPER_NAMES = frozenset(
    {"lara", "samedi", "darius", "dorian", "jekyll", "dr", "hyde", "mr", "hamlet", "miss", "purple", "medium"}
)

#: English words the parser needs and has no Italian or Spanish for: none today. A word put here
#: must be one a player types (a command word), said with the reason.
COMMAND_WORDS: frozenset[str] = frozenset()


def _identifier_words() -> set[str]:
    """Each character's and theme's identifier (``owl_man``, ``nights_of_blood``) and its words."""
    ids = [role.value for role in engine.Role] + list(engine.themes())
    return set(ids) | {word for name in ids for word in name.split("_")}


FORBIDDEN = frozenset((ENGLISH_WORDS | _identifier_words()) - PROPER_NAMES - COMMAND_WORDS)
PLACEHOLDER = re.compile(r"{(\w*)}")
WORD = re.compile(r"[^\W\d]+")
"""A run of letters (and ``_``, so that ``owl_man`` is one word as well as two)."""


@cache
def _catalog(lang: str) -> Catalog:
    with (LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
        return read_po(f, locale=lang)


def _messages(lang: str) -> dict[str, Message]:
    return {str(m.id[0] if isinstance(m.id, tuple) else m.id): m for m in _catalog(lang) if m.id}


def _forms(m: Message) -> tuple[str, ...]:
    return tuple(str(s) for s in m.string) if isinstance(m.string, (tuple, list)) else (str(m.string or ""),)


def english_words(text: str) -> list[str]:
    """The words of ``text`` (its ``{fields}`` left out) that are on the list, case aside."""
    words = WORD.findall(PLACEHOLDER.sub(" ", text))
    found = [w for w in words if w.casefold() in FORBIDDEN]
    found += [part for w in words if "_" in w for part in w.split("_") if part.casefold() in FORBIDDEN]
    return found


def test_the_list_holds_the_house_words_and_every_identifier() -> None:
    assert {
        "left",
        "right",
        "werewolf",
        "seer",
        "villager",
        "owl_man",
        "mythomania",
        "nights_of_blood",
        "different_factions_different_afterlives",
    } <= FORBIDDEN
    assert "medium" not in FORBIDDEN and "samedi" not in FORBIDDEN
    assert english_words("vota NOME:left, mazzo seer medium, tema mythomania") == ["left", "seer", "mythomania"]
    assert english_words("vota {left} e {right}, poi sinistra") == []
    assert english_words("il tema nights_of_blood") == ["nights_of_blood", "nights", "of", "blood"]


@pytest.mark.parametrize("lang", ["it", "es"])
def test_no_italian_or_spanish_text_holds_an_english_word(lang: str) -> None:
    found = {
        key: words
        for key, m in _messages(lang).items()
        for words in [sorted({w for form in _forms(m) for w in english_words(form)})]
        if words
    }
    assert found == {}, f"{lang}: English words in {found}"


def test_every_key_is_in_every_catalog() -> None:
    en = set(_messages("en"))
    for lang in ("it", "es"):
        other = set(_messages(lang))
        assert (sorted(en - other), sorted(other - en)) == ([], []), lang


@pytest.mark.parametrize("lang", ["en", "it", "es"])
def test_no_entry_is_untranslated_or_fuzzy(lang: str) -> None:
    catalog = _catalog(lang)
    assert not catalog.fuzzy, f"{lang}: the header is marked fuzzy"
    fuzzy = [key for key, m in _messages(lang).items() if m.fuzzy]
    empty = [key for key, m in _messages(lang).items() if not all(form.strip() for form in _forms(m))]
    assert (fuzzy, empty) == ([], []), lang


@pytest.mark.parametrize("lang", ["it", "es"])
def test_every_entry_has_the_english_fields_and_every_plural_form(lang: str) -> None:
    en, other, plurals = _messages("en"), _messages(lang), _catalog(lang).num_plurals
    wrong: list[tuple[str, str]] = []
    for key, m in other.items():
        if key not in en:
            continue
        english = {f for form in _forms(en[key]) for f in PLACEHOLDER.findall(form)}
        forms = _forms(m)
        if isinstance(en[key].id, tuple) != isinstance(m.id, tuple):
            wrong.append((key, "plural in one catalog only"))
        elif isinstance(m.id, tuple) and (len(forms) != plurals or not all(forms)):
            # Babel reads a missing form as "": a form left out is an empty one.
            wrong.append((key, f"{sum(map(bool, forms))} plural forms, not {plurals}"))
        # A plural form may leave the count unsaid ("e altri 3" / "e 1 altro"), never add a field.
        elif isinstance(m.id, tuple):
            if (
                any(set(PLACEHOLDER.findall(f)) - english for f in forms)
                or {p for f in forms for p in PLACEHOLDER.findall(f)} != english
            ):
                wrong.append((key, "fields differ from the English"))
        elif set(PLACEHOLDER.findall(forms[0])) != english:
            wrong.append((key, "fields differ from the English"))
    assert wrong == [], lang
