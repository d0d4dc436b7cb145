"""What each event carries (``Event.data``), by the event's key: the seam between the engine and
the service's texts, which render each key per reader and language.

The payloads stay plain JSON-like dicts at run time (events are stored and sent as such); their
shapes are declared here as ``TypedDict``s, and ``PAYLOADS`` maps every key the engine emits to
its shape. ``tests/engine/test_seams.py`` holds every event of seeded random games and of the
game records to it, so a payload cannot change shape without this file saying so. A reader
that knows an event's key may ``cast`` its data to the shape named here.
"""

from typing import Any, NotRequired, TypedDict

from .viewing import Bet


# -- the game ---------------------------------------------------------------------------------------
class GameStarted(TypedDict):
    rules: str
    players: list[str]
    deck: dict[str, int]
    """Each card's count; with four players of ``aura``, only the Werewolf (see ``three_of``)."""
    three_of: NotRequired[list[str]]
    """``aura`` with four players: three of these four cards were dealt."""
    burgomaster: NotRequired[str]
    """``lupusburg``: the first Burgomaster."""
    coins: NotRequired[list[int]]
    """``lupusburg``: the coins in the bag."""


class GameOver(TypedDict):
    team: str
    winners: list[str]
    reason: str
    roles: dict[str, Any]
    """Every card: ``tabula`` one a player, ``lupusburg`` each player's two, left first."""
    became: NotRequired[dict[str, str]]
    """``tabula``, ``aura``: a Mythomaniac's new role."""
    scores: NotRequired[dict[str, int]]
    chests: NotRequired[dict[str, str]]
    bets: NotRequired[dict[str, Bet]]
    score_table: NotRequired[dict[str, dict[str, int]]]


class RoleDealt(TypedDict):
    role: str


class HousesDealt(TypedDict):
    role: str
    left: str
    right: str
    chest: str


class Members(TypedDict):
    """A team told of itself (the pack, the Freemasons)."""

    members: list[str]


# -- phases -----------------------------------------------------------------------------------------
class NightBegins(TypedDict):
    night: int
    burgomaster: NotRequired[str]


class DayBegins(TypedDict):
    day: int
    burgomaster: NotRequired[str]


class BallotBegins(TypedDict):
    day: int
    suspects: list[str]
    burgomaster: NotRequired[str]
    """``lupusburg``: the day's Burgomaster."""


class Dawn(TypedDict):
    night: int
    dead: list[str]
    """Players (``lupusburg``: houses) killed this night."""
    welcome: NotRequired[str | None]
    players: NotRequired[list[str]]
    """``lupusburg``: the owners of the houses in ``dead``."""


# -- choices and votes ------------------------------------------------------------------------------
class Choice(TypedDict):
    actor: NotRequired[str]
    """``tabula``, ``aura``: who chose (the channel that shares a choice reads it); ``lupusburg``
    tells only the chooser."""
    verb: str
    target: str | None
    changed: bool


class Vote(TypedDict):
    voter: str
    target: str
    votes: NotRequired[int]
    """``tabula``: the target's nominations so far."""
    tokens_left: NotRequired[int]
    tally: NotRequired[list[list[Any]]]


class TieOrder(TypedDict):
    """Whom the order around the table, which breaks a tie, is counted from (RULINGS: Seating)."""

    by: str
    """``welcome``: the player after the "Welcome!" holder; ``claw`` (``aura``): the player after the
    character the Werewolf Claw marks; ``seat``: nobody holds either yet, the first seat;
    ``burgomaster`` (``lupusburg``): the Burgomaster himself."""
    player: str
    """The holder of "Welcome!", the Claw's mark, the first seat or the Burgomaster."""
    first: str
    """The player counted first."""


class Suspects(TypedDict):
    suspects: list[str]
    tally: list[list[Any]]
    order: TieOrder


class BallotTaken(TypedDict):
    target: str
    changed: bool
    votes: NotRequired[list[str]]
    of: NotRequired[int]


class Ballots(TypedDict):
    ballots: dict[str, Any]
    """Each voter's ballot (``lupusburg``: his votes)."""
    counts: dict[str, int]
    lynched: str
    order: TieOrder


class Split(TypedDict):
    choices: dict[str, str]
    overridden: bool


class StandingReveal(TypedDict):
    on: bool


# -- what the night tells ---------------------------------------------------------------------------
class Look(TypedDict):
    """A seer's answer: whether the card reads as "Were", or in ``aura`` its Aura, its card, or
    nothing under a tile."""

    target: str
    night: NotRequired[int]
    were: NotRequired[bool]
    aura: NotRequired[str]
    role: NotRequired[str]
    blocked: NotRequired[bool]


