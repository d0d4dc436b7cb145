"""Seeded whole games through the application service, checked row by row in the outbox.

Each game mixes what the service does around the engine's events: SMS players (whose texts are
held, summarised and merged) and players on the recording channel, digests, talk by day and in
the pack's or lodge's channel at night, Ghosts who try to talk, replies asked for (role, status,
help, players), a host who moderates or plays, pauses and deadline moves, and a seat handed to a
substitute. Afterwards every row written to a player (sent, held, or merged into a summary) is
checked with ``tests.service.leaks``: it names no card and no night choice its reader may not know,
as ``tests.service.secrecy`` decides from the game's cards, its log of moves and its table.
"""

from __future__ import annotations

import itertools
import random

from sqlmodel import Session, col, select

import engine
from service.channels.sms import MERGED as SMS_MERGED
from service.channels.sms import NAME as SMS
from service.channels.sms.gsm7 import fold as gsm7
from service.store.models import Game, GameEvent, Identity, Outbox
from service.texts.i18n import role_name

from .conftest import Harness
from .leaks import leaks
from .secrecy import known, moves_of, table_of

SPECIALS = ["medium", "possessed", "bodyguard", "owl_man", "freemason", "freemason", "werehamster", "mythomaniac"]
POOL = ["ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal", "ivy", "jon", "kim", "lou", "max", "ned", "oli", "pam"]
TALK = ["hmm", "who was it?", "I trust nobody", "vote with me", "good night", "sleep well"]
ASK = ["role", "status", "help", "players"]
#: Rows that reveal every card and choice on purpose: the end of the game.
END_KEYS = {"game.over", "svc.ended", "svc.reveal", "svc.record"}
_ids = itertools.count(1)


class Table:
    """Who is who in one game: each seat's addresses (a substitute adds one) on its channel."""

    def __init__(self, h: Harness, seed: int) -> None:
        self.h, self.seed, self.rnd = h, seed, random.Random(seed)
        self.channel: dict[str, str] = {}
        self.address: dict[str, str] = {}
        self.seat_of: dict[tuple[str, str], str] = {}
        self.code = ""

    def say(self, channel: str, address: str, text: str) -> list[str]:
        return self.h.svc.handle_inbound(channel, address, f"leak-{next(_ids)}", text)

    def player(self, name: str, text: str) -> list[str]:
        return self.say(self.channel[name], self.address[name], text)


def play_game(h: Harness, seed: int) -> Table:
    tb = Table(h, seed)
    rnd = tb.rnd
    lang = ("en", "it", "es")[seed % 3]
    n = rnd.randint(8, 16)
    names = POOL[:n]
    specials = ["seer"] + [s for s in SPECIALS if rnd.random() < 0.5]  # the base deck has a Seer: keep him
    if specials.count("freemason") == 1:
        specials.remove("freemason")
    deck = f" deck {' '.join(specials)}" if specials and len(specials) + 3 <= n else ""
    host = ("test", f"host-{seed}")
    tb.say(*host, f"new lang {lang}{deck}")
    tb.code = h.game().code
    for name in names:
        tb.channel[name] = SMS if rnd.random() < 0.5 else "test"
        tb.address[name] = f"+39{seed:05d}{names.index(name):04d}" if tb.channel[name] == SMS else f"{name}-{seed}"
        tb.seat_of[(tb.channel[name], tb.address[name])] = name
        tb.player(name, f"join {tb.code} {name}")
        if rnd.random() < 0.2:
            tb.player(name, "digest on")
    playing_host = rnd.random() < 0.3
    if playing_host:  # else he moderates, and reads everything
        tb.say(*host, f"join {tb.code} zed")
        tb.channel["zed"], tb.address["zed"] = host
        tb.seat_of[host] = "zed"
    tb.say(*host, "start")
    for phase in range(60):
        game = h.game(tb.code)
        if game.status != "running":
            break
        state = engine.from_json(game.state or "")
        for p in rnd.sample(list(state.players), len(state.players)):
            acts = engine.legal_actions(state, p)
            if acts and rnd.random() < 0.8:
                tb.player(p, rnd.choice(acts).text())
            if rnd.random() < 0.15:
                tb.player(p, "say " + rnd.choice(TALK))
            if rnd.random() < 0.05:
                tb.player(p, rnd.choice(ASK))
        if rnd.random() < 0.1:
            tb.say(*host, "pause")
            tb.say(*host, "extend 1h")
            tb.say(*host, "resume")
        if phase == 3 and rnd.random() < 0.5:
            _substitute(tb, host, list(state.players))
        _finish(h, tb.code)
    if h.game(tb.code).status == "running":
        tb.say(*host, "end yes")
    return tb


def _substitute(tb: Table, host: tuple[str, str], players: list[str]) -> None:
    name = tb.rnd.choice([p for p in players if p != "zed"])
    tb.say(*host, f"replace {name}")
    new = (tb.channel[name], f"sub-{tb.address[name]}")
    tb.say(*new, f"join {tb.code}")
    tb.seat_of[new] = name
    tb.address[name] = new[1]


def _finish(h: Harness, code: str) -> None:
    game = h.game(code)
    assert game.deadline is not None
    h.clock.now = max(h.clock.now, game.deadline)
    assert game.id is not None
    assert h.svc.close_phase(game.id, game.phase_no)


def _unfolded(text: str, person: Identity) -> str:
    """An SMS text lost its accents (GSM-7: "Poseido"): give the cards' names theirs back, so that
    the check still recognises them."""
    if person.channel != SMS:
        return text
    for role in engine.Role:
        name = role_name(person.language, role.value)
        text = text.replace(gsm7(name), name)
    return text


def known_in(s: Session, game: Game) -> dict[str, tuple[set[str], set[str]]]:
    """What each player of a game played through the service may know (``secrecy.known``): its
    moves come from the game's event log, as the players made them."""
    state = engine.from_json(game.state or "")
    log = s.exec(
        select(GameEvent.data)
        .where(GameEvent.game_id == game.id, GameEvent.kind == "move")
        .order_by(col(GameEvent.seq))
    ).all()
    table = table_of(state, moves_of(log))
    return {p: known(table, p) for p in state.players}


def check_outbox(h: Harness, tables: list[Table]) -> int:
    """Every row written to a player of these games names nothing he may not know; the number checked."""
    checked = 0
    with Session(h.db) as s:
        for tb in tables:
            game = s.exec(select(Game).where(Game.code == tb.code)).one()
            state = engine.from_json(game.state or "")
            roles = {p: r.value for p, r in state.roles.items()}  # type: ignore[attr-defined]
            knows = known_in(s, game)
            rows = s.exec(
                select(Outbox, Identity)
                .join(Identity, col(Identity.id) == col(Outbox.identity_id))
                .where(Outbox.game_id == game.id)
            ).all()
            for row, person in rows:
                seat = tb.seat_of.get((person.channel, person.address))
                if seat is None or row.key in END_KEYS or row.key == SMS_MERGED:
                    continue  # the moderator reads everything; a merged text is checked part by part
                cards, mates = knows[seat]
                found = leaks(_unfolded(row.text, person), seat, person.language, roles, cards, mates)
                assert not found, (tb.seed, seat, row.key, row.status, found, row.text)
                checked += 1
    return checked
