"""No message to a player names a card, a night choice or a secret he may not know.

Thousands of seeded games run through the rendering layer (the same functions the outbox
writer uses: ``render.reads`` picks readers, ``render.for_reader`` writes the text), with
every reply a player can ask for (role, status, options); a few dozen more run through the
whole application service and every outbox row is checked."""

from __future__ import annotations

import random
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlmodel import Session, select

import engine
from engine import GameConfig, Phase, RuleSet
from service.channels.sms.gsm7 import fold as gsm7
from service.game.lobby import build_deck
from service.store.db import make_engine
from service.store.models import Game, Identity, Outbox, Seat
from service.texts import player_texts, render
from service.texts.i18n import role_name

from .conftest import Harness
from .leaks import leaks
from .outbox_leaks import check_outbox, known_in, play_game
from .secrecy import known, table_of

SPECIALS = ["medium", "possessed", "bodyguard", "owl_man", "freemason", "freemason", "werehamster", "mythomaniac"]
POOL = ["ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal", "ivy", "jon", "kim", "lou", "max", "ned", "oli", "pam"]
#: What tells every card on purpose, once the game is over: the end, and what happened (the history
#: names the cards of those who acted: "the Seer (bob) looked at gus").
END_KEYS = {"game.over", "svc.reveal"}
#: Seeded games played through the whole service for the outbox check (1,000 in the slow suite).
GAMES = 2


Move = tuple[str, str, str | None]


def random_game(seed: int) -> tuple[engine.GameState, list[engine.Event], list[tuple[str, list[str]]], list[Move]]:
    rnd = random.Random(seed)
    n = rnd.randint(8, 16)
    players = POOL[:n]
    specials = ["seer"] + [s for s in SPECIALS if rnd.random() < 0.5]  # the base deck has a Seer: keep him
    if specials.count("freemason") == 1:
        specials.remove("freemason")
    deck = build_deck({"specials": specials}, n) if specials and len(specials) + 3 <= n else None
    config = GameConfig(RuleSet.TABULA, tuple(players), deck=tuple(deck) if deck else None)
    state, events = engine.new_game(config, seed)
    log = list(events)
    replies: list[tuple[str, list[str]]] = []
    moves: list[Move] = []
    for _ in range(60):
        if state.phase is Phase.OVER:
            break
        for p in rnd.sample(players, len(players)):
            acts = engine.legal_actions(state, p)
            if acts and rnd.random() < 0.8:
                act = rnd.choice(acts)
                state, ev = engine.apply(state, act)
                log.extend(ev)
                moves.append((act.actor, act.verb.value, act.target))
        asker = rnd.choice(players)
        replies.append((asker, [a.text() for a in engine.legal_actions(state, asker)]))
        state, ev = engine.close_phase(state, state.phase_no)
        log.extend(ev)
    return state, log, replies, moves


@pytest.mark.parametrize("chunk", range(4))
def test_no_text_tells_a_player_what_he_may_not_know(chunk: int) -> None:
    info = render.Info("K7Q", "Europe/Rome", None)
    for seed in range(chunk * 250, chunk * 250 + 250):
        state, events, _, moves = random_game(seed)
        roles = {p: r.value for p, r in state.roles.items()}  # type: ignore[attr-defined]
        lang = ("en", "it", "es")[seed % 3]
        public: dict[tuple[int, bool], str] = {}
        table = table_of(state, moves)
        for player in state.players:
            view = engine.view(state, player)
            cards, mates = known(table, player)
            reader = render.Reader(player, lang)
            texts = []
            for i, e in enumerate(events):
                if e.key in END_KEYS or not render.reads(e.to, player):
                    continue
                for sms in (False, True):  # the texts, and their short SMS forms
                    if e.to is None:  # the same text for everyone: written once
                        if (i, sms) not in public:
                            anyone = render.Reader(None, lang, sms=sms)
                            public[i, sms] = render.for_reader(e.key, e.data, e.to, anyone, info)
                        texts.append(public[i, sms])
                    else:
                        mine = render.Reader(player, lang, sms=sms)
                        texts.append(render.for_reader(e.key, e.data, e.to, mine, info))
            texts.append(player_texts.role_text(view, reader, info))
            # The running game's status reply.
            pv: engine.PublicView = {**engine.public_view(state), "status": "running"}
            texts.append(player_texts.status_text(pv, reader, info, False))
            for text in texts:
                assert not leaks(text, player, lang, roles, cards, mates), (seed, player, text)


