"""Lupusburg's phases as data: the night, the day's nominations, the ballot, and round again
(the rulebook's "Game Play"). ``engine/phases.py`` walks this table; each move and each close
is a small function of the module it belongs to (``thief``, ``werewolf``, ``burgomaster``,
``bets``, ``voting``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..errors import IllegalAction
from ..phases import Move, Offer, PhaseRule
from ..rng import rng
from ..types import Event, Phase, Verb
from . import bets, burgomaster, houses, night, scoring, thief, voting, werewolf
from .close import Close
from .houses import SIDE_WORDS, SIDES, owner, side_of
from .state import LupusburgState

State = LupusburgState
Result = tuple[LupusburgState, list[Event]]


# -- the moves, as typed (the target already read by ``houses.parse``) ------------------------------
def _house(state: State, actor: str, target: str | None, offer: Offer[State]) -> str:
    """The house a move names. A player's name stands for his one house among the move's choices
    (``vote 6`` when only one of Oli's houses may be voted for); with two, the question names only
    those. With none, the rules are asked about one of his living houses, so that their refusal says
    why ("not a suspect", "your own house"), never a question offering a house that is no choice."""
    assert target is not None  # ``apply`` refuses a move that names nothing before it gets here
    if houses.is_house(state.players, target):
        return target
    if target not in state.players:
        raise IllegalAction(
            "target.unknown", f"there is no house called {target} (try NAME:left or NAME:right)", target=target
        )
    mine = [h for h in map(str, offer(state, actor)) if owner(h) == target]
    if len(mine) == 1:
        return mine[0]
    if mine:
        raise IllegalAction("target.not_house", f"say which house: {' or '.join(mine)}", target=target, houses=mine)
    living = state.living_of(target)
    if not living:
        raise IllegalAction("target.no_living", f"{target} has no living character", target=target)
    return living[0]


def _on_house(choose: Callable[[State, str, str], Result], offer: Offer[State]) -> Move[State]:
    """A move that names a house (``ann:left``), and what it offers."""

    def play(state: State, actor: str, target: str | None) -> Result:
        return choose(state, actor, _house(state, actor, target, offer))

    return Move(play, offer)


def _show(state: State, actor: str, target: str | None) -> Result:
    """``show left``, ``show right`` (or his own house by name)."""
    assert target is not None
    if houses.is_house(state.players, target):
        if owner(target) != actor:
            raise IllegalAction("show.not_yours", "show one of your own characters: show left or show right")
        target = side_of(target)
    return burgomaster.show(state, actor, SIDE_WORDS.get(target.casefold(), target))


def _bet(state: State, actor: str, target: str | None) -> Result:
    """``bet dan``: on a player, never on a character."""
    assert target is not None
    if houses.is_house(state.players, target):
        raise IllegalAction(
            "bet.not_player", f"bet on a player, not on a character: bet {owner(target)}", target=target
        )
    if target not in state.players:
        raise IllegalAction("target.unknown", f"there is no player called {target}", target=target)
    return bets.bet(state, actor, target)


def _coin(state: State, actor: str, target: str | None) -> Result:
    assert target is not None
    return bets.coin(state, actor, target)


def _when(may: Callable[[State, str], bool], targets: Offer[State]) -> Offer[State]:
    """What the player may name, while he may make the move at all."""

    def offer(state: State, player: str) -> Iterable[object]:
        return targets(state, player) if may(state, player) else ()

    return offer


def _may_show(state: State, player: str) -> bool:
    return player == state.burgomaster and burgomaster.pending_show(state)


# -- the closes -------------------------------------------------------------------------------------
def _close_day(state: State) -> Close:
    """The nominations close: a privilege left unanswered and bets left unfinished are settled
    at random, and the two suspects named."""
    rand = rng(state.seed, state.phase_no, "day")
    state, events = burgomaster.close_day(state, rand)
    state, more = bets.close_day(state, rand)
    close = Close(state)
    close.events = events + more
    close.announce(
        "day.suspects",
        suspects=list(voting.choose_suspects(state)),
        tally=voting.tally(state, [t for _, t in state.votes]),
        order=voting.told(state),
    )
    return close


def _lynch(state: State) -> Close:
    close = Close(state)
    voting.lynch(close)
    return close


def end(state: State) -> Result | None:
    result = scoring.check(state)
    return None if result is None else scoring.finish(state, result)


# -- what each phase starts with --------------------------------------------------------------------
FRESH: dict[str, Any] = {"choices": {}, "votes": (), "suspects": (), "ballots": {}, "privilege": None}
"""Nothing chosen, nominated, balloted or looked at yet."""


def _night_begins(s: State) -> tuple[dict[str, Any], list[Event]]:
    """The Burgomaster passes clockwise, even to a player with no living characters."""
    mayor = burgomaster.next_burgomaster(s)
    return {"night": s.night + 1, "burgomaster": mayor, **FRESH}, [
        Event("burgomaster.passed", {"burgomaster": mayor, "from": s.burgomaster}),
        Event("phase.night", {"night": s.night + 1, "burgomaster": mayor}),
    ]


def _day_begins(s: State) -> tuple[dict[str, Any], list[Event]]:
    day = s.day + 1
    return {"day": day, **FRESH}, [
        Event("phase.nominations", {"day": day, "burgomaster": s.burgomaster}),
        burgomaster.told_of_privilege(s.burgomaster, day),
    ]


def _ballot_begins(s: State) -> tuple[dict[str, Any], list[Event]]:
    suspects = voting.choose_suspects(s)
    return {"suspects": suspects, "ballots": {}}, [
        Event("phase.ballot", {"day": s.day, "suspects": list(suspects), "burgomaster": s.burgomaster})
    ]


PHASES: dict[Phase, PhaseRule[State]] = {
    Phase.NIGHT: PhaseRule(
        Phase.NIGHT,
        who="the Thief looks under a house, then the Werewolf points the Claw, each while he has a living character",
        moves={
            Verb.PEEK: _on_house(thief.choose, _when(thief.can_peek, thief.targets)),
            Verb.KILL: _on_house(werewolf.choose, _when(werewolf.can_kill, werewolf.targets)),
        },
        closes="its deadline",
        close=night.resolve,
        opens="night.dawn",
        ends_game=True,
        next=Phase.NOMINATIONS,
        begin=_night_begins,
    ),
    Phase.NOMINATIONS: PhaseRule(
        Phase.NOMINATIONS,
        who="every player, with or without living characters: two tokens on living characters; the Burgomaster's "
        "privilege; a bet each, once a game",
        moves={
            Verb.VOTE: _on_house(
                voting.nominate, _when(lambda s, p: voting.tokens_left(s, p) > 0, lambda s, p: s.living())
            ),
            Verb.PRIVILEGE: _on_house(
                burgomaster.use_privilege, _when(burgomaster.may_use_privilege, burgomaster.privilege_targets)
            ),
            Verb.SHOW: Move(_show, _when(_may_show, lambda s, p: SIDES)),
            Verb.BET: Move(_bet, _when(bets.may_bet, bets.bet_targets)),
            Verb.COIN: Move(_coin, bets.coin_choices),
        },
        closes="its deadline",
        close=_close_day,
        next=Phase.BALLOT,
        begin=_day_begins,
    ),
    Phase.BALLOT: PhaseRule(
        Phase.BALLOT,
        who="each player, one secret vote for each of his living characters that is not a suspect",
        moves={
            Verb.VOTE: _on_house(
                voting.ballot, _when(lambda s, p: voting.ballot_votes(s, p) > 0, lambda s, p: s.suspects)
            ),
        },
        closes="its deadline",
        close=_lynch,
        ends_game=True,
        next=Phase.NIGHT,
        begin=_ballot_begins,
    ),
}

VERBS = frozenset(verb for rule in PHASES.values() for verb in rule.moves)
"""Every verb Lupusburg knows."""


def not_now(verb: Verb) -> IllegalAction:
    """Why a verb Lupusburg knows cannot be played in this phase."""
    if verb in PHASES[Phase.NIGHT].moves:
        return IllegalAction("power.wrong_phase", f"you can {verb.value} only at night", verb=verb.value)
    if verb is Verb.VOTE:
        return IllegalAction("vote.not_now", "votes are cast by day: wait for the morning")
    return IllegalAction("day.only", f"you can {verb.value} only by day, before the nominations close", verb=verb.value)
