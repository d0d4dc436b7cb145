"""The outbox leak check of ``tests/service/test_leaks.py`` over 1,000 seeded games played through
the whole application service (SMS players, talk, digests, substitutes, pauses): every row written
to a player names no card and no night choice he may not know. The default suite plays two."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.store.db import make_engine, upgrade
from tests.service.conftest import Harness
from tests.service.outbox_leaks import check_outbox, play_game


@pytest.mark.slow
@pytest.mark.timeout(4 * 3600)
def test_every_outbox_row_of_1000_service_games_is_clean(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'leaks.db'}"
    upgrade(url)
    h = Harness(make_engine(url))
    checked = 0
    for start in range(1000, 2000, 50):  # checked as it goes: the outbox of 1,000 games is large
        checked += check_outbox(h, [play_game(h, seed) for seed in range(start, start + 50)])
    h.db.dispose()
    assert checked > 500_000
