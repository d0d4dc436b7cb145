"""A series of games by the same players: totals add up, a winning Werewolf scores the number
of players, the first Burgomaster rotates."""

from __future__ import annotations

import pytest

from engine import GameConfig, InvalidSetup, Outcome, Phase, Team, close_phase, legal_actions, new_game
from engine import apply as play_action
from engine.lupusburg import series
from engine.lupusburg.state import LupusburgState
from engine.record import load_record, replay

from .lupusburg_helpers import NAMES, RECORDS


def finish_randomly(config: GameConfig, seed: int) -> LupusburgState:
    import random

    rnd = random.Random(seed)
    state, _ = new_game(config, seed)
    while state.phase is not Phase.OVER:
        moves = [a for p in state.players for a in legal_actions(state, p)]
        if not moves or rnd.random() < 0.2:
            state, _ = close_phase(state, state.phase_no)
        else:
            state, _ = play_action(state, rnd.choice(moves))
    assert isinstance(state, LupusburgState)
    return state


def test_series_rotates_the_first_burgomaster_and_adds_up() -> None:
    s = series.start(NAMES[:5])
    for game_no in range(7):
        config = series.next_config(s)
        first, _ = new_game(config, 100 + game_no)
        assert first.to_dict()["burgomaster"] == NAMES[game_no % 5], "ann, bob, cat, dan, eve, ann, bob"
        state = finish_randomly(config, 100 + game_no)
        before, out = s.totals, state.outcome
        assert out is not None and out.scores is not None
        s = series.add(s, out)
        for p in s.players:
            assert s.totals[p] == before[p] + out.scores[p]
    assert len(s.games) == 7
    assert sum(s.totals.values()) == sum(sum(g.values()) for g in s.games)
    assert series.Series.from_dict(s.to_dict()) == s


def test_winning_werewolf_scores_the_number_of_players() -> None:
    wolf_game = replay(load_record((RECORDS / "werewolf-wins.yaml").read_text()))
    scored_game = replay(load_record((RECORDS / "full-scored-game.yaml").read_text()))
    s = series.start(["ann", "bob", "cat", "dan"])
    s = series.add(s, wolf_game.state.outcome)  # type: ignore[attr-defined]
    assert s.totals == {"ann": 4, "bob": 0, "cat": 0, "dan": 0}
    assert series.leaders(s) == ("ann",)
    scores = {"ann": 0, "bob": 6, "cat": 4, "dan": 6}
    s = series.add(s, Outcome(Team.TOWNSFOLK, ("bob",), "end.werewolf_dead", scores))
    assert s.totals == {"ann": 4, "bob": 6, "cat": 4, "dan": 6} and series.leaders(s) == ("bob", "dan")
    with pytest.raises(InvalidSetup):
        series.add(s, scored_game.state.outcome)  # type: ignore[attr-defined]
    with pytest.raises(InvalidSetup):
        series.add(s, Outcome(Team.WEREWOLF, ("ann",), "x"))


def test_series_checks_the_players() -> None:
    with pytest.raises(InvalidSetup):
        series.start(["ann", "bob", "cat"])
    with pytest.raises(InvalidSetup):
        series.start(["ann", "ann", "cat", "dan"])
