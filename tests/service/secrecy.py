"""Who may know what: the leak checks' oracle, from the rulebooks' secrecy rules.

The leak checks (``leaks.py``) ask, for each text a player is sent, whether it names another
player's card, or reports another player's night choice, that the player may not know. What he
may know is decided here, by ``TABLE``: one row for each character and event the rulebooks (and
RULINGS.md, where they are silent) let someone learn another's card by, with the words that say
so. A row is evaluated on what happened at the table, never on what the engine says it told
whom: the cards dealt, the moves the players made, who was lynched, whose card was turned face up
for everyone (only the three characters that do so), and in Lupusburg which character the
Burgomaster showed. So an engine that tells too much (every player told the Seer's vision, the
pack told the Seer's name) fails the leak tests instead of widening what they allow.

Everyone else learns nothing of another's card: ``NOTHING`` says why for each. The end of the game
reveals every card; the checks leave its texts out.

Where a row allows more than the physical game would (every look a Seer chose in a night, not only
the last; every Werewolf for a Mythomaniac who joins them, not only the living), the check is the
weaker for it, never wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

WOLVES = ("werewolf", "lara")
LOOKERS = ("seer", "fortune_teller", "darius")
#: The characters who turn their card face up for everyone during the game.
REVEALERS = ("deadalive", "dorian_wolf", "hamlet")


def owner(house: str) -> str:
    """Lupusburg: whose house ``ann:left`` is."""
    return house.rsplit(":", 1)[0]


@dataclass
class Table:
    """What happened at the table, as the oracle reads it."""

    rules: str
    players: tuple[str, ...]
    dealt: Mapping[str, str]
    """The cards: player -> character; in Lupusburg house (``ann:left``) -> character."""
    moves: list[tuple[str, str, str | None]] = field(default_factory=list)
    """(actor, verb, target) as the players made them, in order."""
    lynched: tuple[str, ...] = ()
    revealed: frozenset[str] = frozenset()
    """Players whose card lies face up for everyone (the table's tokens, not anyone's knowledge)."""
    shown: set[tuple[str, str]] = field(default_factory=set)
    """Lupusburg: (player, house of the Burgomaster's he was shown)."""
    learned: dict[str, tuple[set[str], set[str]]] | None = None
    """``TABLE`` evaluated, by who learns (made by ``known`` once)."""

    def card(self, player: str) -> str | None:
        """His card; in Lupusburg the Werewolf or the Thief if either is among his two (LB: "the
        player will act as a Werewolf or as a Thief, until both of his characters are out")."""
        if self.rules != "lupusburg":
            return self.dealt.get(player)
        mine = {r for h, r in self.dealt.items() if owner(h) == player}
        return next((r for r in ("werewolf", "thief") if r in mine), "townsfolk" if mine else None)

    def holders(self, *roles: str) -> list[str]:
        return [p for p in self.players if self.card(p) in roles]

    def by(self, verb: str, *roles: str) -> list[tuple[str, str]]:
        """(actor, target) of every move with this verb by a holder of one of these cards."""
        return [(a, t) for a, v, t in self.moves if v == verb and t is not None and self.card(a) in roles]

    def mimicked(self) -> dict[str, str]:
        """Each Mythomaniac's choice at the end of the second night (his last counts) -> its card."""
        out: dict[str, str] = {}
        for myth, target in self.by("mimic", "mythomaniac"):
            out[myth] = self.dealt[target]
        return out

    def channel(self, role: str) -> list[str]:
        """Who shares a looker's private channel: its holders and a Mythomaniac who copied it."""
        return self.holders(role) + [m for m, r in self.mimicked().items() if r == role]

    def pack(self) -> list[str]:
        return self.holders(*WOLVES) + [m for m, r in self.mimicked().items() if r in WOLVES]


Pairs = Callable[[Table], Iterable[tuple[str, str]]]


@dataclass(frozen=True)
class Rule:
    character: str
    event: str
    learns: str
    source: str
    pairs: Pairs
    """(who learns, whose card) for this table."""
    hears_choices: bool = False
    """He also hears the other's night choices (they share a private channel)."""


def _each(knowers: Iterable[str], known: Iterable[str]) -> list[tuple[str, str]]:
    known = list(known)
    return [(a, b) for a in knowers for b in known]


def _looks(role: str) -> Pairs:
    def pairs(t: Table) -> list[tuple[str, str]]:
        members = t.channel(role)
        return [(m, target) for actor, target in t.by("see", role, "mythomaniac") if actor in members for m in members]

    return pairs


def _joined(roles: Sequence[str]) -> Pairs:
    def pairs(t: Table) -> list[tuple[str, str]]:
        out = []
        for myth, became in t.mimicked().items():
            if became in roles:
                mates = t.pack() if roles == WOLVES else t.channel(became)
                out += _each([myth], mates) + _each(mates, [myth])
        return out

    return pairs


def _burgomaster_sees(t: Table) -> list[tuple[str, str]]:
    return [(a, h) for a, v, h in t.moves if v == "privilege" and h is not None]


TABLE: tuple[Rule, ...] = (
    # -- Lupus in Tabula, and the expansion's characters (rule sets tabula and aura) --------------
    Rule(
        "Werewolf, Lara",
        "the first night",
        "every Werewolf (Lara is one)",
        'LIT: "The Werewolves open their eyes, and recognize each other"; LWR: Lara "is one of the Werewolves"',
        lambda t: _each(t.holders(*WOLVES), t.holders(*WOLVES)),
        hears_choices=True,
    ),
    Rule(
        "Freemason",
        "the first night",
        "the other Freemason",
        'LIT: "they are two Humans who know each other\'s role"',
        lambda t: _each(t.holders("freemason"), t.holders("freemason")),
    ),
    Rule(
        "Werecow",
        "the first night",
        "the Werewolves, and a Mythomaniac (they raise their hands)",
        'LWR: "all the Werewolves raise a hand ... (So, the Werecow knows the Werewolves, but they do not know '
        'who the Werecow is!)"; "The Mythomaniac raises his hand during the Werecow Phase"',
        lambda t: _each(t.holders("werecow"), t.holders(*WOLVES, "mythomaniac")),
    ),
    Rule(
        "Seer",
        "each night's look, see X",
        "X (Were or not), shared with a Mythomaniac who copied him",
        'LIT: "the moderator reveals to him whether or not this is a Werewolf"; RULINGS: the copied look is '
        '"in one shared private channel"',
        _looks("seer"),
        hears_choices=False,
    ),
    Rule(
        "Fortune Teller",
        "each night's look, see X",
        "X, shared with a Mythomaniac who copied her",
        'LWR: "The Fortune Teller has the same ability as the Seer, but they do not know each other"',
        _looks("fortune_teller"),
    ),
    Rule("Darius", "each night's look, see X", "X", 'LWR: "Darius acts just like the Seer"', _looks("darius")),
    Rule(
        "Medium",
        "each night from the second",
        "whether the last player lynched was a Werewolf",
        'LIT: "shows him thumbs-up, if the last player lynched was a Werewolf"',
        lambda t: _each(t.holders("medium"), t.lynched),
    ),
    Rule(
        "Mythomaniac",
        "mimic X, X a Werewolf or Lara",
        "the Werewolves, and they him; he hunts with them",
        'LIT: "he immediately takes on the same role as the chosen player ... each decision is taken together"; '
        'RULINGS: "is told the living Werewolves only, and only they are told of him"',
        _joined(WOLVES),
        hears_choices=True,
    ),
    Rule(
        "Mythomaniac",
        "mimic X, X the Seer or the Fortune Teller",
        "X, and X him; they look together",
        'LWR: "If he points at the Fortune Teller, he gains her ability and opens his eyes during the Fortune '
        'Teller Phase"; RULINGS: "in one shared private channel with it"',
        _joined(("seer", "fortune_teller")),
        hears_choices=True,
    ),
    Rule(
        "Hamlet (aura)",
        "the first night's peek X",
        "X's Aura, or X's card if X has none",
        'LWR (4-7 players): "he can take a peek at another character\'s Aura card"; looks "see the Aura if '
        'there is one, else the character" (RULINGS)',
        lambda t: t.by("peek", "hamlet"),
    ),
    Rule(
        "everyone",
        "a Deadalive, Dorian Wolf or Hamlet reveals himself",
        "his card",
        'LWR: the Deadalive "reveals his character card"; Dorian Wolf "may reveal his character card to stay '
        'alive"; Hamlet "may reveal his character card"',
        lambda t: _each(t.players, [p for p in t.revealed if t.dealt.get(p) in REVEALERS]),
    ),
    # -- Lupusburg --------------------------------------------------------------------------------
    Rule(
        "every player (Lupusburg)",
        "the deal",
        "his own two characters",
        'LB: "Each player secretly looks at his characters"',
        lambda t: [(owner(h), h) for h in t.dealt] if t.rules == "lupusburg" else [],
    ),
    Rule(
        "Thief",
        "each night's peek H",
        "the character in house H",
        'LB: "he selects any one house, lifts it gently, looks at it"',
        lambda t: t.by("peek", "thief"),
    ),
    Rule(
        "Burgomaster",
        "his privilege on H",
        "the character in house H",
        'LB: "He chooses one living character: the owner of that character secretly shows it to the Burgomaster"',
        _burgomaster_sees,
    ),
    Rule(
        "the owner of H",
        "the Burgomaster's answer to his privilege",
        "the one character he is shown",
        'LB: "who must then secretly show one of his own characters to that player"',
        lambda t: sorted(t.shown),
    ),
)

#: The characters that learn nothing of another's card, and why.
NOTHING = {
    "villager": "no power",
    "possessed": 'LIT: "he sides with the Werewolves... without knowing who they are!"',
    "bodyguard": "protects; learns nothing",
    "owl_man": "his choice is announced to all; it tells nobody's card",
    "werehamster": "no power",
    "baron_samedi": "revives; learns nothing",
    "miss_purple": "a number of wicked characters (tabula), the last Aura discarded (aura): no one's card",
    "dr_jekyll": "kills; learns nothing",
    "dorian_wolf": "gives the Portrait; learns nothing",
    "deadalive": "no power",
    "townsfolk": "LB: no power",
    "werewolf (Lupusburg)": "LB: a lone Werewolf, who learns nothing",
}


def known(table: Table, player: str) -> tuple[set[str], set[str]]:
    """(whose card he may see named, whose night choices he may hear): himself (in Lupusburg, his
    two houses), and what ``TABLE`` lets him learn."""
    if table.learned is None:
        table.learned = {}
        for rule in TABLE:
            for knower, other in rule.pairs(table):
                cards, mates = table.learned.setdefault(knower, (set(), set()))
                cards.add(other)
                if rule.hears_choices:
                    mates.add(other)
    own = {h for h in table.dealt if owner(h) == player} if table.rules == "lupusburg" else set()
    cards, mates = table.learned.get(player, (set(), set()))
    return cards | own | {player}, mates | own | {player}


def moves_of(log: Iterable[Mapping[str, Any]]) -> list[tuple[str, str, str | None]]:
    """(actor, verb, target) from the service's event log of moves (``{"actor", "text"}``)."""
    out: list[tuple[str, str, str | None]] = []
    for data in log:
        actor, text = data.get("actor"), str(data.get("text") or "")
        if actor:
            verb, _, target = text.partition(" ")
            out.append((str(actor), verb, target or None))
    return out


def table_of(
    state: Any, moves: Iterable[tuple[str, str, str | None]] = (), shown: Iterable[tuple[str, str]] = ()
) -> Table:
    """The table of a game whose last state is ``state`` (its cards, the lynched, the cards lying
    face up) and whose players made ``moves``."""
    rules = state.rules.value
    if rules == "lupusburg":
        dealt = {h: r.value for h, r in state.cards.items()}
        revealed: frozenset[str] = frozenset()
        lynched: tuple[str, ...] = ()
    else:
        dealt = {p: r.value for p, r in state.roles.items()}
        revealed = frozenset(state.marks.get("revealed", {}))
        lynched = tuple(state.lynched)
    return Table(rules, tuple(state.players), dealt, list(moves), lynched, revealed, set(shown))


def shown_by(state: Any) -> tuple[str, str] | None:
    """Lupusburg: (player, house) when this state holds a Burgomaster's answer to his privilege."""
    privilege = getattr(state, "privilege", None)
    if not privilege or privilege[1] is None:
        return None
    return owner(privilege[0]), f"{state.burgomaster}:{privilege[1]}"
