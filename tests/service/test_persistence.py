"""Persistence: the tables the issue asks for (deadline indexed, inbound ids unique), the game
lock (a row lock on PostgreSQL, an immediate write transaction on SQLite), and a message
delivered three times at once acting once."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

import pytest
from sqlalchemy import Engine, event, inspect
from sqlmodel import Session, col, select

from service.game import routing
from service.settings import Settings
from service.store.models import GameEvent, Inbound, Seat

from .conftest import Harness
from .play import NAMES, all_at_once, open_game, play_phase, start


def test_sqlite_is_the_default_database() -> None:
    assert Settings(_env_file=None).DATABASE_URL.startswith("sqlite:///")  # type: ignore[call-arg]


def test_the_tables_index_deadlines_and_keep_inbound_ids_unique(db: Engine) -> None:
    insp = inspect(db)
    assert {"identities", "games", "seats", "game_events", "inbound", "outbox"} <= set(insp.get_table_names())
    assert any(ix["column_names"] == ["deadline"] for ix in insp.get_indexes("games"))
    uniques = [u["column_names"] for u in insp.get_unique_constraints("inbound")]
    assert ["channel", "external_id"] in uniques
    identity = {c["name"] for c in insp.get_columns("identities")}
    assert {"channel", "address", "display_name", "language", "opted_out"} <= identity
    game = {c["name"] for c in insp.get_columns("games")}
    assert {"state", "phase_no", "deadline", "status", "version"} <= game


def _statements(db: Engine) -> tuple[list[str], Any]:
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        seen.append(" ".join(statement.split()).upper())

    event.listen(db, "before_cursor_execute", record)
    return seen, record


def test_a_command_locks_its_game(h: Harness) -> None:
    open_game(h)
    start(h)
    seen, hook = _statements(h.db)
    try:
        h.say("ann", "status")
    finally:
        event.remove(h.db, "before_cursor_execute", hook)
    locks = [s for s in seen if s.startswith("SELECT") and "FROM GAMES" in s and "FOR UPDATE" in s]
    if h.db.dialect.name == "sqlite":
        # SQLite has no row locks (SQLAlchemy drops FOR UPDATE): the transaction is a writer from its start.
        assert seen[0] == "BEGIN IMMEDIATE" and not locks
    else:
        assert len(locks) == 1, seen


def _acted(h: Harness, since: int) -> Counter[tuple[int, str, str]]:
    """What the outbox got after row ``since``: (reader, key, text), with how many times."""
    return Counter((r.identity_id, r.key, r.text) for r in h.outbox()[since:])


def _logged(h: Harness) -> int:
    """The game's event log's length (moves, talk, what they caused)."""
    with Session(h.db) as s:
        return len(s.exec(select(GameEvent.id)).all())


@pytest.mark.parametrize("move", ["night choice", "talk"])
def test_one_message_delivered_three_times_at_once_acts_once(h: Harness, move: str) -> None:
    """Moves the game takes again when sent again (a night choice may be repeated, talk is relayed
    each time): only the inbound log can tell a repeat delivery from a player saying it twice."""
    open_game(h)
    start(h)
    state = h.state()
    wolf = next(p for p in state.players if state.roles[p].value == "werewolf")  # type: ignore[attr-defined]
    villagers = [p for p in state.players if state.roles[p].value == "villager"]  # type: ignore[attr-defined]
    if move == "night choice":
        who, said = wolf, f"kill {villagers[0]}"
    else:
        play_phase(h)  # the day: talk goes to everyone
        alive = h.state().alive  # type: ignore[attr-defined]
        who, said = next(p for p in villagers if p in alive), "say I trust nobody here"
    version, rows, logged = h.game().version, len(h.outbox()), _logged(h)
    barrier = threading.Barrier(3)
    answers: list[list[str]] = []
    errors: list[BaseException] = []

    def deliver() -> None:
        try:
            barrier.wait()
            answers.append(h.say(who, said, external_id="tg-1234"))
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=deliver) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and answers == [[], [], []]  # every reply goes through the outbox
    once = _acted(h, rows)
    assert once and h.game().version == version + 1
    acted = _logged(h) - logged
    assert acted >= 1
    assert max(once.values()) == 1, once  # each reader told once: no second reply, no second relay
    with Session(h.db) as s:
        assert len(s.exec(select(Inbound).where(Inbound.external_id == "tg-1234")).all()) == 1
    # The same words sent anew (another message id) act again, exactly as the first did: only
    # the inbound log stopped the repeats above.
    rows = len(h.outbox())
    h.say(who, said, external_id="tg-1235")
    assert h.game().version == version + 2 and _logged(h) - logged == 2 * acted
    assert _acted(h, rows) == once


def test_a_command_that_fails_leaves_nothing_and_hands_nothing_to_the_worker(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_game(h)
    start(h)
    state = h.state()
    wolf = next(p for p in state.players if state.roles[p].value == "werewolf")  # type: ignore[attr-defined]
    victim = next(p for p in state.players if state.roles[p].value == "villager")  # type: ignore[attr-defined]
    rows, committed = len(h.outbox()), list(h.committed)

    def boom(*_: object) -> None:
        raise RuntimeError("the disk is full")

    monkeypatch.setattr(routing, "bump", boom)  # fails after the move wrote its outbox rows
    with pytest.raises(RuntimeError):
        h.say(wolf, f"kill {victim}", external_id="tg-9")
    assert len(h.outbox()) == rows and h.committed == committed and h.state() == state
    monkeypatch.undo()
    # Nothing was logged as received either: the channel's retry acts.
    h.say(wolf, f"kill {victim}", external_id="tg-9")
    assert h.state() != state and len(h.committed) > len(committed)


def test_players_joining_at_once_all_get_a_seat(h: Harness) -> None:
    h.say("host", "new")
    code = h.game().code
    all_at_once(h, [(n, f"join {code} {n}", None) for n in NAMES])
    with Session(h.db) as s:
        seats = s.exec(select(Seat).where(Seat.game_id == h.game().id)).all()
    assert sorted(x.name for x in seats) == sorted(NAMES)
    assert sorted(x.position for x in seats) == list(range(1, len(NAMES) + 1))
    counts = sorted(int(m.split("(")[1].split()[0]) for m in h.inbox("host") if " joined game " in m)
    assert counts == list(range(1, len(NAMES) + 1))  # each join saw every join before it


def test_the_event_log_is_append_only(h: Harness) -> None:
    seen, hook = _statements(h.db)
    try:
        open_game(h)
        start(h)
        play_phase(h)
        h.say("host", "pause")
        h.say("host", "resume")
        play_phase(h)
    finally:
        event.remove(h.db, "before_cursor_execute", hook)
    assert any(s.startswith("INSERT INTO GAME_EVENTS") for s in seen)
    assert not [s for s in seen if s.startswith(("UPDATE GAME_EVENTS", "DELETE FROM GAME_EVENTS"))]
    with Session(h.db) as s:
        seqs = [e.seq for e in s.exec(select(GameEvent).order_by(col(GameEvent.id)))]
    assert seqs == list(range(1, len(seqs) + 1))  # in order, no gaps
