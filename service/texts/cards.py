"""Characters and themes by name: typed in any of the three languages (accents, case, spaces and
punctuation aside), shown in the reader's. Records and the engine keep the identifiers
(``owl_man``, ``nights_of_blood``); a player never reads one.

A theme's name may be several words, and a word of it may also be an option's ("Il turno di
notte" holds ``notte``): ``theme_at`` takes the longest run of words that names a theme.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import engine
from service.texts.grammar import fold
from service.texts.i18n import LANGUAGES, has, role_name, t

#: Articles a theme's name may be typed without ("notti di sangue" or "le notti di sangue").
ARTICLES = ("the", "il", "lo", "la", "i", "gli", "le", "el", "los", "las")


def _squeezed(text: str) -> str:
    """Only the letters and digits, folded: "¡Pocos pero especiales!" is "pocosperoespeciales"."""
    return "".join(c for c in fold(text) if c.isalnum())


def _forms(name: str) -> set[str]:
    words = fold(name).replace("_", " ").replace("-", " ").split()
    forms = {_squeezed(name)}
    if len(words) > 1 and words[0] in ARTICLES:
        forms.add(_squeezed(" ".join(words[1:])))
    return forms


@cache
def _roles() -> dict[str, str]:
    """Each character's names (identifier, and its name in every language), squeezed."""
    out: dict[str, str] = {}
    for role in engine.Role:
        for name in (role.value, *(role_name(lang, role.value) for lang in LANGUAGES)):
            for form in _forms(name):
                out.setdefault(form, role.value)
    return out


@cache
def _themes() -> dict[str, str]:
    """Each theme's names (identifier, and its name in every language), squeezed."""
    out: dict[str, str] = {}
    for key in engine.themes():
        for name in (key, *(theme_name(lang, key) for lang in LANGUAGES)):
            for form in _forms(name):
                out.setdefault(form, key)
    return out


def role_key(word: str) -> str | None:
    """A character by its record name or its name in any of the three languages."""
    return _roles().get(_squeezed(word)) if _squeezed(word) else None


def theme_at(words: Sequence[str]) -> tuple[str, int] | None:
    """The theme the first words name, and how many words its name took (the most that name one)."""
    for n in range(len(words), 0, -1):
        key = _themes().get(_squeezed(" ".join(words[:n])))
        if key is not None:
            return key, n
    return None


def name_of(words: Sequence[str]) -> str | None:
    """A character's or a theme's identifier, from its name in any language (several words may
    make one: "dottor jekyll", "notti di sangue")."""
    phrase = " ".join(words)
    found = theme_at(words)
    if found is not None and found[1] == len(words):
        return found[0]
    return role_key(phrase)


def theme_name(lang: str, key: str) -> str:
    """The theme's name in ``lang``, as the rulebook prints it ("The Night Shift", "Il turno di notte")."""
    return t(lang, f"theme.{key}") if has("en", f"theme.{key}") else key.replace("_", " ").title()


def theme_line(lang: str, key: str) -> str:
    """What the theme is, in one line."""
    return t(lang, f"theme.{key}.line")


def themes() -> list[str]:
    """The themes' keys, fewest players first (as a host looks for one that fits his table)."""
    return sorted(engine.themes(), key=lambda key: engine.player_range("tabula", key))


def themes_list(lang: str) -> str:
    """Every theme, one a line: its name and what it is."""
    return "\n".join(f"{theme_name(lang, key)}: {theme_line(lang, key)}" for key in themes())


def theme_names(lang: str) -> str:
    """Every theme's name, in a line."""
    return "; ".join(theme_name(lang, key) for key in themes())


def roles_named(words: Sequence[str]) -> tuple[list[str], str | None]:
    """The characters a deck names, each by the most words that name one ("guardia del corpo
    veggente"), and the first word that names none (or None)."""
    roles: list[str] = []
    i = 0
    while i < len(words):
        n = next((n for n in range(min(4, len(words) - i), 0, -1) if role_key(" ".join(words[i : i + n]))), 0)
        if n == 0:
            return roles, words[i]
        roles.append(str(role_key(" ".join(words[i : i + n]))))
        i += n
    return roles, None


def card_text(lang: str, role: str, box: str | None = None) -> str:
    """What the character is and does, from its rulebook (``box``: the box whose card it is, where
    two boxes print one name: Lupusburg's Werewolf hunts houses)."""
    key = f"card.{role}.{box}" if box and has("en", f"card.{role}.{box}") else f"card.{role}"
    return t(lang, key)
