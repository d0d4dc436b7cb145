"""The expansion's suggested themes as presets: each builds the deck for a player count from
the bracketed conditions printed in Lady Werewolf's Revenge.

"X or Y" between two cards is the host's choice in the rulebook; here the game's generator
makes it, so a record naming a theme and a seed always deals the same cards. The Villager
ranges printed with each theme ("2 Villagers (from this expansion), 2-4 Villagers (from
LIT)") are what is left once the specials are counted; a count past the printed maximum
would be a mistake in this table, and is refused.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ..errors import InvalidSetup
from ..types import Role
from .deck import THEMES, Theme

R = Role


def _fill(cards: list[Role], n: int, most_villagers: int) -> list[Role]:
    villagers = n - len(cards)
    if villagers < 0 or villagers > most_villagers:
        raise InvalidSetup("setup.theme_count", f"this theme cannot be dealt to {n} players", count=n)
    return cards + [R.VILLAGER] * villagers


def _wolves(n: int, second_from: int) -> list[Role]:
    """1 Werewolf from the base game, 2 from ``second_from`` players."""
    return [R.WEREWOLF] * (2 if n >= second_from else 1)


def the_few_and_the_special(n: int, r: random.Random) -> list[Role]:
    cards = [R.LARA, R.WEREWOLF, R.DARIUS, r.choice([R.SEER, R.FORTUNE_TELLER]), R.BARON_SAMEDI, R.POSSESSED, R.OWL_MAN]
    if n >= 8:
        cards.append(r.choice([R.MISS_PURPLE, R.MEDIUM]))
    return _fill(cards, n, 0)


def the_night_shift(n: int, r: random.Random) -> list[Role]:
    cards = [R.WEREWOLF, R.WEREWOLF, r.choice([R.SEER, R.FORTUNE_TELLER]), R.BARON_SAMEDI]
    if n >= 9:
        cards.append(R.MISS_PURPLE)
    if n >= 12:
        cards += [R.DEADALIVE, R.OWL_MAN]
    return _fill(cards, n, 2 + 4)


def the_evil_and_the_cure(n: int, r: random.Random) -> list[Role]:
    cards = [R.LARA, *_wolves(n, 16), R.WERECOW, R.DARIUS, R.SEER, R.FORTUNE_TELLER]
    if n >= 10:
        cards.append(R.POSSESSED)
    if n >= 12:
        cards.append(R.DR_JEKYLL)
    return _fill(cards, n, 2 + 12)


def the_lovers_of_mystery(n: int, r: random.Random) -> list[Role]:
    cards = [
        R.WEREWOLF,
        *_wolves(n, 16),
        R.WERECOW,
        R.DARIUS if n <= 14 else R.WEREHAMSTER,
        R.SEER,
        R.FORTUNE_TELLER,
        R.BARON_SAMEDI,
        R.MEDIUM,
        R.POSSESSED,
        R.BODYGUARD,
        R.DR_JEKYLL,
    ]
    if n == 12 or n >= 14:
        cards.append(R.HAMLET)
    if n >= 13:
        cards += [R.FREEMASON, R.FREEMASON]
    if n >= 15:
        cards.append(R.DEADALIVE)
    return _fill(cards, n, 0)


def nights_of_blood(n: int, r: random.Random) -> list[Role]:
    cards = [
        R.WEREWOLF,
        *_wolves(n, 16),
        r.choice([R.SEER, R.FORTUNE_TELLER]),
        R.MISS_PURPLE,
        R.DR_JEKYLL,
        R.HAMLET,
        R.DEADALIVE,
        R.OWL_MAN,
    ]
    return _fill(cards, n, 2 + 12)


def different_factions_different_afterlives(n: int, r: random.Random) -> list[Role]:
    cards = [
        R.LARA,
        *_wolves(n, 25),
        R.DARIUS if n <= 14 else R.WEREHAMSTER,
        r.choice([R.SEER, R.FORTUNE_TELLER]),
        R.BARON_SAMEDI,
        R.MEDIUM,
    ]
    if n >= 16:
        cards += [R.WEREWOLF, R.MYTHOMANIAC]  # the expansion's Werewolf card
    if n >= 10:
        cards.append(R.POSSESSED)
    if n >= 12:
        cards.append(R.DORIAN_WOLF)
    if n >= 13:
        cards += [R.FREEMASON, R.FREEMASON]
    if n >= 20:
        cards.append(R.OWL_MAN)
    return _fill(cards, n, 2 + 12)


def mythomania(n: int, r: random.Random) -> list[Role]:
    cards = [
        R.LARA,
        R.WEREWOLF,
        *_wolves(n, 25),
        R.WERECOW,
        R.WEREHAMSTER,
        R.SEER,
        R.FORTUNE_TELLER,
        R.MISS_PURPLE,
        R.POSSESSED,
        R.DR_JEKYLL,
        R.OWL_MAN,
        R.DORIAN_WOLF,
        R.FREEMASON,
        R.FREEMASON,
        R.MYTHOMANIAC,
    ]
    return _fill(cards, n, 2 + 12)


def _deadly_owl(from_players: int) -> Callable[[int], dict[str, Any]]:
    def options(n: int) -> dict[str, Any]:
        return {"deadly_owl": n >= from_players}

    return options


def _counted(*steps: tuple[int, int]) -> Callable[[int], int]:
    """The Werewolves a theme's text takes: ``(from_players, wolves)`` steps, lowest first."""

    def wolves(n: int) -> int:
        return max(w for lo, w in steps if n >= lo)

    return wolves


