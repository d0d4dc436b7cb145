"""What every rule set's public view starts with, and how it ends, so that the service can
read any game the same way."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .types import Outcome, Phase, RuleSet


def header(rules: RuleSet, phase: Phase, phase_no: int, day: int, night: int,
           players: Sequence[str], alive: Sequence[str], dead: Sequence[str],
           lynched: Sequence[str], speakers: Sequence[str] | None = None) -> dict[str, Any]:
    """``speakers``: who may talk in the town square (default: the living; the rulebooks forbid
    Ghosts to speak, but a revealed Deadalive talks on, and in Lupusburg everybody does)."""
    return {
        "rules": rules.value,
        "status": "over" if phase is Phase.OVER else "running",
        "phase": phase.value,
        "phase_no": phase_no,
        "day": day,
        "night": night,
        "players": list(players),
        "alive": list(alive),
        "dead": list(dead),
        "lynched": list(lynched),
        "speakers": list(alive if speakers is None else speakers),
    }


def day_votes(out: dict[str, Any], phase: Phase, votes: Sequence[tuple[str, str]], tally: list[list[object]],
              waiting_for: Sequence[str], suspects: Sequence[str], ballots_cast: int) -> None:
    """The public side of the day: nominations in the open, only the count of secret ballots."""
    if phase is Phase.NOMINATIONS:
        out["votes"] = [list(v) for v in votes]
        out["tally"] = tally
        out["waiting_for"] = list(waiting_for)
    if phase is Phase.BALLOT:
        out["suspects"] = list(suspects)
        out["ballots_cast"] = ballots_cast


def ending(out: dict[str, Any], outcome: Outcome | None) -> None:
    if outcome is not None:
        out["winners"] = list(outcome.winners)
        out["team"] = outcome.team.value
        out["reason"] = outcome.reason
    else:
        out["winners"] = []
