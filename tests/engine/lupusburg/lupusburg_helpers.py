"""Helpers shared by the Lupusburg tests: making games, playing moves as players type them,
and the secrecy check every test can run over the events of a game."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from engine import Event, GameConfig, RuleSet, apply, close_phase, new_game, parse_target
from engine.lupusburg.houses import houses_of, owner
from engine.lupusburg.state import LupusburgState
from engine.notation import parse_move
from engine.types import Role

RECORDS = Path(__file__).resolve().parents[2] / "records" / "lupusburg"

#: A deal for four: ann is the Werewolf, bob the Thief.
FOUR = {
    "ann": ["werewolf", "townsfolk"],
    "bob": ["thief", "townsfolk"],
    "cat": ["townsfolk", "townsfolk"],
    "dan": ["townsfolk", "townsfolk"],
}
FOUR_CHESTS = {"ann": "right", "bob": "right", "cat": "left", "dan": "right"}


def game(
    players: Iterable[str] = ("ann", "bob", "cat", "dan"),
    roles: Mapping[str, Any] | None = None,
    seed: int = 1,
    **options: Any,
) -> LupusburgState:
    state, _ = game_and_events(players, roles, seed, **options)
    return state


def game_and_events(
    players: Iterable[str] = ("ann", "bob", "cat", "dan"),
    roles: Mapping[str, Any] | None = None,
    seed: int = 1,
    **options: Any,
) -> tuple[LupusburgState, list[Event]]:
    state, events = new_game(GameConfig(RuleSet.LUPUSBURG, tuple(players), roles, options=options), seed)
    assert isinstance(state, LupusburgState)
    return state, events


def four(**options: Any) -> LupusburgState:
    """ann Werewolf (left), bob Thief (left), cat and dan Townsfolk; ann is the Burgomaster."""
    options.setdefault("chests", FOUR_CHESTS)
    return game(roles=FOUR, **options)


def play(state: LupusburgState, *moves: str) -> tuple[LupusburgState, list[Event]]:
    """Play moves as a record writes them: ``"ann: kill bob:left"`` or ``"end"``."""
    events: list[Event] = []
    for move in moves:
        if move == "end":
            new, evs = close_phase(state, state.phase_no)
        else:
            actor, text = (s.strip() for s in move.split(":", 1))
            action = parse_move(actor, text)
            if action.target is not None:
                action = type(action)(action.actor, action.verb, parse_target(state, action.target))
            new, evs = apply(state, action)
        assert isinstance(new, LupusburgState)
        state = new
        events.extend(evs)
    return state, events


def keys(events: Iterable[Event]) -> list[str]:
    return [e.key for e in events]


def find(events: Iterable[Event], key: str) -> list[Event]:
    return [e for e in events if e.key == key]


ROLE_WORDS = {r.value for r in (Role.WEREWOLF, Role.THIEF, Role.TOWNSFOLK)}


def _mentions_role(value: Any) -> bool:
    if isinstance(value, str):
        return value in ROLE_WORDS
    if isinstance(value, Mapping):
        return any(_mentions_role(k) or _mentions_role(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return any(_mentions_role(v) for v in value)
    return False


def check_secrecy(before: LupusburgState, events: Iterable[Event]) -> None:
    """No event tells a player a character he may not know.

    The only characters a player may be told before the end: his own two (when dealt), the
    one under the house the Thief looked at (to the Thief), the one the Burgomaster looked at
    with his privilege (to him), and the one he showed in return (to that player).
    """
    thief = before.holder(Role.THIEF)
    for e in events:
        data = e.data
        if e.key == "game.started":
            # The deck's make-up is public (its keys are the characters); nothing else may name one.
            assert e.to is None and set(data["deck"]) <= ROLE_WORDS
            data = {k: v for k, v in data.items() if k != "deck"}
        if not _mentions_role(data):
            continue
        if e.key == "game.over":
            assert e.to is None
            continue
        assert e.to is not None and len(e.to) == 1, f"a character told to many: {e}"
        (reader,) = e.to
        if e.key == "houses.dealt":
            left, right = houses_of(reader)
            assert (e.data["left"], e.data["right"]) == (before.cards[left].value, before.cards[right].value)
        elif e.key == "thief.result":
            assert reader == thief and owner(e.data["house"]) != reader
            assert e.data["card"] == before.cards[e.data["house"]].value
        elif e.key == "privilege.seen":
            assert reader == before.burgomaster and owner(e.data["house"]) != reader
            assert e.data["card"] == before.cards[e.data["house"]].value
        elif e.key == "privilege.shown":
            priv = before.privilege
            assert priv is not None and owner(priv[0]) == reader
            assert owner(e.data["house"]) == before.burgomaster
            assert e.data["card"] == before.cards[e.data["house"]].value
        elif e.key == "privilege.showed":  # his own card, to himself
            assert reader == before.burgomaster
            assert e.data["card"] == before.cards[f"{reader}:{e.data['side']}"].value
        else:
            raise AssertionError(f"{e.key} tells {reader} a character: {e}")


def lynch(state: LupusburgState, victim: str) -> tuple[LupusburgState, list[Event]]:
    """Close the nominations and the ballot with every token and vote on ``victim``."""
    from engine.lupusburg.voting import ballot_votes, tokens_left

    assert state.phase.value == "nominations", state.phase
    moves = [f"{p}: vote {victim}" for p in state.players for _ in range(tokens_left(state, p))]
    state, events = play(state, *moves, "end")
    moves = [f"{p}: vote {victim}" for p in state.players for _ in range(ballot_votes(state, p))]
    state, more = play(state, *moves, "end")
    return state, events + more


#: One step of a playout: the state before, the events, the state after.
Step = tuple[LupusburgState, list[Event], LupusburgState]
NAMES = ("ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal")


def random_game(
    n: int, seed: int, close_chance: float = 0.15, options: Mapping[str, Any] | None = None
) -> Iterable[Step]:
    """A game played by random legal moves and random deadlines: (before, events, after) per step."""
    import random

    from engine import legal_actions

    rnd = random.Random(f"playout|{n}|{seed}")
    state, events = game_and_events(NAMES[:n], None, seed, **(options or {}))
    yield state, events, state
    while state.phase.value != "over":
        moves = [a for p in state.players for a in legal_actions(state, p)]
        if not moves or rnd.random() < close_chance:
            new, events = close_phase(state, state.phase_no)
        else:
            new, events = apply(state, rnd.choice(moves))
        assert isinstance(new, LupusburgState)
        yield state, events, new
        state = new
