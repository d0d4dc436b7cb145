"""The phases of ``tabula`` (and of ``aura``, which plays the same ones) as data: the night,
the day's nominations, the ballot, and round again (the rulebook's "The game", RULINGS.md's
Night and Nominations). ``engine/phases.py`` walks this table.

What the characters do at night is not listed here: each power says itself in which phases it
acts (``character.Power.phases``), and each night step its place in the order (``night_step``),
beside its character.
"""

from __future__ import annotations

from typing import Any

from ..phases import Move, PhaseRule
from ..types import Event, Phase, Verb
from . import day, end, night
from .state import TabulaState
from .table import Table

State = TabulaState
Result = tuple[TabulaState, list[Event]]

FRESH: dict[str, Any] = {"choices": {}, "votes": (), "ballots": {}, "suspects": ()}
"""Nothing chosen, nominated or balloted yet."""


def _night_begins(s: State) -> tuple[dict[str, Any], list[Event]]:
    return {"night": s.night + 1, **FRESH}, [Event("phase.night", {"night": s.night + 1})]


def _day_begins(s: State) -> tuple[dict[str, Any], list[Event]]:
    return {"day": s.day + 1, **FRESH}, [Event("phase.nominations", {"day": s.day + 1})]


def _ballot_begins(s: State) -> tuple[dict[str, Any], list[Event]]:
    """With the two suspects the nominations named; the Owl-man's choice is spent."""
    marks = {k: v for k, v in s.marks.items() if k != day.OWL}
    return {"ballots": {}, "marks": marks}, [Event("phase.ballot", {"day": s.day, "suspects": list(s.suspects)})]


def _lynch(state: State) -> Table:
    return day.close_ballot(state)[0]


def finish(state: State) -> Result | None:
    outcome = end.check(state)
    return None if outcome is None else end.finish(state, outcome)


PHASES: dict[Phase, PhaseRule[State]] = {
    Phase.NIGHT: PhaseRule(
        Phase.NIGHT,
        who="every character with a night power, privately (the Werewolves together, in their channel); "
        "any player may set a standing order",
        moves={},
        closes="its deadline only: closing when all have chosen would tell who is dead",
        close=night.resolve,
        opens="night.dawn",
        ends_game=True,
        next=Phase.NOMINATIONS,
        begin=_night_begins,
    ),
    Phase.NOMINATIONS: PhaseRule(
        Phase.NOMINATIONS,
        who="every player, Ghosts included: one public vote, final, for a living player; the Skull's holder "
        "passes it on",
        moves={Verb.VOTE: Move(day.nominate)},
        closes="its deadline",
        close=day.close_nominations,
        next=Phase.BALLOT,
        begin=_day_begins,
    ),
    Phase.BALLOT: PhaseRule(
        Phase.BALLOT,
        who="the living who are not suspects (and a revealed Deadalive): one secret vote for a suspect, which "
        "may be changed until the close",
        moves={Verb.VOTE: Move(day.cast_ballot)},
        closes="its deadline",
        close=_lynch,
        ends_game=True,
        next=Phase.NIGHT,
        begin=_ballot_begins,
    ),
}
