"""The views' shapes, and what every rule set's public view starts with and how it ends, so
that the service can read any game the same way.

The views cross from the engine to the service's texts as JSON-like dicts (the service stores
and reads them as such); their shapes are declared here as ``TypedDict``s so that mypy holds
every reader to them. The views are built as plain dicts, key by key in the order they have
always had, and handed out as their ``TypedDict``; ``tests/engine/test_seams.py`` holds the
dicts of random games to the declared shapes.
"""

from collections.abc import Sequence
from typing import Any, NotRequired, TypedDict

from .types import Outcome, Phase, RuleSet


class PublicView(TypedDict, total=False):
    """What everyone knows (``engine.public_view``). Every key up to ``winners`` is always there;
    all are declared optional only because readers stand ``{}`` in for the view of a game not
    yet started (``service/game/room.py``, the sandbox's board)."""

    rules: str
    status: str
    """``running`` or ``over``."""
    phase: str
    phase_no: int
    day: int
    night: int
    players: list[str]
    """The seating, clockwise."""
    alive: list[str]
    """Living players (Lupusburg: living houses, ``ann:left``), in seating order."""
    dead: list[str]
    lynched: list[str]
    speakers: list[str]
    """Who may talk in the town square."""
    winners: list[str]
    """Empty until the game is over."""
    # The nominations only
    votes: list[list[str]]
    """(voter, target) pairs, in the order cast."""
    tally: list[list[Any]]
    """(target, votes) pairs, most votes first, ties by the tie order."""
    waiting_for: list[str]
    # The ballot only
    suspects: list[str]
    ballots_cast: int
    # Once the game is over
    team: str
    reason: str
    roles: dict[str, Any]
    """Every card: ``tabula`` a card a player, ``lupusburg`` each player's two, left first."""
    history: list["Note"]
    """What happened at every close, in order: the Moderator's notebook."""


class Note(TypedDict, total=False):
    """One thing that happened at a close, as the Moderator noted it (``Table.note``): told only
    once the game is over. ``what``: ``killed``, ``saved`` (a kill that failed), ``revived``, ``look``
    (its result as the looker was told it), a tile given (``portrait``, ``skull``), ``owl``, ``mimic``."""

    night: int
    day: int
    """When: the close of that night, or of that day's ballot."""
    what: str
    by: list[str]
    """Who did it: the killers, the attackers of one saved, the lookers, the giver."""
    player: str
    """Who died, was saved or was revived."""
    cause: str
    """What killed (or would have): ``werewolves``, ``potion``, ``seen``, ``portrait``, ``skull``,
    ``owl``, ``lynched``; Lupusburg's ``werewolf``."""
    why: str
    """What saved him: ``protected``, ``wolf_proof``, ``zombie``, ``aura``, ``portrait``."""
    savers: list[str]
    target: str
    as_card: str
    """The card a look was made with (``seer``, ``fortune_teller``, ``darius``, ``hamlet``, ``thief``)."""
    were: bool
    aura: str
    role: str
    blocked: bool
    card: str
    chest: bool
    became: str | None


class TabulaPublicView(PublicView, total=False):
    welcome: str | None
    """Who holds the "Welcome!"."""
    revealed: dict[str, str]
    """Cards shown to all (a Deadalive, Dorian Wolf, Hamlet), by player."""
    tokens: dict[str, str]
    """The tiles on the table (``skull``, ``portrait``, ``claw``) and who has each."""
    auras: list[str]
    """``aura``: who still has his Aura."""
    aura_pile: int
    """``aura``: how many Auras were discarded."""


class Bet(TypedDict):
    target: str
    coin: int


class LupusburgPublicView(PublicView, total=False):
    burgomaster: str
    seals_used: list[str]
    privilege: str | None
    """The house the Burgomaster looked at today."""
    # Once the game is over
    scores: dict[str, int]
    chests: dict[str, str]
    bets: dict[str, Bet]
    score_table: dict[str, dict[str, int]]


class PlayerView(TypedDict):
    """What one player knows (``engine.view``): the public view, his card, what he was told."""

    you: str
    role: str
    knowledge: list[dict[str, Any]]
    """What he was told privately, in order, each with its ``key``."""
    actions: list[str]
    """What he may type now (``vote bob``)."""
    ballot: str | list[str] | None
    """His secret ballot so far (Lupusburg: his last votes, as many as he has)."""
    public: PublicView


class TabulaPlayerView(PlayerView):
    alive: bool
    choices: dict[str, list[str | None]]
    """His own choices this phase, and those of a slot he shares, by power: (verb, target)."""
    became: NotRequired[str]
    """A Mythomaniac's new role, once he was told it."""


class House(TypedDict):
    house: str
    card: str
    alive: bool
    chest: bool


class Draw(TypedDict):
    target: str
    coins: list[int]


class LupusburgPlayerView(PlayerView):
    houses: dict[str, House]
    """His two houses, ``left`` and ``right``."""
    choice: list[str] | None
    """Tonight's choice, (verb, house)."""
    tokens_left: int
    ballot_votes: int
    bet: Bet | None
    draw: Draw | None
    """A bet begun: the coins drawn, waiting for his choice."""


def header(
    rules: RuleSet,
    phase: Phase,
    phase_no: int,
    day: int,
    night: int,
    players: Sequence[str],
    alive: Sequence[str],
    dead: Sequence[str],
    lynched: Sequence[str],
    speakers: Sequence[str] | None = None,
) -> dict[str, Any]:
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


def day_votes(
    out: dict[str, Any],
    phase: Phase,
    votes: Sequence[tuple[str, str]],
    tally: list[list[Any]],
    waiting_for: Sequence[str],
    suspects: Sequence[str],
    ballots_cast: int,
) -> None:
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
