"""The engine's vocabulary: rule sets, characters, phases, verbs, actions, events, outcomes.

Everything here is an immutable value that serializes to JSON primitives.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import partial
from typing import Any, NamedTuple


class RuleSet(StrEnum):
    """Which game is played; the name a game record uses in ``rules:``."""

    TABULA = "tabula"
    """Lupus in Tabula, 8+ players, with any of the expansion's characters; the bot is the Moderator."""
    AURA = "aura"
    """Lady Werewolf's Revenge's 4-7 player variant with Aura cards."""
    LUPUSBURG = "lupusburg"
    """The stand-alone variant: two characters each, houses, a Thief, a Burgomaster."""


class Role(StrEnum):
    """A character card, by the name game records use."""

    VILLAGER = "villager"
    WEREWOLF = "werewolf"
    SEER = "seer"
    MEDIUM = "medium"
    POSSESSED = "possessed"
    BODYGUARD = "bodyguard"
    OWL_MAN = "owl_man"
    FREEMASON = "freemason"
    WEREHAMSTER = "werehamster"
    MYTHOMANIAC = "mythomaniac"
    # Lady Werewolf's Revenge
    LARA = "lara"
    BARON_SAMEDI = "baron_samedi"
    MISS_PURPLE = "miss_purple"
    DARIUS = "darius"
    WERECOW = "werecow"
    DEADALIVE = "deadalive"
    DORIAN_WOLF = "dorian_wolf"
    DR_JEKYLL = "dr_jekyll"
    HAMLET = "hamlet"
    FORTUNE_TELLER = "fortune_teller"
    # Lupusburg
    TOWNSFOLK = "townsfolk"
    THIEF = "thief"


class Team(StrEnum):
    """A side that wins as a whole (or a character who wins alone)."""

    HUMANS = "humans"
    WEREWOLVES = "werewolves"
    WEREHAMSTER = "werehamster"
    DARIUS = "darius"
    WEREWOLF = "werewolf"  # Lupusburg: the Werewolf's player alone
    TOWNSFOLK = "townsfolk"  # Lupusburg: the best score among the others


class Phase(StrEnum):
    """The kind of the current phase."""

    NIGHT = "night"
    """Every night role chooses privately; resolved at close in the rulings' order."""
    NOMINATIONS = "nominations"
    """Public votes, final once cast; the two most voted become suspects."""
    BALLOT = "ballot"
    """Secret votes between the two suspects, revealed together at close."""
    OVER = "over"
    """The game has ended."""


class Verb(StrEnum):
    """What a player may type (in English; the service translates the other languages)."""

    KILL = "kill"
    SEE = "see"
    PROTECT = "protect"
    OWL = "owl"
    MIMIC = "mimic"
    VOTE = "vote"
    REVIVE = "revive"
    PORTRAIT = "portrait"
    SKULL = "skull"
    POTION = "potion"
    PEEK = "peek"
    REVEAL = "reveal"
    PRIVILEGE = "privilege"
    SHOW = "show"
    BET = "bet"
    COIN = "coin"


#: The members the engine asks for on every move, as plain module constants: ``Phase.NIGHT``
#: is an attribute of an enum class, which Python 3.11 looks up through ``EnumType.__getattr__``
#: at about ten times the cost of a global name. The hot paths import these instead.
NIGHT, NOMINATIONS, BALLOT, OVER = Phase.NIGHT, Phase.NOMINATIONS, Phase.BALLOT, Phase.OVER
VOTE = Verb.VOTE

#: Verbs that name no target.
NO_TARGET_VERBS = frozenset({Verb.REVIVE})


class Action(NamedTuple):
    """One player's move, exactly what he would type: ``vote bob`` by ``ann``.

    A named tuple rather than a dataclass: random playouts make millions of them.
    """

    actor: str
    verb: Verb
    target: str | None = None

    def text(self) -> str:
        return self.verb.value if self.target is None else f"{self.verb.value} {self.target}"

    def __str__(self) -> str:
        return f"{self.actor}: {self.text()}"


EVERYONE: None = None


class _EventFields(NamedTuple):
    key: str
    data: Mapping[str, Any]
    to: tuple[str, ...] | None
    channel: str | None


_tuple_new = tuple.__new__


class Event(_EventFields):
    """Something that happened, for an audience.

    ``key`` names the message (the service renders it per recipient and language);
    ``to`` is ``None`` for everyone, else the players who may learn it;
    ``channel`` names a shared private channel (``werewolves``, ``freemasons``) when the
    audience is a team rather than one player.

    An immutable named tuple rather than a frozen dataclass: a game makes one for nearly
    every move, and a frozen dataclass costs two to three times as much to build.
    """

    __slots__ = ()

    def __new__(cls, key: str, data: Mapping[str, Any] | None = None, to: tuple[str, ...] | None = EVERYONE,
                channel: str | None = None) -> Event:
        return _tuple_new(cls, (key, {} if data is None else data, to, channel))

    @property
    def public(self) -> bool:
        return self.to is None

    def for_player(self, player: str) -> bool:
        return self.to is None or player in self.to

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"key": self.key, "data": dict(self.data)}
        if self.to is not None:
            out["to"] = list(self.to)
        if self.channel is not None:
            out["channel"] = self.channel
        return out

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Event:
        to = raw.get("to")
        return cls(raw["key"], dict(raw.get("data", {})), tuple(to) if to is not None else None, raw.get("channel"))


new_event: Callable[[tuple[str, Mapping[str, Any], tuple[str, ...] | None, str | None]], Event] = partial(
    _tuple_new, Event)
"""``Event(key, data, to, channel)`` from the four of them in a tuple, without the Python-level
``__new__`` (for the moves, which make one each)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: the winning side, the winning players (seating order), and a reason key."""

    team: Team
    winners: tuple[str, ...]
    reason: str
    scores: Mapping[str, int] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"team": self.team.value, "winners": list(self.winners), "reason": self.reason}
        if self.scores is not None:
            out["scores"] = dict(self.scores)
        return out

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Outcome:
        scores = raw.get("scores")
        return cls(Team(raw["team"]), tuple(raw["winners"]), raw["reason"], dict(scores) if scores else None)


@dataclass(frozen=True)
class GameConfig:
    """What a game is created from (besides the seed).

    ``players`` is the seating, clockwise. ``roles`` fixes the cards (a record may name them);
    otherwise ``deck`` (a list of role names) or ``theme`` builds the deck, else the rule set's
    default deck for the player count. ``options`` are rule-set options.
    """

    rules: RuleSet
    players: tuple[str, ...]
    roles: Mapping[str, Any] | None = None
    deck: tuple[str, ...] | None = None
    theme: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
