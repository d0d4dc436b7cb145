"""Random legal play: robot players for property tests, benchmarks and the sandbox.

Pure like the rest of the engine: the caller hands in the generator.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from . import choices, close_phase, new_game
from .errors import IllegalAction
from .ruleset import GameState, rules_for
from .types import Action, Event, GameConfig, Phase

OnStep = Callable[[Action | None, GameState, list[Event]], None]


def random_moves(state: GameState, rnd: random.Random, eagerness: float = 0.9) -> list[Action]:
    """One random legal action for each player who can act, each with probability ``eagerness``:
    a verb drawn uniformly among his choices, then a target among its targets. A single choice
    is taken without a draw."""
    moves = []
    draw, choice, bits = rnd.random, rnd.choice, rnd.getrandbits
    exact = getattr(type(rnd), "_randbelow", None) is _WITH_BITS
    for p, options in choices(state):  # in seating order
        if draw() < eagerness:
            verb, targets = options[0] if len(options) == 1 else choice(options)
            n = len(targets)
            if n == 1:
                target = targets[0]
            elif exact:  # what choice(targets) draws, without its two Python-level calls
                k = n.bit_length()
                r = bits(k)
                while r >= n:
                    r = bits(k)
                target = targets[r]
            else:
                target = choice(targets)
            moves.append(Action(p, verb, target))
    return moves


_WITH_BITS = getattr(random.Random, "_randbelow_with_getrandbits", None)
"""How ``Random.choice`` draws an index (``getrandbits`` of the length's bit length until below
it). ``random_moves`` draws a target the same way itself: the bench's robots draw some 300 a
game, and the two calls of ``choice`` cost the engine bench about a twelfth of its rate. A
generator that draws otherwise is asked ``choice``."""


def play_phase(
    state: GameState, rnd: random.Random, eagerness: float = 0.9, on_step: OnStep | None = None
) -> GameState:
    """Random moves for one phase, then its close."""
    play = rules_for(state.rules).apply  # what engine.apply calls, asked once a phase
    for action in random_moves(state, rnd, eagerness):
        try:
            state, events = play(state, action)
        except IllegalAction:
            continue  # an earlier move this phase changed what is legal (a drawn coin, a spent token)
        if on_step:
            on_step(action, state, events)
    state, events = close_phase(state, state.phase_no)
    if on_step:
        on_step(None, state, events)
    return state


def play_out(
    config: GameConfig,
    seed: int,
    rnd: random.Random,
    max_phases: int = 1000,
    eagerness: float = 0.9,
    on_step: OnStep | None = None,
) -> GameState:
    """Play a whole game with random legal moves; returns the final state (over, or at ``max_phases``)."""
    state, events = new_game(config, seed)
    if on_step:
        on_step(None, state, events)
    for _ in range(max_phases):
        if state.phase is Phase.OVER:
            break
        state = play_phase(state, rnd, eagerness, on_step)
    return state
