"""Houses: the unit that lives, dies, is voted on and is lynched in Lupusburg.

Each player owns two houses, named ``ann:left`` and ``ann:right`` (also typed ``ann:1`` and
``ann:2``). By message the houses have no geometry, so the counting around the table that
breaks ties goes player by player clockwise and, within a player, left (1) before right (2).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

LEFT = "left"
RIGHT = "right"
SIDES = (LEFT, RIGHT)
#: What a player may type for a side.
SIDE_WORDS = {"left": LEFT, "1": LEFT, "l": LEFT, "right": RIGHT, "2": RIGHT, "r": RIGHT}


def house(player: str, side: str) -> str:
    return f"{player}:{side}"


def owner(h: str) -> str:
    return h.rsplit(":", 1)[0]


def side_of(h: str) -> str:
    return h.rsplit(":", 1)[1]


def other_side(side: str) -> str:
    return RIGHT if side == LEFT else LEFT


def houses_of(player: str) -> tuple[str, str]:
    return house(player, LEFT), house(player, RIGHT)


def all_houses(players: Iterable[str]) -> tuple[str, ...]:
    return tuple(h for p in players for h in houses_of(p))


def seats_from(players: Sequence[str], first: str) -> tuple[str, ...]:
    """The players clockwise, starting with ``first`` himself (Lupusburg counts from the Burgomaster)."""
    i = list(players).index(first)
    return tuple(players[i:]) + tuple(players[:i])


def houses_from(players: Sequence[str], first: str) -> tuple[str, ...]:
    return all_houses(seats_from(players, first))


def find_player(players: Iterable[str], text: str) -> str | None:
    folded = text.casefold()
    for p in players:
        if p.casefold() == folded:
            return p
    return None


def parse(players: Sequence[str], text: str) -> str:
    """Canonical form of what a player typed: a player's name, a house ``ann:left``, or a side.

    Anything not understood comes back unchanged, so that the rules can say what is wrong with it.
    """
    t = text.strip()
    p = find_player(players, t)
    if p is not None:
        return p
    if ":" in t:
        name, word = t.rsplit(":", 1)
        p = find_player(players, name)
        side = SIDE_WORDS.get(word.casefold())
        if p is not None and side is not None:
            return house(p, side)
        return t
    # A bare "1" or "2" stays as typed: it may be a coin's value; ``show`` reads it as a side.
    return t.casefold() if t.casefold() in SIDES else t


def is_house(players: Sequence[str], text: str) -> bool:
    return ":" in text and owner(text) in players and side_of(text) in SIDES
