"""The order around the table, which breaks every tie.

Counting starts with the player after the reference and ends with the reference himself:
in ``tabula`` the "Welcome!" holder (before anyone holds it, counting starts at the first
seat); in ``aura`` the character marked by the Werewolf Claw that night, if any.
"""

from __future__ import annotations

from .state import TabulaState


def reference(state: TabulaState) -> str | None:
    claw = state.marks.get("claw")
    return claw if claw else state.welcome


def tie_order(state: TabulaState) -> tuple[str, ...]:
    players = state.players
    ref = reference(state)
    if ref is None:
        return players
    i = players.index(ref)
    return players[i + 1 :] + players[: i + 1]


def told(state: TabulaState) -> dict[str, str]:
    """The tie order as a tie's text names it (``payloads.TieOrder``): from whom it is counted."""
    claw, first = state.marks.get("claw"), tie_order(state)[0]
    if claw:
        return {"by": "claw", "player": claw, "first": first}
    if state.welcome is not None:
        return {"by": "welcome", "player": state.welcome, "first": first}
    return {"by": "seat", "player": first, "first": first}


def tie_rank(state: TabulaState) -> dict[str, int]:
    """Each player's place in the tie order."""
    return {p: i for i, p in enumerate(tie_order(state))}


def first_in_order(state: TabulaState, candidates: list[str] | set[str] | tuple[str, ...]) -> str:
    return min(candidates, key=tie_rank(state).__getitem__)
