"""Building, checking and dealing the deck for ``tabula``.

The default deck: 8 players get 2 Werewolves, the Seer and 5 Villagers; more players add
Villagers; 16 or more a third Werewolf. A host may choose the cards (or a theme, from
``themes.py``); a deck that does not fit is refused with a reason a player can read.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidSetup
from ..rng import rng
from ..types import Role
from .character import CHARACTERS

MIN_PLAYERS = 8
MAX_PLAYERS = 30
THIRD_WOLF_FROM = 16
LUPUSBURG_ONLY = {Role.TOWNSFOLK, Role.THIEF}



def _no_options(n: int) -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class Theme:
    """A preset deck: its printed name, its player range, how it builds the deck for a count
    (choices between cards made by the generator it is given), and the game options it sets
    (the deadly Owl-man)."""

    title: str
    lo: int
    hi: int
    cards: Callable[[int, random.Random], list[Role]]
    options: Callable[[int], dict[str, Any]] = _no_options


#: Themes by snake_case name. Filled by ``themes.py``.
THEMES: dict[str, Theme] = {}


def default_deck(n: int) -> list[Role]:
    check_count(n)
    wolves = 3 if n >= THIRD_WOLF_FROM else 2
    return [Role.WEREWOLF] * wolves + [Role.SEER] + [Role.VILLAGER] * (n - wolves - 1)


def check_count(n: int, minimum: int = MIN_PLAYERS) -> None:
    if n < minimum:
        raise InvalidSetup("setup.too_few", f"Lupus in Tabula needs at least {minimum} players (there are {n})",
                           minimum=minimum, count=n)
    if n > MAX_PLAYERS:
        raise InvalidSetup("setup.too_many", f"Lupus in Tabula takes at most {MAX_PLAYERS} players (there are {n})",
                           maximum=MAX_PLAYERS, count=n)


def parse_roles(names: Sequence[str]) -> list[Role]:
    out = []
    for name in names:
        try:
            out.append(Role(str(name).strip().lower().replace(" ", "_").replace("-", "_")))
        except ValueError:
            raise InvalidSetup("setup.unknown_role", f"there is no character called {name!r}", role=str(name)) from None
    return out


def validate(deck: Sequence[Role], n: int, minimum: int = MIN_PLAYERS) -> None:
    """Refuse a deck that does not fit ``n`` players, saying why. A theme's own range may go
    below the usual minimum (The Few and the Special! is for 7 or 8)."""
    check_count(n, minimum)
    if len(deck) != n:
        raise InvalidSetup("setup.deck_size", f"the deck has {len(deck)} cards for {n} players",
                           cards=len(deck), count=n)
    counts = Counter(deck)
    for role in counts:
        if role in LUPUSBURG_ONLY or role not in CHARACTERS:
            raise InvalidSetup("setup.foreign_role", f"{role.value} is not a character of this game", role=role.value)
    for role, k in counts.items():
        if CHARACTERS[role].unique and k > 1:
            raise InvalidSetup("setup.duplicate", f"there is only one {role.value} card", role=role.value)
    if counts.get(Role.FREEMASON, 0) not in (0, 2):
        raise InvalidSetup("setup.freemasons", "the Freemasons come as a pair: use two or none")
    wolves = sum(k for r, k in counts.items() if CHARACTERS[r].wolf)
    if wolves == 0:
        raise InvalidSetup("setup.no_wolves", "the deck needs at least one Werewolf")
    others = sum(k for r, k in counts.items() if not CHARACTERS[r].wolf and CHARACTERS[r].counts_living)
    if wolves >= others:
        raise InvalidSetup("setup.too_many_wolves",
                           f"{wolves} Werewolves against {others} others would win at once", wolves=wolves)


def theme_named(theme: str) -> tuple[str, Theme]:
    key = theme.strip().lower().replace(" ", "_").replace("-", "_").replace(",", "").replace("!", "")
    if key not in THEMES:
        known = ", ".join(sorted(THEMES)) or "none yet"
        raise InvalidSetup("setup.unknown_theme", f"there is no theme called {theme!r} (known: {known})",
                           theme=theme)
    return key, THEMES[key]


def theme_deck(theme: str, n: int, seed: int) -> list[Role]:
    """The theme's deck for ``n`` players, validated; a count outside its range is refused."""
    key, t = theme_named(theme)
    if not t.lo <= n <= t.hi:
        raise InvalidSetup("setup.theme_range", f"{t.title} is for {t.lo} to {t.hi} players (there are {n})",
                           theme=key, minimum=t.lo, maximum=t.hi, count=n)
    cards = t.cards(n, rng(seed, "theme", key))
    validate(cards, n, minimum=t.lo)
    return cards


def theme_options(theme: str, n: int) -> dict[str, Any]:
    return THEMES[theme_named(theme)[0]].options(n)


def build(n: int, deck: Sequence[str] | None, theme: str | None, seed: int) -> list[Role]:
    if theme is not None:
        return theme_deck(theme, n, seed)
    if deck is None:
        cards = default_deck(n)
        validate(cards, n)
        return cards
    return list(checked_deck(n, tuple(deck)))


@functools.lru_cache(maxsize=256)
def checked_deck(n: int, deck: tuple[str, ...]) -> tuple[Role, ...]:
    """A host's deck parsed and validated (kept: a series or a benchmark deals the same deck
    many times; a refused deck raises every time)."""
    cards = parse_roles(deck)
    validate(cards, n)
    return tuple(cards)


def deal(players: Sequence[str], cards: Sequence[Role], seed: int) -> dict[str, Role]:
    shuffled = list(cards)
    rng(seed, "deal").shuffle(shuffled)
    return dict(zip(players, shuffled, strict=True))


def fixed(players: Sequence[str], roles: Mapping[str, str]) -> dict[str, Role]:
    """Roles named in a game record: every player exactly one, and the deck still valid."""
    missing = [p for p in players if p not in roles]
    extra = [p for p in roles if p not in players]
    if missing or extra:
        raise InvalidSetup("setup.roles_mismatch",
                           f"roles must name every player once (missing: {missing}, unknown: {extra})")
    out = {p: parse_roles([roles[p]])[0] for p in players}
    validate(list(out.values()), len(players))
    return out