# Each theme's Werewolves as its text counts them (Lara is one of them), checked against the
# deck its function builds at every size it allows: a mistake in either is refused, not dealt.
THEMES.update(
    {
        # Lara, 1 Werewolf (from LIT).
        "the_few_and_the_special": Theme("The Few and the Special!", 7, 8, the_few_and_the_special, _counted((0, 2))),
        # 1 Werewolf (from this expansion), 1 Werewolf (from LIT).
        "the_night_shift": Theme("The Night Shift", 8, 13, the_night_shift, _counted((0, 2))),
        # Lara, 1 Werewolf (from LIT) [with 8-15 players] or 2 Werewolves (from LIT) [with 16+].
        "the_evil_and_the_cure": Theme(
            "The Evil and the Cure", 9, 23, the_evil_and_the_cure, _counted((0, 2), (16, 3))
        ),
        # 1 Werewolf (from this expansion), 1 Werewolf (from LIT) [with 8-15] or 2 (from LIT) [with 16].
        "the_lovers_of_mystery": Theme(
            "The Lovers of Mystery", 12, 16, the_lovers_of_mystery, _counted((0, 2), (16, 3))
        ),
        # 1 Werewolf (from this expansion), 1 Werewolf (from LIT) [with 8-15] or 2 (from LIT) [with 16+].
        "nights_of_blood": Theme("Nights of Blood", 12, 23, nights_of_blood, _counted((0, 2), (16, 3)), _deadly_owl(0)),
        # Lara, 1 Werewolf (from LIT) [with 9-24] or 2 (from LIT) [with 25+], 1 Werewolf (from this
        # expansion) [with 16+].
        "different_factions_different_afterlives": Theme(
            "Different Factions, Different Afterlives",
            9,
            28,
            different_factions_different_afterlives,
            _counted((0, 2), (16, 3), (25, 4)),
            _deadly_owl(20),
        ),
        # Lara, 1 Werewolf (from this expansion), 1 Werewolf (from LIT) [with 16-24] or 2 (from LIT) [with 25+].
        "mythomania": Theme("Mythomania", 16, 30, mythomania, _counted((0, 3), (25, 4)), _deadly_owl(20)),
    }
)
