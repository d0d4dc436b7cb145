"""The engine's vocabulary: rule sets, characters, phases, verbs, actions, events, outcomes.

Everything here is an immutable value that serializes to JSON primitives.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple, Self


class Documented(StrEnum):
    """A ``StrEnum`` whose members carry their own docstring, readable at run time
    (``Role.SEER.__doc__``): each member is declared as ``NAME = "value", "what it is"``.
    The value stays the plain string game records use."""

    _value_: str

    # ``doc`` has a default for mypy's sake only: ``Role("seer")`` looks a member up, never calls this.
    def __new__(cls, value: str, doc: str = "") -> Self:
        member = str.__new__(cls, value)
        member._value_ = value
        member.__doc__ = doc
        return member


class RuleSet(Documented):
    """Which game is played; the name a game record uses in ``rules:``."""

    TABULA = (
        "tabula",
        "Lupus in Tabula, 8-24 players, with any of the expansion's characters; the bot is the Moderator.",
    )
    AURA = "aura", "Lady Werewolf's Revenge's 4-7 player variant with Aura cards."
    LUPUSBURG = "lupusburg", "The stand-alone variant: two characters each, houses, a Thief, a Burgomaster, bets."


class Role(Documented):
    """A character card, by the name game records use."""

    VILLAGER = "villager", "A Human with no power; wins when every Werewolf is dead."
    WEREWOLF = (
        "werewolf",
        "Hunts with the pack: each night the living Werewolves name a victim together; "
        "wins when they are as many as the other living characters.",
    )
    SEER = (
        "seer",
        'A Human who each night looks at another living player and learns whether he is a Werewolf ("Were").',
    )
    MEDIUM = ("medium", "A Human who from the second night learns whether the last player lynched was a Werewolf.")
    POSSESSED = ("possessed", "A Human who sides with the Werewolves without knowing who they are; reads as human.")
    BODYGUARD = (
        "bodyguard",
        "A Human who from the second night protects another player against the Werewolves (only against them).",
    )
    OWL_MAN = (
        "owl_man",
        "A Human who each night names a player who becomes one of the next day's two "
        "suspects; deadly with more than 20 players.",
    )
    FREEMASON = "freemason", "One of two Humans who know each other from the first night."
    WEREHAMSTER = (
        "werehamster",
        "Plays alone: the Werewolves cannot kill him, a Seer's look does; if alive when the game ends, he alone wins.",
    )
    MYTHOMANIAC = (
        "mythomaniac",
        "At the end of the second night names a player: a Werewolf or a Seer, he "
        "becomes one too; anyone else, he stays a Human.",
    )
    # Lady Werewolf's Revenge
    LARA = (
        "lara",
        "The Lady Werewolf: hunts with the pack, and may instead name another Werewolf, who "
        "is then the night's victim.",
    )
    BARON_SAMEDI = (
        "baron_samedi",
        'A Human who once per game, from the second night, even as a Ghost, brings the "Welcome!" holder back to life.',
    )
    MISS_PURPLE = (
        "miss_purple",
        "A Human who from the second night learns how many wicked characters "
        "live (in the Aura variant: the last Aura discarded).",
    )
    DARIUS = (
        "darius",
        "Guardian of the Shadow: a wicked seer who looks each night; alive at the end with "
        "at most one other, he alone wins.",
    )
    WERECOW = (
        "werecow",
        "Dreams of being a Werewolf: sees the pack on the first night, wins with it, "
        'reads as "Were"; not a Werewolf for the end.',
    )
    DEADALIVE = (
        "deadalive",
        "A Human already dead: never counts as living; killed, he is revealed and goes on talking and voting.",
    )
    DORIAN_WOLF = (
        "dorian_wolf",
        "A Human who gives his Portrait on the first night; killed, he may reveal himself and its holder dies instead.",
    )
    DR_JEKYLL = (
        "dr_jekyll",
        "A Human who from the second night drinks the potion and, as Mr. Hyde, kills "
        "(once in Lupus in Tabula, nightly with Auras).",
    )
    HAMLET = (
        "hamlet",
        "A Human who gives the Skull on the first night; it passes each day, and when "
        "Hamlet dies its holder may die with him.",
    )
    FORTUNE_TELLER = ("fortune_teller", "A second Seer with her own look each night; neither knows the other.")
    # Lupusburg
    TOWNSFOLK = (
        "townsfolk",
        "Lupusburg: a plain character under a house; its owner scores 2 points for it if it lives to the end.",
    )
    THIEF = ("thief", "Lupusburg: each night looks under one house for its character and the chest; steals nothing.")


class Team(Documented):
    """A side that wins as a whole (or a character who wins alone)."""

    HUMANS = "humans", "The Villagers and every other Human: win when no Werewolf is alive."
    WEREWOLVES = (
        "werewolves",
        "The Werewolves with the Possessed and the Werecow: win when the living "
        "Werewolves are as many as all other living characters.",
    )
    WEREHAMSTER = "werehamster", "The Werehamster alone, alive when the game ends."
    DARIUS = "darius", "Darius alone, alive at the end with at most one other living character."
    WEREWOLF = "werewolf", "Lupusburg: the Werewolf's player alone."
    TOWNSFOLK = "townsfolk", "Lupusburg: the best score among the other players."


class Phase(Documented):
    """The kind of the current phase (what each one does: ``tabula/phases.py``, ``lupusburg/phases.py``)."""

    NIGHT = "night", "Every night role chooses privately; resolved at close in the rulings' order."
    NOMINATIONS = (
        "nominations",
        "Public votes, final once cast; the two most voted become suspects (Lupusburg: "
        "also the Burgomaster's privilege and the bets).",
    )
    BALLOT = "ballot", "Secret votes between the two suspects, revealed together at close; one is lynched."
    OVER = "over", "The game has ended."


class Verb(Documented):
    """What a player may type (in English; the service translates the other languages)."""

    KILL = "kill", "Name the night's victim: the Werewolves (Lara), Lupusburg's Werewolf pointing the Claw."
    SEE = "see", "Look at a player at night: the Seer, the Fortune Teller, Darius, a Mythomaniac who copied one."
    PROTECT = "protect", "The Bodyguard guards another player against the Werewolves tonight."
    OWL = "owl", "The Owl-man names tomorrow's suspect (in a deadly game, his victim)."
    MIMIC = "mimic", "The Mythomaniac, at the end of the second night, names the player whose role he may take."
    VOTE = "vote", "By day: nominate a player (a house in Lupusburg), or in the ballot vote for a suspect."
    REVIVE = "revive", 'Baron Samedi, once per game, brings the "Welcome!" holder back (names nobody).'
    PORTRAIT = "portrait", "Dorian Wolf, on the first night, gives his Portrait to another character."
    SKULL = "skull", "Hamlet gives the Skull on the first night; by day its holder passes it on."
    POTION = "potion", "Dr. Jekyll drinks the potion and, as Mr. Hyde, names his victim."
    PEEK = (
        "peek",
        "A look under a card: Hamlet's Aura on the first night (aura), the Thief under a house (Lupusburg).",
    )
    REVEAL = (
        "reveal",
        "A standing order, ``reveal on`` or ``off``: whether Dorian Wolf or Hamlet shows his card when killed.",
    )
    PRIVILEGE = ("privilege", "Lupusburg: the Burgomaster looks at another player's living character, once a day.")
    SHOW = "show", "Lupusburg: the Burgomaster shows that player one of his own characters, ``left`` or ``right``."
    BET = "bet", "Lupusburg: once per game, bet on who the Werewolf is; three coins are drawn from the bag."
    COIN = "coin", "Lupusburg: keep one of the coins drawn for a bet, by its value."


#: Verbs that name no target.
NO_TARGET_VERBS = frozenset({Verb.REVIVE})


class Action(NamedTuple):
    """One player's move, exactly what he would type: ``vote bob`` by ``ann``.

    A named tuple rather than a dataclass: it unpacks as ``actor, verb, target``.
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


class Event(_EventFields):
    """Something that happened, for an audience.

    ``key`` names the message (the service renders it per recipient and language);
    ``to`` is ``None`` for everyone, else the players who may learn it;
    ``channel`` names a shared private channel (``werewolves``, ``freemasons``) when the
    audience is a team rather than one player.

    An immutable named tuple rather than a frozen dataclass: a game makes one for nearly
    every move, and a named tuple is the cheapest immutable value Python builds.
    """

    __slots__ = ()

    def __new__(
        cls,
        key: str,
        data: Mapping[str, Any] | None = None,
        to: tuple[str, ...] | None = EVERYONE,
        channel: str | None = None,
    ) -> Event:
        return tuple.__new__(cls, (key, {} if data is None else data, to, channel))

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
