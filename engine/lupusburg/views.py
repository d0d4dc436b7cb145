"""The only way information leaves a Lupusburg game: what one player knows, what everyone
knows, what the Moderator knows.

A player's view is built from the public state, his own houses, cards, chest, bet and
choices, and what he has been told (``knowledge``: the Thief's looks, the privilege): nothing
else of the state is read, so two states that differ only in other players' secrets give
him the same view.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from ..types import Phase, Role
from ..viewing import LupusburgPlayerView, LupusburgPublicView, day_votes, ending, header
from . import scoring, voting
from .houses import SIDES, house
from .state import LupusburgState, _jsonable

if TYPE_CHECKING:
    from .rules import LupusburgRules


def public_view(state: LupusburgState) -> LupusburgPublicView:
    out = header(
        state.rules,
        state.phase,
        state.phase_no,
        state.day,
        state.night,
        state.players,
        state.living(),
        state.dead,
        state.lynched,
        state.players,
    )  # all may talk, dead or not
    out["burgomaster"] = state.burgomaster
    out["seals_used"] = [p for p in state.players if p in state.bets]
    out["privilege"] = state.privilege[0] if state.privilege is not None else None
    day_votes(
        out,
        state.phase,
        state.votes,
        voting.tally(state, [t for _, t in state.votes]),
        [p for p in state.players if voting.tokens_left(state, p) > 0],
        state.suspects,
        len(state.ballots),
    )
    over = state.phase is Phase.OVER and state.outcome is not None
    ending(out, state.outcome if over else None)
    if over and state.outcome is not None:
        out["scores"] = dict(state.outcome.scores or {})
        out.update(scoring.revealed(state))
        out["history"] = [_jsonable(n) for n in state.history]
    return cast(LupusburgPublicView, out)


def player_view(rules: LupusburgRules, state: LupusburgState, player: str) -> LupusburgPlayerView:
    if player not in state.players:
        raise KeyError(player)
    role = state.role_of(player)
    slot = {Role.WEREWOLF: "werewolf", Role.THIEF: "thief"}.get(role)
    choice = state.choices.get(slot) if slot else None
    out: dict[str, Any] = {
        "you": player,
        "role": role.value,
        "houses": {
            side: {
                "house": house(player, side),
                "card": state.cards[house(player, side)].value,
                "alive": house(player, side) in state.alive,
                "chest": state.chests[player] == side,
            }
            for side in SIDES
        },
        "knowledge": [dict(f) for f in state.knowledge.get(player, ())],
        "choice": [choice[0].value, choice[1]] if choice else None,
        "tokens_left": voting.tokens_left(state, player) if state.phase is Phase.NOMINATIONS else 0,
        "ballot": list(state.ballots.get(player, ())),
        "ballot_votes": voting.ballot_votes(state, player) if state.phase is Phase.BALLOT else 0,
        "bet": ({"target": state.bets[player][0], "coin": state.bets[player][1]} if player in state.bets else None),
        "draw": (
            {"target": state.draws[player][0], "coins": list(state.draws[player][1])} if player in state.draws else None
        ),
        "actions": [a.text() for a in rules.legal_actions(state, player)],
        "public": public_view(state),
    }
    return cast(LupusburgPlayerView, out)


def moderator_view(state: LupusburgState) -> dict[str, Any]:
    out: dict[str, Any] = dict(public_view(state))
    full = state.to_dict()
    for key in ("cards", "chests", "choices", "ballots", "bag", "draws", "bets", "knowledge", "history"):
        out[key] = full[key]
    # Each player's two characters, left house first, as the base game's ``roles`` names one card
    # (a host's ``end``, the moderator's ``status`` read it).
    out["roles"] = {p: [state.cards[house(p, side)].value for side in SIDES] for p in state.players}
    return out


def summary(state: LupusburgState) -> dict[str, Any]:
    """What ``lupus replay`` prints."""
    out: dict[str, Any] = {
        "status": "over" if state.phase is Phase.OVER else "running",
        "phase": state.phase.value,
        "day": state.day,
        "night": state.night,
        "phase_no": state.phase_no,
        "burgomaster": state.burgomaster,
        "alive": list(state.living()),
        "dead": list(state.dead),
        "lynched": list(state.lynched),
        "winners": list(state.outcome.winners) if state.outcome else [],
    }
    if state.outcome is not None:
        out["team"] = state.outcome.team.value
        out["roles"] = scoring.revealed(state)["roles"]
        out["scores"] = dict(state.outcome.scores or {})
    if state.phase is Phase.BALLOT:
        out["suspects"] = list(state.suspects)
    return out
