"""Setup: the deck by player count, the redeal rule, houses and chests, coins, the first
Burgomaster, and refusals of every bad setup."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest

from engine import InvalidSetup, Phase
from engine.lupusburg.houses import houses_of
from engine.lupusburg.setup import COINS
from engine.types import Role

from .lupusburg_helpers import FOUR, find, four, game, game_and_events

NAMES = ("ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal")


@pytest.mark.parametrize("n", range(4, 9))
def test_deck_two_characters_each_and_chests(n: int) -> None:
    for seed in range(40):
        s = game(NAMES[:n], seed=seed)
        counts = Counter(s.cards.values())
        assert counts == {Role.WEREWOLF: 1, Role.THIEF: 1, Role.TOWNSFOLK: 2 * n - 2}
        assert len(s.cards) == 2 * n and s.alive == frozenset(s.cards)
        for p in s.players:
            pair = {s.cards[h] for h in houses_of(p)}
            assert pair != {Role.WEREWOLF, Role.THIEF}, "the redeal rule"
            assert s.cards[s.chest_house(p)] is Role.TOWNSFOLK, "no Werewolf or Thief under the chest"
        assert s.bag == COINS == (8, 7, 6, 5, 4, 3, 2, 2)
        assert s.burgomaster == NAMES[0]
        assert s.phase is Phase.NIGHT and s.night == 1 and s.day == 0


def test_redeal_happens_and_is_reproducible() -> None:
    """With 4 players a deal puts Werewolf and Thief together about once in seven: some seeds
    must have been redealt, and the same seed always deals the same."""
    from engine.lupusburg import setup

    redealt = 0
    for seed in range(60):
        first = list(setup.default_deck(4))
        setup.rng(seed, "deal", 0).shuffle(first)
        if any({first[2 * i], first[2 * i + 1]} == {Role.WEREWOLF, Role.THIEF} for i in range(4)):
            redealt += 1
        assert game(seed=seed).cards == game(seed=seed).cards
    assert redealt > 0


def test_chests_are_random_but_seeded() -> None:
    sides = Counter(game(seed=seed).chests["cat"] for seed in range(60))
    assert set(sides) == {"left", "right"}


def test_dealt_privately_with_chest() -> None:
    chests = {"ann": "right", "bob": "right", "cat": "left", "dan": "left"}
    _, events = game_and_events(roles=FOUR, chests=chests)
    dealt = find(events, "houses.dealt")
    assert [e.to for e in dealt] == [("ann",), ("bob",), ("cat",), ("dan",)]
    assert dict(dealt[0].data) == {"role": "werewolf", "left": "werewolf", "right": "townsfolk", "chest": "right"}
    started = find(events, "game.started")[0]
    assert started.public and started.data["deck"] == {"thief": 1, "townsfolk": 6, "werewolf": 1}
    assert started.data["burgomaster"] == "ann"


def test_record_roles_force_the_chest_away_from_werewolf_and_thief() -> None:
    s = game(roles=FOUR)  # no chests given: the Werewolf's and Thief's are forced, the others dealt
    assert s.chests["ann"] == "right" and s.chests["bob"] == "right"
    assert s.role_of("ann") is Role.WEREWOLF and s.role_of("bob") is Role.THIEF
    assert s.role_of("cat") is Role.TOWNSFOLK


def test_given_chests_place_the_special_card_opposite() -> None:
    s = game(seed=3, chests={p: "left" for p in ("ann", "bob", "cat", "dan")})
    for p in s.players:
        assert s.chests[p] == "left" and s.cards[f"{p}:left"] is Role.TOWNSFOLK


def test_burgomaster_option() -> None:
    assert four(burgomaster="CAT").burgomaster == "cat"


@pytest.mark.parametrize(
    ("players", "roles", "options", "key"),
    [
        (NAMES[:3], None, {}, "setup.too_few"),
        ((*NAMES, "ivy"), None, {}, "setup.too_many"),
        (("ann", "ANN", "cat", "dan"), None, {}, "setup.duplicate_name"),
        (("ann", "bob", "c:t", "dan"), None, {}, "setup.bad_name"),
        (("ann", "bob", "left", "dan"), None, {}, "setup.bad_name"),
        (("ann", "bob", "2", "dan"), None, {}, "setup.bad_name"),
        (
            NAMES[:4],
            {**FOUR, "ann": ["werewolf", "thief"], "bob": ["townsfolk", "townsfolk"]},
            {},
            "setup.both_special",
        ),
        (NAMES[:4], {**FOUR, "cat": ["werewolf", "townsfolk"]}, {}, "setup.deck"),
        (NAMES[:4], {**FOUR, "cat": ["seer", "townsfolk"]}, {}, "setup.deck"),
        (NAMES[:4], {**FOUR, "cat": ["wizard", "townsfolk"]}, {}, "setup.unknown_role"),
        (NAMES[:4], {**FOUR, "cat": "townsfolk"}, {}, "setup.two_cards"),
        (NAMES[:4], {k: v for k, v in FOUR.items() if k != "dan"}, {}, "setup.roles_mismatch"),
        (NAMES[:4], FOUR, {"chests": {"ann": "left"}}, "setup.chest_on_special"),
        (NAMES[:4], None, {"chests": {"zed": "left"}}, "setup.bad_chests"),
        (NAMES[:4], None, {"chests": {"ann": "middle"}}, "setup.bad_chests"),
        (NAMES[:4], None, {"chests": ["ann"]}, "setup.bad_chests"),
        (NAMES[:4], None, {"burgomaster": "zed"}, "setup.bad_burgomaster"),
    ],
)
def test_bad_setups_are_refused(
    players: Sequence[str], roles: dict[str, Any] | None, options: dict[str, Any], key: str
) -> None:
    with pytest.raises(InvalidSetup) as err:
        game(players, roles, **options)
    assert err.value.key == key and err.value.reason


def test_deck_or_theme_refused() -> None:
    from engine import GameConfig, RuleSet, new_game

    with pytest.raises(InvalidSetup) as err:
        new_game(GameConfig(RuleSet.LUPUSBURG, NAMES[:4], deck=("werewolf",)), 1)
    assert err.value.key == "setup.fixed_deck"
