"""The day: public nominations, two suspects, a secret ballot, a lynching.

Nominations: every player, Ghosts included, has one vote for any living player; it is
final and announced with the running tally. The two most voted are suspects, ranked by
votes and then by the tie order; with fewer than two players voted for, the tie order fills
the rest. The Owl-man's choice takes the second place unless already a suspect.

Ballot: living players who are not suspects vote secretly for a suspect, and may change
their vote until the close, when all ballots are revealed. Most votes is lynched; a tie
(0-0 included) goes by the tie order.
"""

from __future__ import annotations

from ..errors import IllegalAction
from ..suspects import two_suspects
from ..types import Event
from .character import DAY_CLOSE_STEPS, steps_of
from .characters.owl_man import MARK as OWL
from .order import first_in_order, tie_order, tie_rank, told
from .state import TabulaState
from .table import Table


# -- who votes --------------------------------------------------------------------------------------
def speaks_as_living(state: TabulaState, player: str) -> bool:
    """Living, or a revealed Deadalive, who goes on talking and voting as a living character."""
    return player in state.alive or player in state.marks.get("walking", ())


def voted(state: TabulaState) -> set[str]:
    """Who has cast his nomination today."""
    return {v for v, _ in state.votes}


def nomination_voters(state: TabulaState) -> tuple[str, ...]:
    """Who has yet to nominate: everyone, Ghosts included, until he has."""
    done = voted(state)
    return tuple(p for p in state.players if p not in done)


def ballot_voters(state: TabulaState) -> tuple[str, ...]:
    suspects = state.suspects
    return tuple(p for p in state.players if speaks_as_living(state, p) and p not in suspects)


def counts(votes: list[str] | tuple[str, ...]) -> dict[str, int]:
    """Votes by target, in the order each was first voted for."""
    found: dict[str, int] = {}
    for t in votes:
        found[t] = found.get(t, 0) + 1
    return found


def tally(votes: list[str] | tuple[str, ...], state: TabulaState) -> list[list[object]]:
    """[[name, votes], ...] by votes, then by the tie order."""
    return [[p, n] for p, n in ranked(counts(votes), state)]


def ranked(found: dict[str, int], state: TabulaState) -> list[tuple[str, int]]:
    rank = tie_rank(state)
    return sorted(found.items(), key=lambda kv: (-kv[1], rank[kv[0]]))


# -- acting -----------------------------------------------------------------------------------------
def nominate(state: TabulaState, voter: str, target: str | None) -> tuple[TabulaState, list[Event]]:
    """A nomination: public and final, for a living player."""
    if target is None:
        raise IllegalAction("vote.no_target", "say whom you vote for: vote NAME")
    count = 1  # his, and those already cast for the same target
    for v, t in state.votes:
        if v == voter:
            raise IllegalAction("vote.already", "you have already voted: a nomination is final")
        count += t == target
    if target not in state.alive:
        raise _not_living(state, target)
    votes = (*state.votes, (voter, target))
    # The whole running tally is in the public view; the event says what changed.
    return state.evolve(votes=votes), [Event("day.vote", {"voter": voter, "target": target, "votes": count})]


def cast_ballot(state: TabulaState, voter: str, target: str | None) -> tuple[TabulaState, list[Event]]:
    """A secret vote for a suspect; the last one counts."""
    if target is None:
        raise IllegalAction("vote.no_target", "say whom you vote for: vote NAME")
    suspects = state.suspects
    if voter in suspects:
        raise IllegalAction("ballot.suspect", "suspects do not vote in the ballot")
    if not speaks_as_living(state, voter):
        raise IllegalAction("ballot.ghost", "Ghosts do not vote in the ballot")
    if target not in suspects:
        names = " or ".join(suspects)
        raise IllegalAction(
            "ballot.not_suspect", f"{target} is not a suspect: vote for {names}", target=target, suspects=list(suspects)
        )
    changed = voter in state.ballots
    new = state.evolve(ballots={**state.ballots, voter: target})
    return new, [Event("day.ballot_taken", {"target": target, "changed": changed}, (voter,))]


def _not_living(state: TabulaState, target: str) -> IllegalAction:
    if target not in state.players:
        return IllegalAction("target.unknown", f"there is no player called {target}", target=target)
    return IllegalAction("target.dead", f"{target} is dead", target=target)


# -- closing ----------------------------------------------------------------------------------------
def ranked_nominations(state: TabulaState) -> list[tuple[str, int]]:
    """(player, nominations) of everyone nominated, by votes and then by the tie order."""
    return ranked(counts([t for _, t in state.votes]), state)


def choose_suspects(state: TabulaState, ranked_all: list[tuple[str, int]]) -> tuple[str, ...]:
    """The two most nominated (``ranked_all``: ``ranked_nominations``; the tie order fills in);
    the Owl-man's choice takes the second place."""
    found = two_suspects((p for p, _ in ranked_all), tie_order(state), state.alive)
    owl = state.marks.get(OWL)
    if owl is not None and owl in state.alive and owl not in found:
        found = [*found[:1], owl]
    return tuple(found)


def close_nominations(state: TabulaState) -> Table:
    """Name the suspects, whom the ballot begins with (``phases.py``)."""
    table = Table(state, "suspects")
    ranked_all = ranked_nominations(state)
    suspects = table.sets["suspects"] = choose_suspects(state, ranked_all)
    owl = state.marks.get(OWL)
    if owl is not None and owl in state.alive:
        table.announce("owl_man.named", target=owl)
    table.announce("day.suspects", suspects=list(suspects), tally=[[p, n] for p, n in ranked_all], order=told(state))
    return table


def lynch_choice(state: TabulaState) -> tuple[str, dict[str, int]]:
    found = {s: 0 for s in state.suspects}
    for v, t in state.ballots.items():  # a ballot counts if its voter may still cast one
        if t in found and v not in found and v in state.roles and speaks_as_living(state, v):
            found[t] += 1
    top = max(found.values())
    return first_in_order(state, [s for s, n in found.items() if n == top]), found


def close_ballot(state: TabulaState) -> tuple[Table, str]:
    """Reveal the ballots and lynch; the caller checks the end and starts the night."""
    lynched, found = lynch_choice(state)
    table = Table(state, "lynch")
    ballots = {v: state.ballots[v] for v in state.players if v in state.ballots}
    table.announce("day.ballots", ballots=ballots, counts=found, lynched=lynched, order=told(state))
    table.lynched.append(lynched)
    table.kill(lynched, "lynched")
    for step in steps_of(state, DAY_CLOSE_STEPS):
        step.run(table)
    return table, lynched
