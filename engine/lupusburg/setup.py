"""Setting up a Lupusburg game: the deck, the deal with its redeal rule, houses and chests,
the bag of coins and the first Burgomaster.

Deck: 1 Werewolf, 1 Thief and 2 x players - 2 Townsfolk, two cards to each player; if one
player gets both the Werewolf and the Thief, the cards are dealt again. Each player's chest
is under one of his two houses, chosen at random; the Werewolf and the Thief are never
placed under the chest house. A game record may fix the cards (``roles: {ann: [werewolf,
townsfolk]}``, left house first), the chests (``options: {chests: {ann: right}}``) and the
first Burgomaster (``options: {burgomaster: ann}``, else the first seat).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import InvalidSetup
from ..rng import rng
from ..types import Role
from .houses import LEFT, RIGHT, SIDE_WORDS, SIDES, find_player, house, other_side

MIN_PLAYERS = 4
MAX_PLAYERS = 8
#: The published rulebook's coins, highest first.
COINS = (8, 7, 6, 5, 4, 3, 2, 2)
SPECIAL = (Role.WEREWOLF, Role.THIEF)


def check_count(n: int) -> None:
    if n < MIN_PLAYERS:
        raise InvalidSetup(
            "setup.too_few",
            f"Lupusburg needs at least {MIN_PLAYERS} players (there are {n})",
            minimum=MIN_PLAYERS,
            count=n,
        )
    if n > MAX_PLAYERS:
        raise InvalidSetup(
            "setup.too_many",
            f"Lupusburg takes at most {MAX_PLAYERS} players (there are {n})",
            maximum=MAX_PLAYERS,
            count=n,
        )


def check_names(players: Sequence[str]) -> None:
    if len({p.casefold() for p in players}) != len(players):
        raise InvalidSetup("setup.duplicate_name", "two players have the same name")
    for p in players:
        if not p or any(c.isspace() for c in p) or ":" in p or p.startswith("#") or p.casefold() in SIDE_WORDS:
            raise InvalidSetup(
                "setup.bad_name", f"{p!r} cannot be a player's name (one word, no ':' or '#', not a side)", name=p
            )


def default_deck(n: int) -> list[Role]:
    return [Role.WEREWOLF, Role.THIEF] + [Role.TOWNSFOLK] * (2 * n - 2)


def first_burgomaster(players: Sequence[str], options: Mapping[str, Any]) -> str:
    wanted = options.get("burgomaster")
    if wanted is None:
        return players[0]
    found = find_player(players, str(wanted))
    if found is None:
        raise InvalidSetup("setup.bad_burgomaster", f"the Burgomaster {wanted!r} is not playing", name=str(wanted))
    return found


def deal(
    players: Sequence[str], roles: Mapping[str, Any] | None, options: Mapping[str, Any], seed: int
) -> tuple[dict[str, Role], dict[str, str]]:
    """The card under each house and each player's chest side."""
    check_count(len(players))
    chests = _given_chests(players, options.get("chests"))
    pairs = _fixed_pairs(players, roles) if roles else _dealt_pairs(players, seed)
    cards: dict[str, Role] = {}
    out_chests: dict[str, str] = {}
    for p in players:
        pair = pairs[p]
        special = [i for i, r in enumerate(pair) if r in SPECIAL]
        chest = chests.get(p)
        if roles:
            # The record placed the cards: the chest must be under the Townsfolk, or is put there.
            if special:
                forced = SIDES[1 - special[0]]
                if chest is not None and chest != forced:
                    raise InvalidSetup(
                        "setup.chest_on_special", f"{p}'s chest cannot be under the {pair[special[0]].value}", player=p
                    )
                chest = forced
            if chest is None:
                chest = rng(seed, "chest", p).choice(SIDES)
            cards[house(p, LEFT)], cards[house(p, RIGHT)] = pair
        else:
            if chest is None:
                chest = rng(seed, "chest", p).choice(SIDES)
            # The player places his cards: a Werewolf or Thief goes under the house without the chest.
            ordered = sorted(pair, key=lambda r: r not in SPECIAL)
            cards[house(p, other_side(chest))], cards[house(p, chest)] = ordered
        out_chests[p] = chest
    return cards, out_chests


def _given_chests(players: Sequence[str], raw: Any) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise InvalidSetup("setup.bad_chests", "chests must map players to a side: {ann: right, ...}")
    out = {}
    for name, side in raw.items():
        p = find_player(players, str(name))
        s = SIDE_WORDS.get(str(side).strip().casefold())
        if p is None:
            raise InvalidSetup("setup.bad_chests", f"chests: {name!r} is not playing", name=str(name))
        if s is None:
            raise InvalidSetup("setup.bad_chests", f"chests: {side!r} is not a side (left or right)", side=str(side))
        out[p] = s
    return out


def _fixed_pairs(players: Sequence[str], roles: Mapping[str, Any]) -> dict[str, tuple[Role, Role]]:
    missing = [p for p in players if p not in roles]
    extra = [p for p in roles if p not in players]
    if missing or extra:
        raise InvalidSetup(
            "setup.roles_mismatch", f"roles must name every player once (missing: {missing}, unknown: {extra})"
        )
    out: dict[str, tuple[Role, Role]] = {}
    for p in players:
        given = roles[p]
        if isinstance(given, str) or not isinstance(given, Sequence) or len(given) != 2:
            raise InvalidSetup("setup.two_cards", f"{p} needs two characters: [left, right]", player=p)
        try:
            left, right = (Role(str(r).strip().lower()) for r in given)
        except ValueError:
            raise InvalidSetup(
                "setup.unknown_role", f"{p}: {list(given)} are not Lupusburg characters", player=p
            ) from None
        if {left, right} == set(SPECIAL):
            raise InvalidSetup("setup.both_special", f"{p} cannot have both {left.value} and {right.value}", player=p)
        out[p] = (left, right)
    counts = Counter(r for pair in out.values() for r in pair)
    if counts != Counter(default_deck(len(players))) or set(counts) - {*SPECIAL, Role.TOWNSFOLK}:
        raise InvalidSetup(
            "setup.deck",
            "Lupusburg's deck is 1 Werewolf, 1 Thief and Townsfolk for the rest",
            deck={r.value: k for r, k in counts.items()},
        )
    return out


def _dealt_pairs(players: Sequence[str], seed: int) -> dict[str, tuple[Role, Role]]:
    cards = default_deck(len(players))
    for attempt in itertools.count():
        shuffled = list(cards)
        rng(seed, "deal", attempt).shuffle(shuffled)
        pairs = {p: (shuffled[2 * i], shuffled[2 * i + 1]) for i, p in enumerate(players)}
        if not any(set(pair) == set(SPECIAL) for pair in pairs.values()):
            return pairs
    raise AssertionError("unreachable")  # pragma: no cover
