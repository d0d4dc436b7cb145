"""The only way information leaves a ``tabula`` game: what one player knows, what
everyone knows, what the Moderator knows.

A player's view is built from the public state, his own card, his own choices and what he
has been told (``knowledge``): nothing else of the state is read, so two states that
differ only in other players' secrets give him the same view.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..types import Phase
from . import day
from .state import TabulaState, jsonable

if TYPE_CHECKING:
    from .rules import TabulaRules


#: Tiles on the table, in front of a character for everyone to see.
TOKENS = ("skull", "portrait", "claw")


def public_view(state: TabulaState) -> dict[str, Any]:
    over = state.phase is Phase.OVER
    out: dict[str, Any] = {
        "rules": state.rules.value,
        "status": "over" if over else "running",
        "phase": state.phase.value,
        "phase_no": state.phase_no,
        "day": state.day,
        "night": state.night,
        "players": list(state.players),
        "alive": list(state.living()),
        "dead": list(state.dead),
        "lynched": list(state.lynched),
        "welcome": state.welcome,
        "revealed": {p: r for p, r in state.marks.get("revealed", {}).items()},
        "tokens": {k: state.marks[k] for k in TOKENS if k in state.marks},
    }
    if state.phase is Phase.NOMINATIONS:
        out["votes"] = [list(v) for v in state.votes]
        out["tally"] = day.tally([t for _, t in state.votes], state)
        out["waiting_for"] = list(day.nomination_voters(state))
    if state.phase is Phase.BALLOT:
        out["suspects"] = list(state.suspects)
        out["ballots_cast"] = len(state.ballots)
    if over and state.outcome is not None:
        out["winners"] = list(state.outcome.winners)
        out["team"] = state.outcome.team.value
        out["reason"] = state.outcome.reason
        out["roles"] = {p: state.roles[p].value for p in state.players}
    else:
        out["winners"] = []
    return out


def player_view(rules: TabulaRules, state: TabulaState, player: str) -> dict[str, Any]:
    if player not in state.roles:
        raise KeyError(player)
    mine = {slot.split(":")[0]: [verb.value, target] for slot, (verb, target) in state.choices.items()
            if slot.endswith(":" + player)}
    shared = {slot.split(":")[0] + (":" + slot.split(":")[1] if ":" in slot else ""): [v.value, t]
              for slot, (v, t) in state.choices.items() if slot in _shared_slots(state, player)}
    out = {
        "you": player,
        "role": state.roles[player].value,
        "alive": player in state.alive,
        "knowledge": [jsonable(f) for f in state.knowledge.get(player, ())],
        "choices": {**mine, **shared},
        "ballot": state.ballots.get(player),
        "actions": [a.text() for a in rules.legal_actions(state, player)],
        "public": rules.public_view(state),
    }
    became = state.marks.get("became", {}).get(player)
    if became:
        out["became"] = became
    return out


def _shared_slots(state: TabulaState, player: str) -> set[str]:
    from .character import powers_of

    slots = {pw.slot for pw in powers_of(state, player) if "{actor}" not in pw.slot}
    if any(pw.slot == "pack:{actor}" for pw in powers_of(state, player)):
        slots |= {s for s in state.choices if s.startswith("pack:")}
    return slots


def moderator_view(state: TabulaState) -> dict[str, Any]:
    out = public_view(state)
    out["roles"] = {p: state.roles[p].value for p in state.players}
    out["choices"] = {k: [v.value, t] for k, (v, t) in state.choices.items()}
    out["ballots"] = dict(state.ballots)
    out["marks"] = jsonable(state.marks)
    return out


def summary(state: TabulaState) -> dict[str, Any]:
    """What ``lupus replay`` prints."""
    pv = public_view(state)
    out = {
        "status": pv["status"],
        "phase": pv["phase"],
        "day": state.day,
        "night": state.night,
        "phase_no": state.phase_no,
        "alive": pv["alive"],
        "dead": pv["dead"],
        "lynched": pv["lynched"],
        "winners": pv["winners"],
    }
    if state.outcome is not None:
        out["team"] = state.outcome.team.value
        out["roles"] = pv["roles"]
    if state.phase is Phase.BALLOT:
        out["suspects"] = list(state.suspects)
    return out
