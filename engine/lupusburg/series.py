"""A series: several Lupusburg games by the same players, scores added up.

The rulebook's note: play several games in a row adding the scores; a winning Werewolf
scores the number of players (already in each game's score table, see ``scoring``); every
player should start as the Burgomaster at least once, so the first Burgomaster passes
clockwise from game to game. Pure values and functions: the service stores the series and
creates each game from ``next_config``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidSetup
from ..types import GameConfig, Outcome, RuleSet
from .setup import check_count, check_names


@dataclass(frozen=True)
class Series:
    players: tuple[str, ...]
    """The seating, clockwise, the same for every game."""
    games: tuple[Mapping[str, int], ...] = ()
    """Each finished game's score table, in order."""

    @property
    def totals(self) -> dict[str, int]:
        return {p: sum(g[p] for g in self.games) for p in self.players}

    def to_dict(self) -> dict[str, Any]:
        return {"players": list(self.players), "games": [{p: g[p] for p in self.players} for g in self.games]}

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> Series:
        games = tuple({p: int(n) for p, n in g.items()} for g in raw.get("games", []))
        return cls(tuple(raw["players"]), games)


def start(players: Sequence[str]) -> Series:
    check_names(players)
    check_count(len(players))
    return Series(tuple(players))


def next_burgomaster(series: Series) -> str:
    """The first Burgomaster of the next game: the first seat, then clockwise game by game."""
    return series.players[len(series.games) % len(series.players)]


def next_config(
    series: Series, roles: Mapping[str, Any] | None = None, options: Mapping[str, Any] | None = None
) -> GameConfig:
    opts = dict(options or {})
    opts["burgomaster"] = next_burgomaster(series)
    return GameConfig(RuleSet.LUPUSBURG, series.players, roles, options=opts)


def add(series: Series, outcome: Outcome) -> Series:
    """The series after one more finished game."""
    scores = outcome.scores
    if scores is None or set(scores) != set(series.players):
        raise InvalidSetup("series.players", "a series adds up games played by the same players")
    return Series(series.players, (*series.games, {p: int(scores[p]) for p in series.players}))


def leaders(series: Series) -> tuple[str, ...]:
    """The players with the highest total (all of them when tied)."""
    totals = series.totals
    best = max(totals.values())
    return tuple(p for p in series.players if totals[p] == best)
