"""What a host chooses for a game, read from the words after ``new`` or ``set``: the rules, the deck or
a theme, the phases' times, the time zone, the language, shuffling and muting Ghosts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from engine import InvalidSetup, RuleSet
from service.game import ghosts
from service.texts import cards, grammar
from service.texts.grammar import fold

OPTION_WORDS = {
    "theme": ("theme", "tema"),
    "deck": ("deck", "mazzo", "mazo", "cards", "carte", "cartas"),
    "night": ("night", "notte", "noche"),
    "nominations": ("day", "nominations", "giorno", "dia", "votazione"),
    "ballot": ("ballot", "ballottaggio", "desempate"),
    "tz": ("tz", "timezone", "fuso", "zona"),
    "lang": ("lang", "language", "lingua", "idioma"),
    "shuffle": ("shuffle", "mescola", "barajar"),
    "mute": ("mute", "silenzia", "silenciar"),
}
#: ``mute ghosts on`` reads as ``mute on``.
GHOST_WORDS = frozenset({"ghosts", "ghost", "fantasmi", "fantasmas"})
OPTION_INDEX = {fold(w): k for k, ws in OPTION_WORDS.items() for w in ws}
#: The choices that may change once the game runs: the rest only in the lobby.
TIMING = ("night", "nominations", "ballot", "mute")
PHASES = ("night", "nominations", "ballot")
#: The yes-or-no choices, by the option each sets.
YES_NO_OPTIONS = {"shuffle": "shuffle", "mute": ghosts.OPTION}


@dataclass
class Choices:
    """What a host chose for a game (at ``new``, or later with ``set``)."""

    rules: str | None = None
    setup: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    tz: str | None = None
    lang: str | None = None
    timing_only: bool = True


class BadWord(Exception):
    def __init__(self, word: str) -> None:
        self.word = word


class ThemeList(Exception):
    """``theme`` with no name after it: the host is shown the themes to choose from."""


def parse_choices(words: list[str]) -> Choices:
    c, i = Choices(), 0
    while i < len(words):
        i = _read_choice(c, words, i)
    return c


def _read_choice(c: Choices, words: list[str], i: int) -> int:
    """Reads the choice that starts at ``words[i]`` into ``c``: the index of the word after it."""
    w, key = words[i], OPTION_INDEX.get(fold(words[i]))
    if key == "mute" and i + 1 < len(words) and fold(words[i + 1]) in GHOST_WORDS:
        del words[i + 1]
    arg = words[i + 1] if i + 1 < len(words) else ""
    if fold(w) in {r.value for r in RuleSet}:
        c.rules, c.timing_only = fold(w), False
        return i + 1
    if key == "theme":
        return _read_theme(c, words, i, arg)
    if key is None or not arg:
        raise BadWord(w)
    if key not in TIMING:
        c.timing_only = False
    if key == "deck":
        return _read_deck(c, words, i)
    VALUE_READERS[key](c, key, arg)
    return i + 2


def _read_theme(c: Choices, words: list[str], i: int, arg: str) -> int:
    """A theme's name may be several words, in any language."""
    if (found := cards.theme_at(words[i + 1 :])) is None:
        if not arg:
            raise ThemeList
        raise InvalidSetup("setup.unknown_theme", f"there is no theme called {arg!r}", theme=arg)
    c.setup["theme"], c.timing_only = found[0], False
    return i + 1 + found[1]


def _read_deck(c: Choices, words: list[str], i: int) -> int:
    """The characters named, up to the next choice's word."""
    end = next((j for j in range(i + 1, len(words)) if fold(words[j]) in OPTION_INDEX), len(words))
    roles, bad = cards.roles_named(" ".join(words[i + 1 : end]).replace(",", " ").split())
    if bad is not None:
        raise BadWord(bad)
    c.setup["specials"] = roles
    return end


def _read_phase_time(c: Choices, key: str, arg: str) -> None:
    """A phase ends at a time of day or lasts some minutes: the one chosen replaces a time chosen before."""
    at, minutes = grammar.parse_time(arg), grammar.parse_duration(arg)
    if at is None and minutes is None:
        raise BadWord(arg)
    c.options.pop(f"{key}_at", None)
    c.options[f"{key}_at" if at else f"{key}_minutes"] = at or minutes


def _read_zone(c: Choices, key: str, arg: str) -> None:
    try:
        ZoneInfo(arg)
    except (ZoneInfoNotFoundError, ValueError):
        raise BadWord(arg) from None
    c.tz = arg


def _read_lang(c: Choices, key: str, arg: str) -> None:
    if (code := grammar.parse_lang(arg)) is None:
        raise BadWord(arg)
    c.lang = code


def _read_yes_no(c: Choices, key: str, arg: str) -> None:
    if (yes := grammar.parse_yes_no(arg)) is None:
        raise BadWord(arg)
    c.options[YES_NO_OPTIONS[key]] = yes


#: The choices of one word after their own, by their key.
VALUE_READERS: dict[str, Callable[[Choices, str, str], None]] = {
    **dict.fromkeys(PHASES, _read_phase_time),
    "tz": _read_zone,
    "lang": _read_lang,
    "shuffle": _read_yes_no,
    "mute": _read_yes_no,
}