def test_the_leak_check_can_fail() -> None:
    roles = {"ann": "seer", "bob": "werewolf"}
    assert leaks("Dawn. bob is the Werewolf.", "ann", "en", roles, {"ann"}, {"ann"})
    assert leaks("bob chose to kill ann.", "ann", "en", roles, {"ann"}, {"ann"})
    assert not leaks("Your vision: bob is a Werewolf.", "ann", "en", roles, {"ann", "bob"}, {"ann"})


def test_every_outbox_row_of_whole_games_is_clean(h: Harness) -> None:
    for seed in range(3):
        rnd = random.Random(seed)
        lang = ("en", "it", "es")[seed % 3]
        h.say(f"host{seed}", f"new lang {lang}")
        code = h.game().code
        for n in POOL[: 8 + seed]:
            h.say(f"{n}{seed}", f"join {code} {n}")
        h.say(f"host{seed}", f"#{code} start")
        for _ in range(60):
            state = h.state(code)
            if state.phase is Phase.OVER:
                break
            for p in rnd.sample(list(state.players), len(state.players)):
                acts = engine.legal_actions(h.state(code), p)
                if acts and rnd.random() < 0.8:
                    h.say(f"{p}{seed}", f"#{code} {rnd.choice(acts).text()}")
                if rnd.random() < 0.1:
                    h.say(f"{p}{seed}", f"#{code} " + rnd.choice(["role", "status", "help", "players"]))
            h.finish_phase()
    with Session(h.db) as s:
        rows = s.exec(
            select(Outbox, Identity, Seat)
            .join(Identity, Identity.id == Outbox.identity_id)  # type: ignore[arg-type]
            .join(Seat, (Seat.identity_id == Identity.id) & (Seat.game_id == Outbox.game_id))  # type: ignore[arg-type]
        ).all()
        games: dict[int, tuple[dict[str, str], dict[str, tuple[set[str], set[str]]]]] = {}
        for row, person, seat in rows:
            if row.key in END_KEYS or row.key == "svc.record":
                continue
            if seat.game_id not in games:
                g = s.get(Game, seat.game_id)
                assert g is not None and g.state is not None
                state = engine.from_json(g.state)
                games[seat.game_id] = (
                    {p: r.value for p, r in state.roles.items()},  # type: ignore[attr-defined]
                    known_in(s, g),
                )
            roles, knows = games[seat.game_id]
            cards, mates = knows[seat.name]
            assert not leaks(row.text, seat.name, person.language, roles, cards, mates), row.text
    assert len(rows) > 300


@pytest.fixture
def lite(tmp_path: Path, sqlite_template: Path) -> Iterator[Harness]:
    """The service on SQLite only: what is checked here does not depend on the database."""
    path = tmp_path / "leaks.db"
    shutil.copy(sqlite_template, path)
    h = Harness(make_engine(f"sqlite:///{path}"))
    yield h
    h.db.dispose()


def test_every_outbox_row_of_seeded_service_games_is_clean(lite: Harness) -> None:
    """Whole games through the service with SMS players, talk, digests, substitutes and pauses:
    every row to a player, sent, held or merged, names nothing he may not know."""
    tables = [play_game(lite, seed) for seed in range(GAMES)]
    assert check_outbox(lite, tables) > 500 * GAMES


def test_the_outbox_check_sees_a_leak_in_an_sms_text(lite: Harness) -> None:
    table = play_game(lite, 2)  # in Spanish: SMS texts lose their accents
    state, game = lite.state(table.code), lite.game(table.code)
    roles = {p: r.value for p, r in state.roles.items()}  # type: ignore[attr-defined]
    sms = next(p for p in state.players if table.channel[p] == "sms")
    other = next(p for p in state.players if roles[p] != roles[sms])
    card = gsm7(role_name("es", roles[other]))
    with Session(lite.db) as s:
        person = s.exec(select(Identity).where(Identity.address == table.address[sms])).one()
        s.add(
            Outbox(
                identity_id=person.id or 0,
                channel="sms",
                game_id=game.id,
                key="x",
                text=f"Amanecer. {other} era {card}.",
                dedup_key="leak-test",
            )
        )
        s.commit()
    with pytest.raises(AssertionError, match="card in"):
        check_outbox(lite, [table])
