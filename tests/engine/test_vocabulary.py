"""The engine's enums document themselves: every member says what it is, at run time."""

from __future__ import annotations

from enum import Enum

import pytest

from engine import Phase, Role, RuleSet, Team, Verb

ENUMS: list[type[Enum]] = [Role, Verb, Phase, Team, RuleSet]


@pytest.mark.parametrize("enum", ENUMS, ids=lambda e: e.__name__)
def test_every_member_has_its_own_docstring(enum: type[Enum]) -> None:
    for member in enum:
        doc = member.__doc__
        assert doc and doc.strip(), f"{enum.__name__}.{member.name} has no docstring"
        assert doc != enum.__doc__, f"{enum.__name__}.{member.name} has only its class's docstring"


@pytest.mark.parametrize("enum", ENUMS, ids=lambda e: e.__name__)
def test_members_are_still_their_plain_values(enum: type[Enum]) -> None:
    for member in enum:
        assert isinstance(member.value, str) and member == member.value
        assert enum(member.value) is member


def test_values_are_unchanged() -> None:
    assert Role.SEER.value == "seer" and Role.OWL_MAN.value == "owl_man"
    assert Verb.VOTE.value == "vote" and Phase.NOMINATIONS.value == "nominations"
    assert [r.value for r in RuleSet] == ["tabula", "aura", "lupusburg"]
