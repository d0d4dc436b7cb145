"""The contract every rule set fulfils, and the registry that picks one by name.

A rule set owns its state type; the engine's surface (``engine.apply`` and friends)
only dispatches on ``state.rules``. Adding a rule set touches its own package and one
``register`` call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from .errors import InvalidSetup
from .types import Action, Event, GameConfig, Outcome, Phase, RuleSet
from .viewing import PlayerView, PublicView


class GameState(Protocol):
    """What every rule set's state offers (each state is an immutable dataclass)."""

    @property
    def rules(self) -> RuleSet: ...
    @property
    def seed(self) -> int: ...
    @property
    def players(self) -> tuple[str, ...]: ...
    @property
    def phase(self) -> Phase: ...
    @property
    def phase_no(self) -> int: ...
    @property
    def day(self) -> int: ...

    def to_dict(self) -> dict[str, Any]: ...


class Rules(Protocol):
    name: RuleSet

    def new_game(self, config: GameConfig, seed: int) -> tuple[GameState, list[Event]]: ...
    def actors(self, state: Any) -> tuple[str, ...]: ...
    def legal_actions(self, state: Any, player: str) -> list[Action]: ...
    def apply(self, state: Any, action: Action) -> tuple[GameState, list[Event]]: ...
    def close_phase(self, state: Any) -> tuple[GameState, list[Event]]: ...
    def outcome(self, state: Any) -> Outcome | None: ...
    def view(self, state: Any, player: str) -> PlayerView: ...
    def public_view(self, state: Any) -> PublicView: ...
    def moderator_view(self, state: Any) -> dict[str, Any]: ...
    def summary(self, state: Any) -> dict[str, Any]: ...
    def from_dict(self, raw: Mapping[str, Any]) -> GameState: ...
    def parse_target(self, state: Any, text: str) -> str: ...


_REGISTRY: dict[RuleSet, Rules] = {}


def register(rules: Rules) -> None:
    _REGISTRY[rules.name] = rules


def rules_for(name: RuleSet | str) -> Rules:
    found = _REGISTRY.get(name)  # type: ignore[arg-type]  # a str hashes as its StrEnum member
    if found is not None:
        return found
    try:
        key = RuleSet(name)
    except ValueError:
        known = ", ".join(r.value for r in RuleSet)
        raise InvalidSetup(
            "setup.unknown_rules", f"unknown rule set {name!r} (known: {known})", rules=str(name)
        ) from None
    if key not in _REGISTRY:
        raise InvalidSetup("setup.rules_unavailable", f"the rule set {key.value} is not available yet", rules=key.value)
    return _REGISTRY[key]
