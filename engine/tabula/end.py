"""The end of the game, checked after the night's deaths and after the lynching.

Humans win when no Werewolf lives; the Werewolves (with the Possessed, the Werecow) when
living Werewolves are at least as many as all other living characters (the Deadalive never
counts as living). Then the lone winners may take the game instead (the Werehamster,
Darius): each registers an override here, from its own module.
"""

from __future__ import annotations

from collections.abc import Callable

from ..types import Event, Outcome, Phase, Team
from .character import CHARACTERS, team_of
from .character import wolves as pack_of
from .state import TabulaState

#: (state, team, reason) -> (team, reason, lone winners) or None; applied in order.
Override = Callable[[TabulaState, Team, str], "tuple[Team, str, tuple[str, ...]] | None"]
OVERRIDES: list[Override] = []


def override(fn: Override) -> Override:
    OVERRIDES.append(fn)
    return fn


def counted_living(state: TabulaState) -> list[str]:
    """Living characters as the end of the game counts them."""
    return [p for p in state.living() if CHARACTERS[state.roles[p]].counts_living]


def check(state: TabulaState) -> Outcome | None:
    living = counted_living(state)
    members = pack_of(state)
    wolves = len(members.intersection(living))
    if wolves == 0:
        team, reason = Team.HUMANS, "end.werewolves_dead"
    elif wolves >= len(living) - wolves:
        team, reason = Team.WEREWOLVES, "end.werewolves_parity"
    else:
        return None
    alone: tuple[str, ...] = ()
    for fn in OVERRIDES:
        changed = fn(state, team, reason)
        if changed is not None:
            team, reason, alone = changed
    winners = alone or tuple(p for p in state.players if team_of(state, p) is team)
    return Outcome(team, winners, reason)


def finish(state: TabulaState, outcome: Outcome) -> tuple[TabulaState, list[Event]]:
    """The game is over: everything is revealed to everyone."""
    done = state.evolve(phase=Phase.OVER, outcome=outcome, choices={}, ballots={})
    roles = {p: state.roles[p].value for p in state.players}
    became = dict(state.marks.get("became", {}))
    ev = Event(
        "game.over",
        {
            "team": outcome.team.value,
            "winners": list(outcome.winners),
            "reason": outcome.reason,
            "roles": roles,
            "became": became,
        },
    )
    return done, [ev]
