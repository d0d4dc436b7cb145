"""The two suspects of a day, as every rule set picks them (see RULINGS.md, Nominations).

The two most nominated are suspects; with fewer than two nominated, the rest are filled in
by the tie order around the table. Each rule set brings its own ranking and tie order (a
player in ``tabula``, a character's house in ``lupusburg``).
"""

from __future__ import annotations

from collections.abc import Container, Iterable


def two_suspects(ranked: Iterable[str], order: Iterable[str], alive: Container[str]) -> list[str]:
    """``ranked``: the nominated, most votes first, ties by the tie order; ``order``: the tie order."""
    out = [c for c in ranked if c in alive][:2]
    for c in order:
        if len(out) >= 2:
            break
        if c in alive and c not in out:
            out.append(c)
    return out
