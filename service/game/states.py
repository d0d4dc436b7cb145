"""The engine states this process last read or wrote, by their JSON: a state is an immutable value,
so the next command on a game finds the one the previous command saved without parsing it again."""

from __future__ import annotations

import threading
from collections import OrderedDict

import engine
from engine import GameState

_STATES: OrderedDict[str, GameState] = OrderedDict()
_STATES_KEPT = 256
_STATES_LOCK = threading.Lock()  # commands run in a thread pool


def load(text: str) -> GameState:
    """The state saved as ``text``, parsed once per process while it is among the last few."""
    with _STATES_LOCK:
        state = _STATES.get(text)
        if state is not None:
            _STATES.move_to_end(text)
            return state
    state = engine.from_json(text)
    _keep(text, state)
    return state


def save(state: GameState) -> str:
    """``state`` as JSON to store, kept so that the next command on the game need not parse it."""
    text = engine.to_json(state)
    _keep(text, state)
    return text


def _keep(text: str, state: GameState) -> None:
    with _STATES_LOCK:
        _STATES[text] = state
        if len(_STATES) > _STATES_KEPT:
            _STATES.popitem(last=False)
