"""A Lupusburg series in the service: the games a host chains with ``again``.

The series itself is the engine's (``engine.lupusburg.series``): the seating, the first
Burgomaster of each game, the totals. The service only keeps it: the next game's ``setup``
holds ``series``, the series as it stood before that game (the seating and each finished
game's score table), so that the game is created from ``series.next_config`` and, when it
ends, the totals are the engine's ``series.add`` of its outcome. A game with no ``series`` in
its setup (the first one) starts a series of its own when it is rematched.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import engine
from engine import GameConfig, GameState, RuleSet
from engine.lupusburg import series as engine_series
from engine.lupusburg.series import Series
from service.store.models import Game
from service.store.status import GameStatus
from service.texts import render

KEY = "series"
"""Where a game's setup keeps the series it continues."""
GAME_ONLY_OPTIONS = ("burgomaster", "chests")
"""Engine options that belong to one game's deal, not to the series."""


def is_series(game: Game) -> bool:
    return game.rules == RuleSet.LUPUSBURG.value


def before(game: Game, players: Sequence[str]) -> Series | None:
    """The series the game continues, if it was stored and is played by the same players."""
    raw = game.setup.get(KEY)
    if not raw or set(raw.get("players", ())) != set(players):
        return None
    return Series.from_dict(raw)


def after(game: Game, state: GameState) -> Series:
    """The series once ``game`` is over: its score table added when the rules ended it (a game a
    host ended has no scores and does not count, so its first Burgomaster starts the next one)."""
    s = before(game, state.players) or engine_series.start(state.players)
    result = engine.outcome(state)
    if game.status == GameStatus.OVER and result is not None and result.scores is not None:
        s = engine_series.add(s, result)
    return s


def config(game: Game, players: Sequence[str]) -> GameConfig | None:
    """The next game of the series (the engine's seating and first Burgomaster), or None when
    the game continues no series or other players are in the lobby (then it starts a new one)."""
    s = before(game, players) if is_series(game) else None
    if s is None:
        return None
    options = {k: v for k, v in dict(game.setup.get("options", {})).items() if k not in GAME_ONLY_OPTIONS}
    return engine_series.next_config(s, options=options)


def setup_for_next(game: Game, state: GameState) -> dict[str, Any]:
    """What the next game's setup carries of the series (nothing outside Lupusburg)."""
    return {KEY: after(game, state).to_dict()} if is_series(game) else {}


class Ended(Protocol):
    """What the totals need of the game that ended (a ``service.game.room.Room``, which calls
    ``tell_totals``: named here so that this module need not import it back)."""

    game: Game
    state: GameState | None

    def broadcast(self, key: str, data: Mapping[str, Any]) -> int: ...


def tell_totals(room: Ended) -> None:
    """At the end of a game that continues a series, everyone learns the totals so far."""
    game, state = room.game, room.state
    if state is None or not is_series(game) or before(game, state.players) is None:
        return
    s = after(game, state)
    totals = s.totals
    room.broadcast(
        "svc.series.totals",
        {
            "count": len(s.games),
            "totals": render.counts([(p, totals[p]) for p in s.players]),
            "leaders": ", ".join(engine_series.leaders(s)),
        },
    )
