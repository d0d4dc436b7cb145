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

from collections.abc import Callable
from typing import Any

from ..errors import IllegalAction
from ..suspects import two_suspects
from ..types import BALLOT, NOMINATIONS, Action, Event
from .character import DAY_CLOSE_STEPS, steps_of
from .order import first_in_order, tie_order, tie_rank
from .state import TabulaState
from .table import Table

_new = object.__new__
_set = object.__setattr__  # a state is frozen: a new one's fields are set once
_event: Callable[[type[Event], tuple[str, dict[str, Any], tuple[str, ...] | None, None]], Event] = (
    tuple.__new__)
"""``Event(...)`` for the votes, without its Python-level ``__new__`` nor ``new_event``'s partial."""


# -- who votes --------------------------------------------------------------------------------------
def speaks_as_living(state: TabulaState, player: str) -> bool:
    """Living, or a revealed Deadalive, who goes on talking and voting as a living character."""
    return player in state.alive or player in state.marks.get("walking", ())


def nomination_voters(state: TabulaState) -> tuple[str, ...]:
    running = state.running()
    mask, bits = running["mask"], running["bits"]
    return tuple(p for p in state.players if not mask & bits[p])


def nomination_targets(state: TabulaState) -> tuple[str, ...]:
    return state.living()


def ballot_voters(state: TabulaState) -> tuple[str, ...]:
    alive, walking, suspects = state.alive, state.marks.get("walking", ()), state.suspects
    return tuple([p for p in state.players if (p in alive or p in walking) and p not in suspects])


def tally(votes: list[str] | tuple[str, ...], state: TabulaState) -> list[list[object]]:
    """[[name, votes], ...] by votes, then by the tie order."""
    counts: dict[str, int] = {}
    for t in votes:
        counts[t] = counts.get(t, 0) + 1
    rank = tie_rank(state)
    return [[p, n] for p, n in sorted(counts.items(), key=lambda kv: (-kv[1], rank[kv[0]]))]


# -- acting -----------------------------------------------------------------------------------------
def vote(state: TabulaState, action: Action) -> tuple[TabulaState, list[Event]]:
    voter, _, target = action
    if target is None:
        raise IllegalAction("vote.no_target", "say whom you vote for: vote NAME")
    phase = state.phase
    if phase is NOMINATIONS:
        fields = state.__dict__
        running = fields.get("_cache")
        if running is None or "mask" not in running:
            running = state.running()
        mask: int = running["mask"]
        bits: dict[str, int] = running["bits"]
        bit = bits[voter]
        if mask & bit:
            raise IllegalAction("vote.already", "you have already voted: a nomination is final")
        if target not in state.alive:
            raise _not_living(state, target)
        tally: dict[str, int] = running["tally"]
        count = tally.get(target, 0) + 1
        after = tally.copy()
        after[target] = count
        # A new state of the phase (``in_phase``, inlined: nine moves in ten are votes).
        d = fields.copy()
        d["votes"] = state.votes + ((voter, target),)  # noqa: RUF005 (the unpacking builds a list first)
        d["_cache"] = {"mask": mask | bit, "tally": after, "bits": bits}
        new = _new(TabulaState)
        _set(new, "__dict__", d)
        # The whole running tally is in the public view; the event says what changed.
        return new, [_event(Event, ("day.vote", {"voter": voter, "target": target, "votes": count}, None, None))]
    if phase is BALLOT:
        suspects = state.suspects
        if voter in suspects:
            raise IllegalAction("ballot.suspect", "suspects do not vote in the ballot")
        if voter not in state.alive and not speaks_as_living(state, voter):
            raise IllegalAction("ballot.ghost", "Ghosts do not vote in the ballot")
        if target not in suspects:
            names = " or ".join(suspects)
            raise IllegalAction("ballot.not_suspect", f"{target} is not a suspect: vote for {names}",
                                target=target, suspects=list(suspects))
        ballots = dict(state.ballots)
        changed = voter in ballots
        ballots[voter] = target
        d = state.__dict__.copy()  # ``in_phase``, inlined
        d["ballots"] = ballots
        d["_cache"] = None
        new = _new(TabulaState)
        _set(new, "__dict__", d)
        return new, [
            _event(Event, ("day.ballot_taken", {"target": target, "changed": changed}, (voter,), None))
        ]
    raise IllegalAction("vote.not_now", "votes are cast by day: wait for the morning")


def _not_living(state: TabulaState, target: str) -> IllegalAction:
    if target not in state.players:
        return IllegalAction("target.unknown", f"there is no player called {target}", target=target)
    return IllegalAction("target.dead", f"{target} is dead", target=target)


# -- closing ----------------------------------------------------------------------------------------
def ranked_nominations(state: TabulaState) -> list[tuple[str, int]]:
    """(player, nominations) of everyone nominated, by votes and then by the tie order."""
    rank = tie_rank(state)
    width = len(rank) + 1  # one key: more votes first, then the earlier in the tie order
    counts: dict[str, int] = state.running()["tally"]
    return sorted(counts.items(), key=lambda kv: rank[kv[0]] - kv[1] * width)


def choose_suspects(state: TabulaState, ranked_all: list[tuple[str, int]] | None = None) -> tuple[str, ...]:
    if ranked_all is None:
        ranked_all = ranked_nominations(state)
    ranked = two_suspects((p for p, _ in ranked_all), tie_order(state), state.alive)
    owl = state.marks.get("owl")
    if owl is not None and owl in state.alive and owl not in ranked:
        ranked = [*ranked[:1], owl]
    return tuple(ranked)


def close_nominations(state: TabulaState) -> tuple[TabulaState, list[Event]]:
    ranked_all = ranked_nominations(state)
    suspects = choose_suspects(state, ranked_all)
    events: list[Event] = []
    owl = state.marks.get("owl")
    if owl is not None and owl in state.alive:
        events.append(Event("owl_man.named", {"target": owl}))
    new = state.evolve(phase=BALLOT, phase_no=state.phase_no + 1, suspects=suspects, ballots={},
                       marks={k: v for k, v in state.marks.items() if k != "owl"})
    events.append(Event("day.suspects", {"suspects": list(suspects),
                                         "tally": [[p, n] for p, n in ranked_all]}))
    events.append(Event("phase.ballot", {"day": state.day, "suspects": list(suspects)}))
    return new, events


def lynch_choice(state: TabulaState) -> tuple[str, dict[str, int]]:
    counts = {s: 0 for s in state.suspects}
    alive, walking, roles = state.alive, state.marks.get("walking", ()), state.roles
    for v, t in state.ballots.items():  # a ballot counts if its voter is among ballot_voters
        if t in counts and v not in counts and (v in alive or v in walking) and v in roles:  # speaks_as_living
            counts[t] += 1
    top = max(counts.values())
    return first_in_order(state, [s for s, n in counts.items() if n == top]), counts


def close_ballot(state: TabulaState) -> tuple[Table, str]:
    """Reveal the ballots and lynch; the caller checks the end and starts the night."""
    lynched, counts = lynch_choice(state)
    table = Table(state, "lynch")
    ballots = {v: state.ballots[v] for v in state.players if v in state.ballots}
    table.announce("day.ballots", ballots=ballots, counts=counts, lynched=lynched)
    table.lynched.append(lynched)
    table.kill(lynched, "lynched")
    for step in steps_of(state, DAY_CLOSE_STEPS):
        step.run(table)
    return table, lynched
