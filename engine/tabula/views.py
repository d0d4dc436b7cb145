"""The only way information leaves a ``tabula`` game: what one player knows, what
everyone knows, what the Moderator knows.

A player's view is built from the public state, his own card, his own choices and what he
has been told (``knowledge``): nothing else of the state is read, so two states that
differ only in other players' secrets give him the same view.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from ..types import Phase
from ..viewing import TabulaPlayerView, TabulaPublicView, day_votes, ending, header
from . import day
from .characters.deadalive import WALKING
from .state import TabulaState, jsonable
from .table import HISTORY

if TYPE_CHECKING:
    from .rules import TabulaRules


#: Tiles on the table, in front of a character for everyone to see.
TOKENS = ("skull", "portrait", "claw")


def public_view(state: TabulaState) -> TabulaPublicView:
    living = state.living()
    walking = [p for p in state.marks.get(WALKING, ()) if p not in living]  # a revealed Deadalive talks on
    out = header(
        state.rules,
        state.phase,
        state.phase_no,
        state.day,
        state.night,
        state.players,
        living,
        state.dead,
        state.lynched,
        [p for p in state.players if p in living or p in walking],
    )
    out["welcome"] = state.welcome
    out["revealed"] = dict(state.marks.get("revealed", {}))
    out["tokens"] = {k: state.marks[k] for k in TOKENS if k in state.marks}
    day_votes(
        out,
        state.phase,
        state.votes,
        day.tally([t for _, t in state.votes], state),
        day.nomination_voters(state),
        state.suspects,
        len(state.ballots),
    )
    over = state.phase is Phase.OVER and state.outcome is not None
    ending(out, state.outcome if over else None)
    if over:
        out["roles"] = {p: state.roles[p].value for p in state.players}
        out["history"] = jsonable(state.marks.get(HISTORY, ()))
    return cast(TabulaPublicView, out)


def player_view(rules: TabulaRules, state: TabulaState, player: str) -> TabulaPlayerView:
    if player not in state.roles:
        raise KeyError(player)
    mine = {
        slot.split(":")[0]: [verb.value, target]
        for slot, (verb, target) in state.choices.items()
        if slot.endswith(":" + player)
    }
    shared = {
        slot.split(":")[0] + (":" + slot.split(":")[1] if ":" in slot else ""): [v.value, t]
        for slot, (v, t) in state.choices.items()
        if slot in _shared_slots(state, player)
    }
    out: dict[str, Any] = {
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
    # Shown once he was told it (a Mythomaniac the deadly Owl-man took at that dawn never was:
    # a Ghost learns nothing of the card he copied) or once the game is over.
    if became and (
        state.phase is Phase.OVER
        or any(str(f.get("key", "")).startswith("mythomaniac.joined") for f in state.knowledge.get(player, ()))
    ):
        out["became"] = became
    return cast(TabulaPlayerView, out)


def _shared_slots(state: TabulaState, player: str) -> set[str]:
    from .character import powers_of

    slots = {pw.slot for pw in powers_of(state, player) if "{actor}" not in pw.slot}
    if any(pw.slot == "pack:{actor}" for pw in powers_of(state, player)):
        slots |= {s for s in state.choices if s.startswith("pack:")}
    return slots


def moderator_view(state: TabulaState) -> dict[str, Any]:
    out: dict[str, Any] = dict(public_view(state))
    out["roles"] = {p: state.roles[p].value for p in state.players}
    out["choices"] = {k: [v.value, t] for k, (v, t) in state.choices.items()}
    out["ballots"] = dict(state.ballots)
    out["marks"] = jsonable(state.marks)
    out["history"] = jsonable(state.marks.get(HISTORY, ()))
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
