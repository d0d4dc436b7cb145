"""How fast the engine plays complete random games, and how big a state is.

    .venv/bin/python bench/engine [--games N] [--players 24]

Target (issue 19): at least 200 complete random 24-player games a CPU second with all base
characters, and a serialized 24-player state under 16 KB. A game by message moves a few times a
minute, so 200 a second is far more than the service needs; the engine is written plainly (no
memo carried from state to state) as long as it stays above that.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import engine
from engine import GameConfig, Phase, RuleSet
from engine.playout import play_out

SPECIALS = [
    "seer",
    "medium",
    "possessed",
    "bodyguard",
    "owl_man",
    "freemason",
    "freemason",
    "werehamster",
    "mythomaniac",
]


def deck(n: int) -> tuple[str, ...]:
    """The base game's specials that fit, with the Werewolves the count takes (2, 3 from 16)."""
    specials = SPECIALS[: n - (3 if n >= 16 else 2)]
    if specials.count("freemason") == 1:  # they come as a pair
        specials.remove("freemason")
    return tuple(engine.complete_deck(specials, n))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--players", type=int, default=24)
    args = ap.parse_args()
    players = tuple(f"player{i:02d}" for i in range(args.players))
    config = GameConfig(RuleSet.TABULA, players, deck=deck(args.players))
    rnd = random.Random(1)
    biggest = 0
    phases = 0
    t0 = time.process_time()
    finished = 0
    for seed in range(args.games):
        state = play_out(config, seed, rnd)
        finished += state.phase is Phase.OVER
        phases += state.phase_no
        if seed % 50 == 0:
            biggest = max(biggest, len(engine.to_json(state).encode()))
    cpu = time.process_time() - t0
    # The state is largest at the end (knowledge only grows); measure a sample mid-game too.
    print(f"games: {args.games} ({finished} finished) of {args.players} players, {phases / args.games:.1f} phases each")
    print(f"engine: {args.games / cpu:.0f} complete random games per CPU second (target >= 200)")
    print(f"state: largest serialized {args.players}-player state sampled {biggest} bytes (target < 16384)")


if __name__ == "__main__":
    main()
