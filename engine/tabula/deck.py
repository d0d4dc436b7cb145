"""Building, checking and dealing the deck for ``tabula``.

The default deck: 8 players get 2 Werewolves, the Seer and 5 Villagers; more players add
Villagers; 16 or more a third Werewolf. A host may choose the cards (or a theme, from
``themes.py``); a deck that does not fit is refused with a reason a player can read.

The number of Werewolves is the rulebook's, not the host's: "with 8 players ... 2 Werewolves;
... with 16 or more players, add the third Werewolf", so 2 for 8-15 players and 3 from 16 (up
to the 30 the expansion allows: its themes, not the base game, add a fourth, and only in their
own decks). Counted as Werewolves: the Werewolf cards and Lara, who is "one of the Werewolves"
and comes "as an alternative to one of" them. Not counted: the Werecow (not a Werewolf for the
end), the Mythomaniac (he may become one only on the second night), Dorian Wolf (a human). A
theme's deck fits its own text instead: each ``Theme`` says how many Werewolves it takes at
each size it allows.
"""

from __future__ import annotations

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
    wolves: Callable[[int], int]
    """How many Werewolves (Lara among them) its text puts in the deck for a player count."""
    options: Callable[[int], dict[str, Any]] = _no_options


#: Themes by snake_case name. Filled by ``themes.py``.
THEMES: dict[str, Theme] = {}


def wolves_for(n: int) -> int:
    """The Werewolves the base game takes for ``n`` players (Lara counting as one)."""
    return 3 if n >= THIRD_WOLF_FROM else 2


def default_deck(n: int) -> list[Role]:
    check_count(n)
    wolves = wolves_for(n)
    return [Role.WEREWOLF] * wolves + [Role.SEER] + [Role.VILLAGER] * (n - wolves - 1)


def complete(specials: Sequence[str], n: int) -> list[str]:
    """The host's chosen characters (role names) added to the base deck, as the rulebook builds
    one ("with 8 players use 5 Villagers, 2 Werewolves and 1 Seer; with 9 or more, add Villagers
    and/or Special characters"): the Werewolves ``n`` players take (those named, Lara among them,
    count: "Lara ... as an alternative to one of the Werewolves"), the Seer unless named, and
    Villagers for the rest. More Werewolves named than the count takes stay: ``validate`` then
    refuses the deck and says how many it takes."""
    roles = parse_roles(specials)
    named = sum(1 for r in roles if r in CHARACTERS and CHARACTERS[r].wolf)
    seer = [] if Role.SEER in roles else [Role.SEER.value]
    cards = [Role.WEREWOLF.value] * max(0, wolves_for(n) - named) + seer + list(specials)
    return cards + [Role.VILLAGER.value] * max(0, n - len(cards))


def check_count(n: int, minimum: int = MIN_PLAYERS) -> None:
    if n < minimum:
        raise InvalidSetup(
            "setup.too_few",
            f"Lupus in Tabula needs at least {minimum} players (there are {n})",
            minimum=minimum,
            count=n,
        )
    if n > MAX_PLAYERS:
        raise InvalidSetup(
            "setup.too_many",
            f"Lupus in Tabula takes at most {MAX_PLAYERS} players (there are {n})",
            maximum=MAX_PLAYERS,
            count=n,
        )


def parse_roles(names: Sequence[str]) -> list[Role]:
    out = []
    for name in names:
        try:
            out.append(Role(str(name).strip().lower().replace(" ", "_").replace("-", "_")))
        except ValueError:
            raise InvalidSetup("setup.unknown_role", f"there is no character called {name!r}", role=str(name)) from None
    return out


