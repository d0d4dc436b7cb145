"""Nominations with two tokens each, two suspects, the per-character secret ballot, the
lynching, ties toward the Burgomaster (counting starts with him), the Burgomaster passing."""

from __future__ import annotations

import pytest

from engine import IllegalAction, Phase, legal_actions, public_view
from engine.lupusburg.state import LupusburgState
from engine.lupusburg.voting import ballot_votes

from .lupusburg_helpers import find, four, game, lynch, play

FIVE = ("andrew", "bea", "carl", "david", "emma")
FIVE_ROLES = {
    "andrew": ["townsfolk", "townsfolk"],
    "bea": ["townsfolk", "townsfolk"],
    "carl": ["townsfolk", "thief"],
    "david": ["werewolf", "townsfolk"],
    "emma": ["townsfolk", "townsfolk"],
}


def five_day(burgomaster: str = "andrew") -> LupusburgState:
    s, _ = play(game(FIVE, FIVE_ROLES, burgomaster=burgomaster), "end")
    return s


def test_two_public_final_tokens_each() -> None:
    s, events = play(five_day(), "bea: vote carl:left")
    (ev,) = events
    assert ev.public and dict(ev.data) == {
        "voter": "bea",
        "target": "carl:left",
        "tokens_left": 1,
        "tally": [["carl:left", 1]],
    }
    s, _ = play(s, "bea: vote carl:left")  # both tokens on one character is allowed
    with pytest.raises(IllegalAction) as err:
        play(s, "bea: vote david:left")
    assert err.value.key == "vote.no_tokens"
    assert "bea" not in public_view(s)["waiting_for"]
    assert not [a for a in legal_actions(s, "bea") if a.verb.value == "vote"]


def test_tokens_even_without_living_characters() -> None:
    s, _ = play(four(), "ann: kill dan:left", "end")
    s, _ = lynch(s, "dan:right")
    s, _ = play(s, "end")
    assert not s.living_of("dan")
    s, _ = play(s, "dan: vote cat:left", "dan: vote cat:right")
    assert [v for v in s.votes if v[0] == "dan"] == [("dan", "cat:left"), ("dan", "cat:right")]


def test_votes_go_on_living_characters() -> None:
    s, _ = play(four(), "ann: kill dan:left", "end")
    with pytest.raises(IllegalAction) as err:
        play(s, "cat: vote dan:left")
    assert err.value.key == "target.dead"
    # A player's name stands for his one living house; with two, the question names both.
    after, _ = play(s, "cat: vote dan")
    assert after.votes == (("cat", "dan:right"),)
    with pytest.raises(IllegalAction) as err:
        play(s, "cat: vote bob")
    assert err.value.key == "target.not_house" and err.value.params["houses"] == ["bob:left", "bob:right"]
    s, _ = lynch(s, "dan:right")
    s, _ = play(s, "end")
    with pytest.raises(IllegalAction) as err:
        play(s, "cat: vote dan")
    assert err.value.key == "target.no_living"


def test_a_ballot_by_player_takes_his_one_suspect_house_and_never_offers_another() -> None:
    """The issue's ballot between oli:left and diego:right: ``vote 6`` (oli) was answered "say which
    house: oli:left or oli:right" though oli:right is no suspect, and the ballot was lost."""
    s, _ = play(
        four(), "end", "ann: vote cat:left", "bob: vote cat:left", "cat: vote dan:right", "dan: vote dan:right", "end"
    )
    assert s.suspects == ("cat:left", "dan:right")
    s, _ = play(s, "bob: vote cat")
    assert s.ballots["bob"] == ("cat:left",)
    with pytest.raises(IllegalAction) as err:  # none of bob's is a suspect: the rules' own reason
        play(s, "ann: vote bob")
    assert err.value.key == "ballot.not_suspect" and err.value.params["suspects"] == ["cat:left", "dan:right"]


def test_suspect_tie_goes_to_the_character_closer_to_the_burgomaster() -> None:
    """The rulebook: David's 2 beats Emma's 2 with Andrew the Burgomaster."""
    votes = (
        "bea: vote emma:left",
        "bea: vote bea:left",
        "carl: vote bea:left",
        "carl: vote emma:left",
        "andrew: vote bea:left",
        "andrew: vote david:left",
        "emma: vote david:left",
        "end",
    )
    s, _ = play(five_day("andrew"), *votes)
    assert s.suspects == ("bea:left", "david:left")
    s, _ = play(five_day("emma"), *votes)
    assert s.suspects == ("bea:left", "emma:left"), "from Emma, her own character comes first"


def test_counting_starts_with_the_burgomaster_himself() -> None:
    """Ties go to the Burgomaster's own characters first, then his left neighbour's, not the other way."""
    s, _ = play(
        five_day("carl"),
        "bea: vote bea:right",
        "bea: vote carl:right",
        "andrew: vote andrew:left",
        "andrew: vote carl:left",
        "end",
    )
    assert s.suspects == ("carl:left", "carl:right")
    s, _ = play(five_day("carl"), "bea: vote bea:right", "andrew: vote andrew:left", "end")
    assert s.suspects == ("andrew:left", "bea:right")


def test_fewer_than_two_voted_characters_filled_from_the_burgomaster() -> None:
    s, events = play(five_day("david"), "bea: vote bea:left", "end")
    assert s.suspects == ("bea:left", "david:left")
    assert find(events, "day.suspects")[0].data["suspects"] == ["bea:left", "david:left"]
    s, _ = play(five_day("david"), "end")
    assert s.suspects == ("david:left", "david:right")


