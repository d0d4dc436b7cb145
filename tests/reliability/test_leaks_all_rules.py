"""No message to a player reveals what he may not know, on every rule set.

``tests/service/test_leaks.py`` plays 1,000 base-game ``tabula`` games through the rendering
layer. This extends the same check (``tests.service.leaks``) to the rest: ``tabula`` with the
expansion's themes, ``aura``, and ``lupusburg`` (whose secrets are the cards in each player's
two houses, named ``ann:left``). Who may know what is ``tests.service.secrecy``'s table, from the
rulebooks, evaluated on the moves made and what the table showed. Every text a player would be
sent is rendered as the outbox writer renders it (``render.reads`` picks readers,
``render.for_reader`` writes), plus the replies he can ask for (role, status). 1,000 games per rule
set in the ``slow`` suite, 60 in the default one.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import engine
from engine import Event, GameConfig, RuleSet
from engine.playout import play_out
from engine.tabula.themes import THEMES
from service.texts import player_texts, render
from tests.service.leaks import leaks
from tests.service.secrecy import Table, known, shown_by, table_of

POOL = [
    "ann",
    "bob",
    "cat",
    "dan",
    "eve",
    "fay",
    "gus",
    "hal",
    "ivy",
    "jon",
    "kim",
    "lou",
    "max",
    "ned",
    "oli",
    "pam",
    "quin",
    "rob",
    "sue",
    "tom",
    "uma",
    "vic",
    "wes",
    "zoe",
]
INFO = render.Info("K7Q", "Europe/Rome", None)
#: Names of things that contain a character's name but tell nothing of anybody's card: the Aura
#: called "Werewolf Claw" marks whom the pack clawed (a Werewolf may claw himself), not a Werewolf.
NOT_A_CARD = {"Werewolf Claw": "Claw"}


def config(rules: str, seed: int) -> GameConfig:
    rnd = random.Random(seed)
    if rules == "lupusburg":
        return GameConfig(RuleSet.LUPUSBURG, tuple(POOL[: rnd.randint(4, 8)]))
    if rules == "aura":
        return GameConfig(RuleSet.AURA, tuple(POOL[: rnd.randint(4, 7)]))
    key = rnd.choice(sorted(THEMES))
    theme = THEMES[key]
    n = rnd.randint(theme.lo, min(theme.hi, len(POOL)))
    return GameConfig(RuleSet.TABULA, tuple(POOL[:n]), theme=key)


def play(cfg: GameConfig, seed: int) -> tuple[engine.GameState, list[Event], Table]:
    """A random game, its events, and its table for the oracle: the moves made, and the
    characters the Burgomaster showed (Lupusburg)."""
    events: list[Event] = []
    moves: list[tuple[str, str, str | None]] = []
    shown: set[tuple[str, str]] = set()

    def on_step(action: engine.Action | None, state: Any, evs: list[Event]) -> None:
        events.extend(evs)
        if action is not None:
            moves.append((action.actor, action.verb.value, action.target))
        if (answer := shown_by(state)) is not None:
            shown.add(answer)

    state = play_out(cfg, seed, random.Random(seed), max_phases=120, on_step=on_step)
    return state, events, table_of(state, moves, shown)


def secrets_of(state: Any) -> dict[str, str]:
    """Who carries which card: players in ``tabula``/``aura``, houses in ``lupusburg``."""
    if state.rules is RuleSet.LUPUSBURG:
        return {h: r.value for h, r in state.cards.items()}
    return {p: r.value for p, r in state.roles.items()}


def texts_for(state: Any, events: list[Event], player: str, lang: str) -> list[str]:
    reader = render.Reader(player, lang)
    out = [
        render.for_reader(e.key, e.data, e.to, render.Reader(player, lang, sms=sms), INFO)
        for e in events
        if e.key != "game.over" and render.reads(e.to, player)
        for sms in (False, True)
    ]  # the texts, and their short SMS forms
    view = engine.view(state, player)
    out.append(player_texts.role_text(view, reader, INFO))
    running: engine.PublicView = {**engine.public_view(state), "status": "running"}
    out.append(player_texts.status_text(running, reader, INFO, False))
    for phrase, plain in NOT_A_CARD.items():
        out = [text.replace(phrase, plain) for text in out]
    return out


def check_game(rules: str, seed: int) -> int:
    state, events, table = play(config(rules, seed), seed)
    secrets = secrets_of(state)
    lang = ("en", "it", "es")[seed % 3]
    checked = 0
    for player in state.players:
        cards, mates = known(table, player)
        for text in texts_for(state, events, player, lang):
            found = leaks(text, player, lang, secrets, cards, mates)
            assert not found, (rules, seed, player, found, text)
            checked += 1
    return checked


RULES = ["tabula", "aura", "lupusburg"]


@pytest.mark.parametrize("rules", RULES)
def test_no_text_leaks_a_secret(rules: str) -> None:
    assert sum(check_game(rules, seed) for seed in range(60)) > 400


@pytest.mark.slow
@pytest.mark.timeout(3600)
@pytest.mark.parametrize("rules", RULES)
def test_no_text_leaks_a_secret_in_1000_games(rules: str) -> None:
    assert sum(check_game(rules, seed) for seed in range(1000, 2000)) > 10_000


def test_the_house_check_can_fail() -> None:
    houses = {"ann:left": "thief", "ann:right": "townsfolk", "bob:left": "werewolf", "bob:right": "townsfolk"}
    cards, mates = known(Table("lupusburg", ("ann", "bob"), houses), "ann")
    assert leaks("Dawn. bob:left is the Werewolf.", "ann", "en", houses, cards, mates)
    assert not leaks("Dawn. ann:left is the Thief.", "ann", "en", houses, cards, mates)