def validate(deck: Sequence[Role], n: int, minimum: int = MIN_PLAYERS, theme: str | None = None) -> None:
    """Refuse a deck that does not fit ``n`` players, saying why. A theme's own range may go
    below the usual minimum (The Few and the Special! is for 7 or 8), and its own text says
    how many Werewolves it takes (``theme``: its key)."""
    check_count(n, minimum)
    if len(deck) != n:
        raise InvalidSetup(
            "setup.deck_size", f"the deck has {len(deck)} cards for {n} players", cards=len(deck), count=n
        )
    counts = Counter(deck)
    for role in counts:
        if role in LUPUSBURG_ONLY or role not in CHARACTERS:
            raise InvalidSetup("setup.foreign_role", f"{role.value} is not a character of this game", role=role.value)
    for role, k in counts.items():
        if CHARACTERS[role].unique and k > 1:
            raise InvalidSetup("setup.duplicate", f"there is only one {role.value} card", role=role.value)
    if counts.get(Role.FREEMASON, 0) not in (0, 2):
        raise InvalidSetup("setup.freemasons", "the Freemasons come as a pair: use two or none")
    # The count the player count takes (2 at least, with 4 others or more) also rules out a deck
    # without Werewolves and one that would win at once.
    check_wolves(sum(k for r, k in counts.items() if CHARACTERS[r].wolf), n, theme)


def check_wolves(wolves: int, n: int, theme: str | None = None) -> None:
    """Refuse a deck whose Werewolves (Lara among them) are not as many as ``n`` players take:
    the base game's count, or the theme's own."""
    if theme is None:
        want = wolves_for(n)
        if wolves != want:
            raise InvalidSetup(
                "setup.wolves",
                f"with {n} players the deck takes {want} Werewolves (Lara counts as one), "
                f"not {wolves}: 2 for 8 to 15 players, 3 from {THIRD_WOLF_FROM}",
                count=want,
                players=n,
                have=wolves,
            )
        return
    key, t = theme_named(theme)
    want = t.wolves(n)
    if wolves != want:
        raise InvalidSetup(
            "setup.theme_wolves",
            f"{t.title} with {n} players takes {want} Werewolves (Lara counts as one), not {wolves}",
            theme=key,
            count=want,
            players=n,
            have=wolves,
        )


def theme_named(theme: str) -> tuple[str, Theme]:
    key = theme.strip().lower().replace(" ", "_").replace("-", "_").replace(",", "").replace("!", "")
    if key not in THEMES:
        known = ", ".join(sorted(THEMES)) or "none yet"
        raise InvalidSetup("setup.unknown_theme", f"there is no theme called {theme!r} (known: {known})", theme=theme)
    return key, THEMES[key]


def theme_deck(theme: str, n: int, seed: int) -> list[Role]:
    """The theme's deck for ``n`` players, validated; a count outside its range is refused."""
    key, t = theme_named(theme)
    check_theme_range(key, n)
    cards = t.cards(n, rng(seed, "theme", key))
    validate(cards, n, minimum=t.lo, theme=key)
    return cards


def check_theme_range(theme: str, n: int) -> None:
    key, t = theme_named(theme)
    if not t.lo <= n <= t.hi:
        raise InvalidSetup(
            "setup.theme_range",
            f"{t.title} is for {t.lo} to {t.hi} players (there are {n})",
            theme=key,
            minimum=t.lo,
            maximum=t.hi,
            count=n,
        )


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


def checked_deck(n: int, deck: tuple[str, ...]) -> tuple[Role, ...]:
    """A host's deck parsed and validated."""
    cards = parse_roles(deck)
    validate(cards, n)
    return tuple(cards)


def deal(players: Sequence[str], cards: Sequence[Role], seed: int) -> dict[str, Role]:
    shuffled = list(cards)
    rng(seed, "deal").shuffle(shuffled)
    return dict(zip(players, shuffled, strict=True))


def fixed(players: Sequence[str], roles: Mapping[str, str], theme: str | None = None) -> dict[str, Role]:
    """Roles named in a game record: every player exactly one, and the deck still valid (with a
    theme: within its player range, with its own number of Werewolves)."""
    missing = [p for p in players if p not in roles]
    extra = [p for p in roles if p not in players]
    if missing or extra:
        raise InvalidSetup(
            "setup.roles_mismatch", f"roles must name every player once (missing: {missing}, unknown: {extra})"
        )
    out = {p: parse_roles([roles[p]])[0] for p in players}
    if theme is None:
        validate(list(out.values()), len(players))
    else:
        key, t = theme_named(theme)
        check_theme_range(key, len(players))
        validate(list(out.values()), len(players), minimum=t.lo, theme=key)
    return out
