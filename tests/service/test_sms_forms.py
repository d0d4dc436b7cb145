"""The short SMS forms of the texts, as pure functions: what they say, and that nothing is lost."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from service.channels.sms.gsm7 import fold as gsm7
from service.channels.sms.gsm7 import segments
from service.texts import choices, render
from service.texts.i18n import deadline_text, t


def test_votes_are_grouped_by_target_most_voted_first_and_every_vote_is_there() -> None:
    pairs = [("ann", "eve"), ("bob", "cat"), ("cat", "eve"), ("dan", "cat"), ("eve", "cat"), ("fay", "ann")]
    assert render.grouped(pairs, "en") == "cat(bob,dan,eve) eve(ann,cat) ann(fay)"
    assert render.grouped([("ann", "bob")], "it", ["bob", "cat"]) == "bob(ann) cat(nessuno)"


def test_the_revealed_ballots_read_by_target_and_the_counts_go_without_saying() -> None:
    data = {"ballots": {"ann": "bob", "cat": "dan", "eve": "bob"}, "counts": {"bob": 2, "dan": 1}, "lynched": "bob"}
    info = render.Info("K7Q", "UTC", None)
    sms = render.event_text("day.ballots", data, render.Reader("ann", "en", sms=True), info)
    assert sms == "bob is lynched. Ballots: bob(ann,eve) dan(cat)."
    # Lupusburg's ballots are lists (one per living character): each ballot under its target.
    data = {
        "ballots": {"ann": ["bob:left", "dan:right"], "cat": ["bob:left"]},
        "counts": {"bob:left": 2, "dan:right": 1, "eve:left": 0},
        "lynched": "bob:left",
    }
    sms = render.event_text("day.ballots", data, render.Reader("ann", "en", sms=True), info)
    assert sms == "bob:left is lynched. Ballots: bob:left(ann,cat) dan:right(ann) eve:left(nobody)."


def test_cards_grouped_by_card_with_the_commonest_as_the_others_and_winners_as_all_but() -> None:
    roles = {"ann": "villager", "bob": "werewolf", "cat": "villager", "dan": "seer", "eve": "villager"}
    data = {"team": "humans", "winners": ["ann", "cat", "dan", "eve"], "reason": "end.werewolves_dead", "roles": roles}
    # By SMS the end says who won and whether he did; every card is on request (status), and so
    # is every night: the text says how to ask.
    won, more = "Game over: the Humans win (all but bob).", "Every card and night: text status."
    assert render.game_over(data, "en", sms=True, name="bob") == f"You lost. {won} {more}"
    assert render.game_over(data, "en", sms=True, name="cat") == f"You won. {won} {more}"
    assert render.game_over(data, "en", sms=True) == f"{won} {more}"  # the moderator: no side
    assert render.roles_by_card(roles, {}, "en") == "Werewolf: bob; Seer: dan; Villager: the others"
    text = render.game_over(data, "en")
    assert "(Villager)" in text and "Winners: ann, cat, dan, eve" in text
    # On Telegram too, a player is told first whether he won.
    assert render.game_over(data, "en", name="bob").startswith("You lost. Game over: the Humans win")
    assert render.game_over(data, "it", name="cat").startswith("Hai vinto. Partita finita: vincono gli Umani")


def test_options_and_deadlines_are_short_by_sms_only_when_they_cannot_be_misread() -> None:
    seats = ["dan", "ann", "bob", "cat"]
    listed, numbered = choices.options(["vote ann", "vote bob", "vote cat"], "en", sms=True, seats=seats)
    assert listed == "vote 2 ann 3 bob 4 cat" and numbered == seats  # each by his seat
    assert choices.options(["vote ann", "vote cat"], "en", seats=seats)[0] == "vote 2 ann, 4 cat"
    now = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # a Monday
    assert deadline_text(now + timedelta(hours=9), "UTC", "en", now) == "Mon 18:00 UTC"
    assert deadline_text(now + timedelta(days=7), "UTC", "en", now) == "Mon 9 Mar 09:00 UTC"
    assert deadline_text(now + timedelta(hours=9), "UTC", "en") == "Mon 2 Mar 18:00 UTC"
    # The zone is named, as the tz database abbreviates it, or by its offset where it has no name.
    assert deadline_text(now + timedelta(hours=9), "Europe/Rome", "it", now) == "lun 19:00 CET"
    assert deadline_text(datetime(2026, 7, 6, 17, 0, tzinfo=UTC), "Europe/Rome", "es") == "lun 6 jul 19:00 CEST"
    assert deadline_text(now, "America/Argentina/Buenos_Aires", "es", now) == "lun 06:00 UTC-3"
    assert deadline_text(now, "Asia/Kathmandu", "en", now) == "Mon 14:45 UTC+5:45"


def test_a_day_of_twelve_fits_one_segment_a_phase_in_every_language() -> None:
    names = ["ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal", "ivy", "jon", "kim", "lou"]
    now = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    for lang in ("en", "it", "es"):
        info = render.Info("K7Q", "Europe/Rome", now + timedelta(hours=9), now)
        reader = render.Reader("bob", lang, sms=True)
        dawn = "\n".join(
            [
                render.event_text("night.dawn", {"dead": ["lou"]}, reader, info),
                render.event_text("phase.nominations", {"day": 1}, reader, info),
                t(
                    lang,
                    "sms.svc.options",
                    options=choices.options([f"vote {n}" for n in names[:11]], lang, True, seats=names)[0],
                ),
            ]
        )
        assert segments(gsm7(dawn)) == 1, (lang, len(dawn), dawn)  # as Ctx.send writes it
