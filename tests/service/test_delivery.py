"""Concurrency and idempotence: no vote lost under many threads; a message delivered three
times acts once; a stale or early deadline changes nothing."""

from __future__ import annotations

from engine import Phase

from .conftest import Harness
from .play import NAMES, all_at_once, open_game, play_phase, start


def _to_nominations(h: Harness) -> None:
    open_game(h)
    start(h)
    play_phase(h)
    assert h.state().phase is Phase.NOMINATIONS


def test_concurrent_votes_on_one_game_are_all_counted(h: Harness) -> None:
    _to_nominations(h)
    state = h.state()
    target = next(p for p in state.players if p in state.alive)  # type: ignore[attr-defined]
    all_at_once(h, [(n, f"vote {target}", f"v-{n}") for n in NAMES])
    votes = h.state().votes  # type: ignore[attr-defined]
    assert sorted(v for v, _ in votes) == sorted(NAMES)
    assert h.game().version >= len(NAMES)


def test_each_inbound_message_acts_once(h: Harness) -> None:
    _to_nominations(h)
    state = h.state()
    voter, bob = [p for p in state.players if p in state.alive][:2]  # type: ignore[attr-defined]
    before = len(h.outbox())
    first = h.say(voter, f"vote {bob}", external_id="tg-77")
    after_one = len(h.outbox())
    assert after_one > before
    assert h.say(voter, f"vote {bob}", external_id="tg-77") == []
    assert h.say(voter, f"vote {bob}", external_id="tg-77") == []
    assert len(h.outbox()) == after_one
    assert [v for v in h.state().votes if v[0] == voter] == [(voter, bob)]  # type: ignore[attr-defined]
    assert first == []  # the vote is announced to all (the voter too) through the outbox: no reply
    assert sum(f"{voter} votes {bob}" in m for m in h.inbox("host")) == 1


def test_a_stale_or_early_close_changes_nothing(h: Harness) -> None:
    open_game(h)
    start(h)
    game = h.game()
    assert game.id is not None
    assert h.svc.close_phase(game.id, 1) is False  # the deadline has not passed
    h.finish_phase()
    assert h.svc.close_phase(game.id, 1) is False  # already closed: stale
    assert h.state().phase_no == 2


def test_after_commit_hears_of_every_new_message(h: Harness) -> None:
    open_game(h)
    pending = [o.id for o in h.outbox() if o.status == "pending" and o.id is not None]
    assert sorted(h.committed) == sorted(pending)


def test_a_claimed_message_is_reserved_then_due_again(h: Harness) -> None:
    from datetime import timedelta

    from service.delivery.rows import claim, settle
    from service.store.db import transaction
    from service.store.models import Outbox

    h.say("host", "new")
    now = h.clock.now
    (first,) = claim(h.db, now, ["test"], lease=60)
    assert first.address == "host"
    assert claim(h.db, now, ["test"], lease=60) == []  # reserved: a second dispatcher does not take it
    with transaction(h.db) as s:  # the worker that reserved it died, and its lease ran out
        row = s.get(Outbox, first.id)
        assert row is not None
        row.not_before -= timedelta(minutes=5)
        s.add(row)
    (again,) = claim(h.db, now, ["test"], lease=60)
    assert again.id == first.id
    settle(h.db, [again], status="sent", sent_at=now)
    assert claim(h.db, now + timedelta(hours=1), ["test"], lease=60) == []
