"""The day's two votes: public nominations, then a secret ballot between two suspects.

Nominations: every player has two tokens, even with no living characters, and places each
on a living character (``vote ann:left``, once per token; both on the same one if he
likes). A token once placed is final and public. The two characters with most tokens are
suspects; ties, and fewer than two characters with tokens, go by closeness to the
Burgomaster, counting clockwise from the Burgomaster himself (his left house, his right
house, then the next player's).

Ballot: each living character that is not a suspect gives its owner one secret vote for a
suspect. A player casts each vote with ``vote X``; while the ballot is open he may vote
again, and his last votes count, as many as he has (with two votes, ``vote A`` then ``vote
B`` splits them, and voting ``A`` twice more puts both on A). All ballots are revealed at
the close; the most voted suspect is lynched; a tie (0-0 included) lynches the one closer
to the Burgomaster.
"""

from __future__ import annotations

from collections import Counter

from ..errors import IllegalAction
from ..suspects import two_suspects
from ..types import Event
from .close import Close
from .houses import houses_from
from .state import LupusburgState

TOKENS = 2


def tie_order(state: LupusburgState) -> tuple[str, ...]:
    return houses_from(state.players, state.burgomaster)


def told(state: LupusburgState) -> dict[str, str]:
    """The tie order as a tie's text names it (``payloads.TieOrder``): from the Burgomaster himself."""
    return {"by": "burgomaster", "player": state.burgomaster, "first": state.burgomaster}


def first_in_order(state: LupusburgState, houses: list[str]) -> str:
    order = tie_order(state)
    return min(houses, key=order.index)


def ranked(state: LupusburgState, votes: list[str]) -> list[tuple[str, int]]:
    """(house, votes) by votes, then by closeness to the Burgomaster."""
    counts = Counter(votes)
    order = tie_order(state)
    return sorted(counts.items(), key=lambda kv: (-kv[1], order.index(kv[0])))


def tally(state: LupusburgState, votes: list[str]) -> list[list[object]]:
    """[[house, votes], ...] as ``ranked``, as the events and views show it."""
    return [[h, n] for h, n in ranked(state, votes)]


# -- nominations ------------------------------------------------------------------------------------
def tokens_left(state: LupusburgState, player: str) -> int:
    return TOKENS - sum(1 for v, _ in state.votes if v == player)


def nominate(state: LupusburgState, voter: str, target: str) -> tuple[LupusburgState, list[Event]]:
    if tokens_left(state, voter) <= 0:
        raise IllegalAction("vote.no_tokens", "you have placed both your voting tokens: they are final")
    if target not in state.alive:
        raise IllegalAction("target.dead", f"{target} is empty: its character is out of the game", target=target)
    votes = (*state.votes, (voter, target))
    new = state.evolve(votes=votes)
    return new, [
        Event(
            "day.vote",
            {
                "voter": voter,
                "target": target,
                "tokens_left": tokens_left(new, voter),
                "tally": tally(new, [t for _, t in votes]),
            },
        )
    ]


def choose_suspects(state: LupusburgState) -> tuple[str, ...]:
    nominated = (h for h, _ in ranked(state, [t for _, t in state.votes]))
    return tuple(two_suspects(nominated, tie_order(state), state.alive))


# -- ballot -----------------------------------------------------------------------------------------
def ballot_votes(state: LupusburgState, player: str) -> int:
    """One vote for each of his living characters that is not a suspect."""
    return sum(1 for h in state.living_of(player) if h not in state.suspects)


def ballot(state: LupusburgState, voter: str, target: str) -> tuple[LupusburgState, list[Event]]:
    n = ballot_votes(state, voter)
    if n == 0 and state.living_of(voter):
        raise IllegalAction("ballot.all_suspects", "your characters are suspects: they give no vote")
    if n == 0:
        raise IllegalAction("ballot.no_vote", "you have no living character: no vote in the ballot")
    if target not in state.suspects:
        names = " or ".join(state.suspects)
        raise IllegalAction(
            "ballot.not_suspect",
            f"{target} is not a suspect: vote for {names}",
            target=target,
            suspects=list(state.suspects),
        )
    before = state.ballots.get(voter, ())
    mine = (*before, target)[-n:]
    new = state.evolve(ballots={**state.ballots, voter: mine})
    return new, [
        Event(
            "day.ballot_taken", {"target": target, "votes": list(mine), "of": n, "changed": len(before) >= n}, (voter,)
        )
    ]


def counts(state: LupusburgState) -> dict[str, int]:
    out = {s: 0 for s in state.suspects}
    for voter, mine in state.ballots.items():
        n = ballot_votes(state, voter)
        for t in mine[-n:] if n else ():
            if t in out:
                out[t] += 1
    return out


def lynch(close: Close) -> str:
    """Reveal the ballots and lynch the most voted suspect."""
    s = close.start
    c = counts(s)
    top = max(c.values())
    lynched = first_in_order(s, [h for h, n in c.items() if n == top])
    ballots = {p: list(s.ballots[p]) for p in s.players if s.ballots.get(p)}
    close.announce("day.ballots", ballots=ballots, counts=c, lynched=lynched, order=told(s))
    close.lynched.append(lynched)
    close.kill(lynched, "lynched")
    return lynched
