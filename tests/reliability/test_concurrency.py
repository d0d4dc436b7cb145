"""200 actions on one game at once, from 32 threads, each command in its own session and
connection (PostgreSQL serializes them on the game's row lock): none lost, none doubled,
the state valid."""

from __future__ import annotations

import random
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from sqlmodel import Session, col, select

import engine
from engine import Phase
from service.store.models import GameEvent, Inbound, Outbox
from tests.service.conftest import Harness
from tests.service.play import open_game, start

NAMES = [f"p{i:02d}" for i in range(20)]
VOTES, TALKS, ASKS = 3, 4, 3  # per player: 20 x 10 = 200 actions


def test_200_concurrent_actions_on_one_game(pg_h: Harness) -> None:
    h = pg_h
    open_game(h, names=NAMES)
    start(h)
    h.finish_phase()  # the first night passes: the nominations are open
    code = h.game().code
    state = h.state()
    assert state.phase is Phase.NOMINATIONS
    living = [p for p in state.players if p in state.alive]  # type: ignore[attr-defined]
    version = h.game().version
    rnd = random.Random(200)
    messages: list[tuple[str, str, str]] = []  # (player, external id, text)
    tried: dict[str, set[str]] = {}
    for p in NAMES:
        targets = rnd.sample(living, VOTES)
        tried[p] = set(targets)
        messages += [(p, f"{p}-v{i}", f"#{code} vote {t}") for i, t in enumerate(targets)]
        messages += [(p, f"{p}-t{i}", f"#{code} line {i} from {p}") for i in range(TALKS)]
        messages += [(p, f"{p}-s{i}", f"#{code} status") for i in range(ASKS)]
    rnd.shuffle(messages)
    assert len(messages) == 200

    def send(m: tuple[str, str, str]) -> list[str]:
        return h.svc.handle_inbound("test", m[0], m[1], m[2])

    with ThreadPoolExecutor(max_workers=32) as pool:
        replies = list(pool.map(send, messages))

    # Every action was taken once: each bumped the game's version once, and was recorded once.
    assert h.game().version == version + 200
    with Session(h.db) as s:
        ids = [i.external_id for i in s.exec(select(Inbound).where(col(Inbound.external_id).contains("-")))]
        talk = s.exec(select(GameEvent).where(GameEvent.kind == "talk")).all()
        moves = s.exec(select(GameEvent).where(GameEvent.kind == "move")).all()
        dedup = [o.dedup_key for o in s.exec(select(Outbox))]
    assert sorted(ids) == sorted(m[1] for m in messages)
    assert len(dedup) == len(set(dedup))
    # Talk: every living player's every line relayed exactly once.
    said = Counter(e.data["text"] for e in talk)
    assert said == Counter(f"line {i} from {p}" for p in living for i in range(TALKS))
    # Votes: a nomination is final, so each player's first vote to arrive counts and only it.
    final = h.state()
    voters = Counter(v for v, _ in final.votes)  # type: ignore[attr-defined]
    assert voters == Counter(NAMES)
    for voter, target in final.votes:  # type: ignore[attr-defined]
        assert target in tried[voter]
    assert sorted(m.data["actor"] for m in moves if m.data["actor"]) == NAMES  # the record: one line each
    # Nothing left half done: the state is a valid value and still the same phase.
    assert final.phase is Phase.NOMINATIONS and final.phase_no == state.phase_no
    assert engine.from_json(engine.to_json(final)) == final
    # Every status request and every refused vote got a readable answer (the vote that counted is
    # confirmed by its announcement to everyone instead).
    counted = {(v, f"#{code} vote {t}") for v, t in final.votes}  # type: ignore[attr-defined]
    for (who, ext, said_text), out in zip(messages, replies, strict=True):
        kind = ext.split("-")[1][0]
        if kind == "s" or (kind == "v" and (who, said_text) not in counted):
            assert out and all(r.strip() for r in out), (ext, out)
