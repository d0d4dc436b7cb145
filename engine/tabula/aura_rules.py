"""The rule set ``aura``: Lady Werewolf's Revenge for 4-7 players, with Aura cards.

It is ``tabula`` with a fixed deck per player count, an Aura for every character at the
deal, and the tiles of ``auras.py``. It plays ``tabula``'s phases (``phases.py``); the
characters that change (Hamlet's peek, Dr. Jekyll every night, Miss Purple's look at the
discard pile, the Werewolves choosing their own) say so in their own modules. Ghosts vote
only in the nominations, as in ``tabula``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from ..errors import InvalidSetup
from ..rng import rng
from ..types import Event, GameConfig, Role, RuleSet
from ..viewing import TabulaPublicView
from . import deck
from .auras import AURA, INNOCENT, PILE, WICKED
from .character import is_wicked
from .rules import TabulaRules
from .state import TabulaState
from .table import Table

R = Role
MIN_PLAYERS, MAX_PLAYERS = 4, 7
#: With four players: the Werewolf and three of these four, one returned to the box unseen.
FOUR_OF = (R.WERECOW, R.DARIUS, R.FORTUNE_TELLER, R.MISS_PURPLE)
SETS: dict[int, tuple[Role, ...]] = {
    5: (R.WEREWOLF, R.WERECOW, R.DARIUS, R.FORTUNE_TELLER, R.MISS_PURPLE),
    6: (R.WEREWOLF, R.WERECOW, R.DARIUS, R.FORTUNE_TELLER, R.HAMLET, R.DR_JEKYLL),
    7: (R.WEREWOLF, R.LARA, R.DARIUS, R.FORTUNE_TELLER, R.MISS_PURPLE, R.HAMLET, R.DR_JEKYLL),
}


def _key(cards: Sequence[Role]) -> list[str]:
    return sorted(r.value for r in cards)


def check_count(n: int) -> None:
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise InvalidSetup(
            "setup.aura_count",
            f"the Aura variant is for {MIN_PLAYERS} to {MAX_PLAYERS} players (there are {n})",
            minimum=MIN_PLAYERS,
            maximum=MAX_PLAYERS,
            count=n,
        )


def check_deck(cards: Sequence[Role], n: int) -> None:
    """The variant's cards are fixed by the player count; anything else is refused."""
    check_count(n)
    if n == 4:
        ok = len(cards) == 4 and Counter(cards)[R.WEREWOLF] == 1 and len({c for c in cards if c in FOUR_OF}) == 3
        want = "the Werewolf and three of " + ", ".join(r.value for r in FOUR_OF)
    else:
        ok = _key(cards) == _key(SETS[n])
        want = ", ".join(r.value for r in SETS[n])
    if not ok:
        raise InvalidSetup(
            "setup.aura_deck", f"with {n} players the Aura variant uses exactly: {want}", count=n, deck=want
        )


def aura_deck(n: int, seed: int) -> list[Role]:
    check_count(n)
    if n == 4:
        return [R.WEREWOLF, *rng(seed, "aura", "four").sample(FOUR_OF, 3)]
    return list(SETS[n])


class AuraRules(TabulaRules):
    name = RuleSet.AURA

    def deal(self, config: GameConfig, seed: int) -> dict[str, Role]:
        players = config.players
        n = len(players)
        check_count(n)
        if config.theme:
            raise InvalidSetup(
                "setup.aura_theme",
                "themes are for Lupus in Tabula (rules tabula), "
                "not for the Aura variant, whose cards are fixed by the player count",
            )
        if config.roles:
            named = {p: str(r) for p, r in config.roles.items()}
            missing = [p for p in players if p not in named]
            extra = [p for p in named if p not in players]
            if missing or extra:
                raise InvalidSetup(
                    "setup.roles_mismatch", f"roles must name every player once (missing: {missing}, unknown: {extra})"
                )
            roles = {p: deck.parse_roles([named[p]])[0] for p in players}
            check_deck(list(roles.values()), n)
            return roles
        cards = deck.parse_roles(config.deck) if config.deck else aura_deck(n, seed)
        check_deck(cards, n)
        return deck.deal(players, cards, seed)

    def public_deck(self, state: TabulaState) -> dict[str, Any]:
        out = super().public_deck(state)
        if len(state.players) == 4:
            # One of the four went back to the box unseen: say only which four they were.
            out["deck"] = {R.WEREWOLF.value: 1}
            out["three_of"] = [r.value for r in FOUR_OF]
        return out

    def start(self, state: TabulaState) -> tuple[TabulaState, list[Event]]:
        auras = {p: WICKED if is_wicked(state, p) else INNOCENT for p in state.players}
        state, events = super().start(state.with_marks(**{AURA: auras, PILE: ()}))
        table = Table(state, "auras")
        for p in state.players:
            table.tell(p, "aura.dealt", aura=auras[p])
        return table.freeze(), events + table.events

    def public_view(self, state: TabulaState) -> TabulaPublicView:
        out = super().public_view(state)
        held = state.marks.get(AURA, {})
        out["auras"] = [p for p in state.players if p in held]
        out["aura_pile"] = len(state.marks.get(PILE, ()))
        return out


RULES = AuraRules()
