"""The game's only source of chance: a generator derived from the seed and a purpose.

Deriving a fresh generator for each decision (instead of keeping one generator's internal
state) keeps the state small and JSON-friendly, and makes every draw reproducible from the
game record alone.
"""

from __future__ import annotations

import random


def rng(seed: int, *purpose: object) -> random.Random:
    return random.Random(f"{seed}|" + "|".join(str(p) for p in purpose))