class Wicked(TypedDict):
    wicked: int
    night: int


class LastAura(TypedDict):
    aura: str | None
    night: int


class Hands(TypedDict):
    hands: list[str]


class Joined(TypedDict):
    member: str
    members: list[str]
    role: NotRequired[str]


class Target(TypedDict):
    target: str


class Player(TypedDict):
    player: str


class Holder(TypedDict):
    holder: str


class Revealed(TypedDict):
    player: str
    holder: str


class SkullPassed(TypedDict):
    holder: str
    to: str
    random: bool


class Nothing(TypedDict):
    pass


class AuraDealt(TypedDict):
    aura: str


# -- Lupusburg --------------------------------------------------------------------------------------
class ThiefResult(TypedDict):
    house: str
    card: str
    chest: bool
    night: int


BurgomasterPassed = TypedDict("BurgomasterPassed", {"burgomaster": str, "from": str})


class PrivilegeUsed(TypedDict):
    burgomaster: str
    house: str
    player: str


class PrivilegeSeen(TypedDict):
    house: str
    card: str
    player: NotRequired[str]
    """The owner of ``house`` (a fact remembered from an older game has none)."""


class PrivilegeMustShow(TypedDict):
    player: str
    """Whom the Burgomaster must now show one of his characters."""


class PrivilegeShown(TypedDict):
    burgomaster: str
    house: str
    card: str
    seen: NotRequired[str]
    """The reader's house the Burgomaster looked at."""
    random: NotRequired[bool]
    """The Burgomaster did not choose: the bot showed one at the nominations' close."""


class PrivilegeShowed(TypedDict):
    player: str
    side: str
    card: str
    random: bool


class BurgomasterPrivilege(TypedDict):
    burgomaster: str
    day: int


class PrivilegeAnswered(TypedDict):
    burgomaster: str
    player: str


class BetDrawn(TypedDict):
    target: str
    coins: list[int]


class BetPlaced(TypedDict):
    target: str
    coin: int
    random: NotRequired[bool]
    """He had not chosen his coin: the bot kept one for him at the nominations' close."""


PAYLOADS: dict[str, type] = {
    "game.started": GameStarted,
    "game.over": GameOver,
    "role.dealt": RoleDealt,
    "houses.dealt": HousesDealt,
    "werewolf.pack": Members,
    "freemason.lodge": Members,
    "phase.night": NightBegins,
    "phase.nominations": DayBegins,
    "phase.ballot": BallotBegins,
    "night.dawn": Dawn,
    "night.choice": Choice,
    "day.choice": Choice,
    "day.vote": Vote,
    "day.suspects": Suspects,
    "day.ballot_taken": BallotTaken,
    "day.ballots": Ballots,
    "werewolf.split": Split,
    "standing.reveal": StandingReveal,
    "seer.result": Look,
    "fortune_teller.result": Look,
    "darius.result": Look,
    "medium.result": Look,
    "hamlet.peek": Look,
    "miss_purple.result": Wicked,
    "miss_purple.aura": LastAura,
    "werecow.hands": Hands,
    "mythomaniac.joined_pack": Joined,
    "mythomaniac.joined_seer": Joined,
    "mythomaniac.stays_human": Target,
    "owl_man.named": Target,
    "dr_jekyll.potion": Target,
    "dr_jekyll.hyde": Nothing,
    "werewolf.claw_blocked": Target,
    "aura.claw": Target,
    "aura.lost": Player,
    "aura.dealt": AuraDealt,
    "baron_samedi.revived": Player,
    "deadalive.revealed": Player,
    "dorian_wolf.portrait": Holder,
    "dorian_wolf.revealed": Revealed,
    "hamlet.skull": Holder,
    "hamlet.revealed": Revealed,
    "hamlet.skull_passed": SkullPassed,
    "thief.result": ThiefResult,
    "burgomaster.passed": BurgomasterPassed,
    "privilege.used": PrivilegeUsed,
    "privilege.seen": PrivilegeSeen,
    "privilege.shown": PrivilegeShown,
    "privilege.answered": PrivilegeAnswered,
    "privilege.must_show": PrivilegeMustShow,
    "privilege.showed": PrivilegeShowed,
    "burgomaster.privilege": BurgomasterPrivilege,
    "bet.drawn": BetDrawn,
    "bet.placed": BetPlaced,
    "bet.sealed": Player,
}
"""Every event key the engine emits, with the shape of its data."""
