"""The rules engine: a pure, deterministic transition function for Lupus in Tabula,
its expansion's Aura variant, and Lupusburg.

The surface is small and fixed::

    state, events = new_game(config, seed)
    legal_actions(state, player)  -> [Action]
    actors(state)                 -> players who may act now
    choices(state)                -> each of them with his legal choices (at once)
    state, events = apply(state, action)          # or IllegalAction(reason)
    state, events = close_phase(state, phase_no)  # a stale phase_no changes nothing
    outcome(state)                -> Outcome | None
    view(state, player), public_view(state), moderator_view(state)
    to_json(state), from_json(text)

No I/O, no clock, no environment: chance comes from the seed kept in the state.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from . import rulesets as _rulesets
from .errors import IllegalAction, InvalidSetup, LupusError
from .notation import parse_move
from .ruleset import GameState, rules_for
from .types import Action, Event, GameConfig, Outcome, Phase, Role, RuleSet, Team, Verb
from .viewing import PlayerView, PublicView

_ = _rulesets

__all__ = [
    "Action",
    "Event",
    "GameConfig",
    "GameState",
    "IllegalAction",
    "InvalidSetup",
    "LupusError",
    "Outcome",
    "Phase",
    "PlayerView",
    "PublicView",
    "Role",
    "RuleSet",
    "Team",
    "Verb",
    "actors",
    "apply",
    "choices",
    "close_phase",
    "complete_deck",
    "dealt_deck",
    "from_dict",
    "from_json",
    "legal_actions",
    "legal_choices",
    "moderator_view",
    "new_game",
    "outcome",
    "parse_move",
    "player_range",
    "public_view",
    "summary",
    "theme_key",
    "themes",
    "to_json",
    "view",
]


def themes() -> list[str]:
    """The themes' keys (``nights_of_blood``), as a record or a host names them."""
    from .tabula.deck import THEMES

    return sorted(THEMES)


def theme_key(name: str) -> str:
    """The key of the theme ``name`` names (its printed title or key), or ``InvalidSetup``."""
    from .tabula.deck import theme_named

    return theme_named(name)[0]


def player_range(rules: RuleSet | str, theme: str | None = None) -> tuple[int, int]:
    """The fewest and the most players a game of these rules (and theme, in ``tabula``) takes."""
    name = rules_for(rules).name
    if name is RuleSet.LUPUSBURG:
        from .lupusburg import setup

        return setup.MIN_PLAYERS, setup.MAX_PLAYERS
    if name is RuleSet.AURA:
        from .tabula import aura_rules

        return aura_rules.MIN_PLAYERS, aura_rules.MAX_PLAYERS
    from .tabula import deck

    if theme is not None:
        t = deck.theme_named(theme)[1]
        return t.lo, t.hi
    return deck.MIN_PLAYERS, deck.MAX_PLAYERS


def complete_deck(specials: Sequence[str], players: int) -> list[str]:
    """A ``tabula`` host's chosen characters made a deck for ``players``: the Werewolves the count
    takes are added (two, three from 16; Lara and any Werewolf named count among them) and
    Villagers fill the rest. Not checked: ``new_game`` refuses what still does not fit."""
    from .tabula import deck

    return deck.complete(specials, players)


def dealt_deck(
    rules: RuleSet | str, players: int, deck: Sequence[str] | None = None, theme: str | None = None, seed: int = 0
) -> dict[str, Any]:
    """What everyone would be told of the deck if a game of ``players`` started now with this
    ``deck`` (every card) or ``theme`` and ``seed``: the ``game.started`` event's ``deck`` (and
    ``three_of``, for the Aura variant's four); ``InvalidSetup``, saying why, if it cannot be dealt."""
    names = tuple(f"p{i}" for i in range(1, players + 1))
    config = GameConfig(RuleSet(rules_for(rules).name), names, deck=tuple(deck) if deck else None, theme=theme)
    _, events = new_game(config, seed)
    started = next(e.data for e in events if e.key == "game.started")
    return {k: started[k] for k in ("deck", "three_of") if k in started}


def new_game(config: GameConfig, seed: int) -> tuple[GameState, list[Event]]:
    return rules_for(config.rules).new_game(config, seed)


def legal_actions(state: GameState, player: str) -> list[Action]:
    return rules_for(state.rules).legal_actions(state, player)


def legal_choices(state: GameState, player: str) -> list[tuple[Verb, tuple[str | None, ...]]]:
    """``legal_actions`` grouped by verb: each verb with its targets (cheaper to ask)."""
    rules = rules_for(state.rules)
    grouped = getattr(rules, "legal_choices", None)
    if grouped is not None:
        return grouped(state, player)  # type: ignore[no-any-return]
    by_verb: dict[Verb, list[str | None]] = {}
    for a in rules.legal_actions(state, player):
        by_verb.setdefault(a.verb, []).append(a.target)
    return [(v, tuple(ts)) for v, ts in by_verb.items()]


def actors(state: GameState) -> tuple[str, ...]:
    return rules_for(state.rules).actors(state)


Choices = tuple[tuple[Verb, tuple[str | None, ...]], ...]


def choices(state: GameState) -> tuple[tuple[str, Choices], ...]:
    """Every player who may act now (as ``actors``, in its order) with what he may do
    (``legal_choices``, never empty): one question for the whole table, as a robot player or a
    reminder asks it, instead of one per player."""
    rules = rules_for(state.rules)
    answer = getattr(rules, "choices", None)
    if answer is not None:
        return answer(state)  # type: ignore[no-any-return]
    out = []
    for p in rules.actors(state):
        found = legal_choices(state, p)
        if found:
            out.append((p, tuple(found)))
    return tuple(out)


def apply(state: GameState, action: Action) -> tuple[GameState, list[Event]]:
    return rules_for(state.rules).apply(state, action)


def close_phase(state: GameState, phase_no: int | None = None) -> tuple[GameState, list[Event]]:
    """Close the current phase (its deadline passed). A ``phase_no`` that is not the current
    phase's is stale: nothing changes, so a deadline delivered twice acts once."""
    if phase_no is not None and phase_no != state.phase_no:
        return state, []
    if state.phase is Phase.OVER:
        return state, []
    return rules_for(state.rules).close_phase(state)


def outcome(state: GameState) -> Outcome | None:
    return rules_for(state.rules).outcome(state)


def view(state: GameState, player: str) -> PlayerView:
    return rules_for(state.rules).view(state, player)


def public_view(state: GameState) -> PublicView:
    return rules_for(state.rules).public_view(state)


def moderator_view(state: GameState) -> dict[str, Any]:
    return rules_for(state.rules).moderator_view(state)


def summary(state: GameState) -> dict[str, Any]:
    return rules_for(state.rules).summary(state)


def parse_target(state: GameState, text: str) -> str:
    return rules_for(state.rules).parse_target(state, text)


def to_json(state: GameState) -> str:
    return json.dumps(state.to_dict(), separators=(",", ":"), ensure_ascii=False)


def from_dict(raw: Mapping[str, Any]) -> GameState:
    return rules_for(raw["rules"]).from_dict(raw)


def from_json(text: str) -> GameState:
    return from_dict(json.loads(text))
