"""Each rule set's phases are one declared table (``engine/phases.py``): complete, in the
rulebooks' cycle, and saying in words who acts and what closes each phase."""

from __future__ import annotations

from typing import Any

import pytest

from engine import Phase, Verb
from engine.lupusburg.phases import PHASES as LUPUSBURG
from engine.tabula.character import CHARACTERS
from engine.tabula.phases import PHASES as TABULA

CYCLE = {Phase.NIGHT: Phase.NOMINATIONS, Phase.NOMINATIONS: Phase.BALLOT, Phase.BALLOT: Phase.NIGHT}


@pytest.mark.parametrize("table", [TABULA, LUPUSBURG], ids=["tabula", "lupusburg"])
def test_every_phase_is_declared_in_the_cycle(table: dict[Phase, Any]) -> None:
    assert set(table) == set(CYCLE)
    for phase, rule in table.items():
        assert rule.phase is phase and rule.next is CYCLE[phase]
        assert rule.who.strip() and rule.closes.strip()
    # The end is checked after each phase that can kill: the night and the ballot.
    assert {p for p, r in table.items() if r.ends_game} == {Phase.NIGHT, Phase.BALLOT}


def test_tabula_characters_act_only_in_declared_phases() -> None:
    for character in CHARACTERS.values():
        for power in character.powers:
            assert power.phases <= set(TABULA), (character.role, power.verb)
    assert set(TABULA[Phase.NOMINATIONS].moves) == set(TABULA[Phase.BALLOT].moves) == {Verb.VOTE}


def test_lupusburg_moves_each_offer_their_targets() -> None:
    for rule in LUPUSBURG.values():
        assert all(move.targets is not None for move in rule.moves.values())