def test_ballot_one_secret_vote_per_living_unsuspected_character() -> None:
    s, _ = play(
        five_day(), "bea: vote bea:left", "bea: vote bea:left", "carl: vote emma:left", "carl: vote emma:left", "end"
    )
    assert s.phase is Phase.BALLOT and s.suspects == ("bea:left", "emma:left")
    # Every character alive: andrew 2, bea 1 (her right one), carl 2, david 2, emma 1.
    assert {p: ballot_votes(s, p) for p in FIVE} == {"andrew": 2, "bea": 1, "carl": 2, "david": 2, "emma": 1}
    assert all(len(legal_actions(s, p)) == 2 for p in FIVE), "a vote for either suspect"
    s, events = play(s, "bea: vote emma:left")
    (taken,) = events
    assert taken.to == ("bea",)
    assert dict(taken.data) == {"target": "emma:left", "votes": ["emma:left"], "of": 1, "changed": False}
    assert public_view(s)["ballots_cast"] == 1 and "ballots" not in public_view(s)


def test_ballot_changes_keep_the_last_votes() -> None:
    s, _ = play(five_day(), "bea: vote bea:left", "carl: vote emma:left", "end")
    s, events = play(s, "carl: vote bea:left", "carl: vote emma:left")
    assert s.ballots["carl"] == ("bea:left", "emma:left") and events[-1].data["changed"] is False
    s, events = play(s, "carl: vote bea:left")
    assert s.ballots["carl"] == ("emma:left", "bea:left") and events[-1].data["changed"] is True
    s, _ = play(s, "carl: vote bea:left")
    assert s.ballots["carl"] == ("bea:left", "bea:left")
    s, _ = play(s, "emma: vote bea:left", "emma: vote emma:left")
    assert s.ballots["emma"] == ("emma:left",), "Emma has one vote: her suspected character gives none"


def test_ballot_refusals() -> None:
    s, _ = play(four(), "ann: kill dan:left", "end")
    s, _ = play(s, "cat: vote dan:right", "cat: vote dan:right", "bob: vote cat:left", "end")
    assert s.suspects == ("dan:right", "cat:left")
    for move, key in [
        ("dan: vote cat:left", "ballot.all_suspects"),
        ("ann: vote bob:left", "ballot.not_suspect"),
        ("ann: vote bob", "ballot.not_suspect"),
    ]:  # never "bob:left or bob:right"
        with pytest.raises(IllegalAction) as err:
            play(s, move)
        assert err.value.key == key
    with pytest.raises(IllegalAction, match="suspects"):
        play(s, "dan: vote cat:left")


def test_ballot_without_living_characters_refused() -> None:
    s, _ = play(four(), "ann: kill dan:left", "end")
    s, _ = lynch(s, "dan:right")
    s, _ = play(s, "end", "end")
    with pytest.raises(IllegalAction) as err:
        play(s, "dan: vote " + s.suspects[0])
    assert err.value.key == "ballot.no_vote" and "no living character" in err.value.reason


def test_ballots_revealed_together_and_most_votes_lynched() -> None:
    s, _ = play(five_day(), "bea: vote bea:left", "carl: vote emma:left", "end")
    s, events = play(s, "carl: vote emma:left", "carl: vote emma:left", "andrew: vote bea:left", "end")
    (ballots,) = find(events, "day.ballots")
    assert ballots.public
    assert dict(ballots.data) == {
        "ballots": {"andrew": ["bea:left"], "carl": ["emma:left", "emma:left"]},
        "counts": {"bea:left": 1, "emma:left": 2},
        "lynched": "emma:left",
        "order": {"by": "burgomaster", "player": "andrew", "first": "andrew"},
    }
    assert s.lynched == ("emma:left",) and "emma:left" not in s.alive


@pytest.mark.parametrize(
    ("burgomaster", "lynched"),
    [("andrew", "bea:left"), ("carl", "emma:left"), ("emma", "emma:left"), ("bea", "bea:left")],
)
def test_ballot_tie_lynches_the_one_closer_to_the_burgomaster(burgomaster: str, lynched: str) -> None:
    s, _ = play(five_day(burgomaster), "bea: vote bea:left", "carl: vote emma:left", "end")
    s, _ = play(s, "carl: vote emma:left", "andrew: vote bea:left", "end")
    assert s.lynched == (lynched,)
    s2, _ = play(five_day(burgomaster), "bea: vote bea:left", "carl: vote emma:left", "end", "end")
    assert s2.lynched == (lynched,), "0-0 is a tie too"


def test_burgomaster_passes_clockwise_even_to_a_player_without_characters() -> None:
    s, _ = play(four(burgomaster="cat"), "ann: kill dan:left", "end")
    s, events = lynch(s, "dan:right")
    assert s.burgomaster == "dan" and not s.living_of("dan")
    assert find(events, "phase.night")[0].data == {"night": 2, "burgomaster": "dan"}
    s, _ = play(s, "end")
    s, _ = lynch(s, "cat:left")
    assert s.burgomaster == "ann", "and round the table"


def test_vote_by_number() -> None:
    s, _ = play(five_day(), "bea: vote Carl:1")
    assert s.votes == (("bea", "carl:left"),)
