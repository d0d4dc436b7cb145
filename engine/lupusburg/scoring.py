"""The end of the game and the score table.

Checked after the night's death and after the lynching. The Werewolf wins alone when his
living characters are at least as many as all other living characters. He loses when he
has none left; then every other player scores 2 per living character, 1 for his chest if a
living character is in the chest house, and for his seal the coin's value if he bet on the
Werewolf's player, 0 if he bet on someone else, 1 if he never bet. Most points wins; ties go
to the player closer to the Burgomaster, counting from the Burgomaster himself.

The score table always names every player: a losing Werewolf scores 0; a winning Werewolf
scores the number of players (the rulebook's series rule) and the others 0, so that a
series simply adds the tables up.
"""

from __future__ import annotations

from typing import Any

from ..types import Event, Outcome, Phase, Role, Team
from .houses import houses_of, seats_from
from .state import LupusburgState

PER_CHARACTER = 2
CHEST = 1
UNUSED_SEAL = 1

WEREWOLF_WINS = "end.werewolf_parity"
WEREWOLF_DEAD = "end.werewolf_dead"


def details(state: LupusburgState, team: Team) -> dict[str, dict[str, int]]:
    """Each player's points by source, and the total."""
    wolf = state.holder(Role.WEREWOLF)
    out: dict[str, dict[str, int]] = {}
    for p in state.players:
        row = {"characters": 0, "chest": 0, "seal": 0, "werewolf": 0}
        if team is Team.WEREWOLF:
            if p == wolf:
                row["werewolf"] = len(state.players)
        elif p != wolf:
            row["characters"] = PER_CHARACTER * len(state.living_of(p))
            row["chest"] = CHEST if state.chest_house(p) in state.alive else 0
            if p in state.bets:
                target, coin = state.bets[p]
                row["seal"] = coin if target == wolf else 0
            else:
                row["seal"] = UNUSED_SEAL
        row["total"] = sum(row.values())
        out[p] = row
    return out


def check(state: LupusburgState) -> Outcome | None:
    wolf = state.holder(Role.WEREWOLF)
    mine = len(state.living_of(wolf))
    others = len(state.alive) - mine
    if mine == 0:
        table = details(state, Team.TOWNSFOLK)
        scores = {p: table[p]["total"] for p in state.players}
        best = max(scores[p] for p in state.players if p != wolf)
        order = seats_from(state.players, state.burgomaster)
        winner = next(p for p in order if p != wolf and scores[p] == best)
        return Outcome(Team.TOWNSFOLK, (winner,), WEREWOLF_DEAD, scores)
    if mine >= others:
        table = details(state, Team.WEREWOLF)
        return Outcome(Team.WEREWOLF, (wolf,), WEREWOLF_WINS, {p: table[p]["total"] for p in state.players})
    return None


def revealed(state: LupusburgState) -> dict[str, Any]:
    """Everything the table sees when the game ends."""
    assert state.outcome is not None
    return {
        "roles": {p: [state.cards[h].value for h in houses_of(p)] for p in state.players},
        "chests": {p: state.chests[p] for p in state.players},
        "bets": {p: {"target": state.bets[p][0], "coin": state.bets[p][1]} for p in state.players if p in state.bets},
        "score_table": details(state, state.outcome.team),
    }


def finish(state: LupusburgState, outcome: Outcome) -> tuple[LupusburgState, list[Event]]:
    """The game is over: characters, chests, bets and scores are revealed to everyone."""
    done = state.evolve(phase=Phase.OVER, outcome=outcome, choices={}, ballots={})
    data = {
        "team": outcome.team.value,
        "winners": list(outcome.winners),
        "reason": outcome.reason,
        "scores": dict(outcome.scores or {}),
        **revealed(done),
    }
    return done, [Event("game.over", data)]
