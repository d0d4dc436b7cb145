"""Lobbies: create a game with its choices, share the code, join with a name, leave, start when
the deck fits (a deck that does not fit is refused with the reason, and nothing starts); the
seating is shuffled at the start from the game's seed."""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

from engine.rng import rng
from service.store.models import Game

from .conftest import Harness
from .play import NAMES, open_game, start
from .test_bad_input import _snapshot


def test_a_game_is_created_with_its_choices_and_its_code_is_shared(h: Harness) -> None:
    out = h.say("host", "nuova tema the_night_shift notte 10h giorno 8:00 ballottaggio 3h fuso Europe/Madrid lingua es")
    game = h.game()
    assert game.status == "lobby" and len(game.code) == 4
    assert game.setup == {"theme": "the_night_shift"}
    assert game.options == {"night_minutes": 600, "nominations_at": "08:00", "ballot_minutes": 180}
    assert (game.timezone, game.language) == ("Europe/Madrid", "es")
    # The creator is told the code and what players must write to join (in the game's language:
    # he is new here, so he takes it).
    assert out == [
        f"Partida {game.code} creada (El turno de noche, Europe/Madrid). Los jugadores escriben: "
        f"unirse {game.code} NOMBRE. La organizas tú: únete para jugar, o quédate fuera para moderar. "
        "Escribe empezar cuando estén todos."
    ]
    # The rule set by name.
    h.say("host2", "new lupusburg")
    assert h.game().rules == "lupusburg"


def test_join_with_a_name_then_leave_before_the_start(h: Harness) -> None:
    code = open_game(h, names=NAMES[:3])
    assert h.say("zed", f"join {code}") == [f"Write: join {code} NAME (the name the others will see)."]
    assert "taken" in h.say("zed", f"join {code} ANN")[0]  # names differ by more than case
    assert "one word" in h.say("zed", f"join {code} 42")[0]
    assert "one word" in h.say("zed", f"join {code} a#b")[0]
    assert h.say("zed", f"entra {code.lower()} zed") == []  # the joins go to everyone through the outbox
    assert h.say("zed", "help") == [
        f"Game {code}, waiting to start (4 players). You can: players, guide, leave, say TEXT, lang it|es|en."
    ]
    assert h.say("host", "help")[1] == "Host: start, cohost NAME, remove NAME, end."
    assert any(m == f"zed joined game {code} (4 players)." for m in h.inbox("ann"))
    assert h.say("zed", f"join {code} zed2") == [f"You are already in game {code} as zed."]
    h.clear()
    assert h.say("zed", "leave") == []
    assert f"zed left game {code}." in h.inbox("ann")
    assert "not in a game" in h.say("zed", "status")[0]
    assert h.say("ann", "players") == ["Players: 1 ann, 2 bob, 3 cat."]


@pytest.mark.parametrize(
    ("names", "extra", "reason"),
    [
        (NAMES[:5], "", "Not enough players: there are 5, at least 8 are needed."),
        (NAMES, "deck seer seer", "There is only one Seer card."),
        (NAMES, "deck freemason", "The Freemasons come as a pair: two or none."),
        (
            NAMES,
            "deck werewolf werewolf werewolf werewolf",
            "With 8 players the deck takes 2 Werewolves (Lara counts as one), not 4.",
        ),
        (NAMES[:7], "theme the_night_shift", "The Night Shift is a theme for 8 to 13 players (there are 7)."),
    ],
)
def test_a_deck_that_does_not_fit_is_refused_and_nothing_starts(
    h: Harness, names: list[str], extra: str, reason: str
) -> None:
    open_game(h, names=names, extra=extra)
    before = _snapshot(h)
    assert h.say("host", "start") == [f"The game cannot start. {reason}"]
    assert _snapshot(h) == before and h.game().status == "lobby"


def test_an_unknown_theme_is_refused_at_once_with_the_themes(h: Harness) -> None:
    # The themes by their names, fewest players first (seen: their identifiers).
    themes = (
        "The themes: The Few and the Special!; The Night Shift; The Evil and the Cure; Different Factions, "
        "Different Afterlives; The Lovers of Mystery; Nights of Blood; Mythomania."
    )
    assert h.say("host", "new theme unicorns") == ["There is no theme called unicorns. " + themes]
    with Session(h.db) as s:
        assert s.exec(select(Game)).all() == []  # nothing was created
    open_game(h, extra="theme nights_of_blood")
    before = _snapshot(h)
    assert h.say("host", "set theme unicorns") == ["There is no theme called unicorns. " + themes]
    assert _snapshot(h) == before and h.game().setup == {"theme": "nights_of_blood"}


def test_only_a_host_starts_and_the_seating_is_shuffled_from_the_seed(h: Harness) -> None:
    code = open_game(h)
    assert h.say("ann", "start") == ["Only a host can do that."]
    assert h.game().status == "lobby"
    start(h)
    game = h.game()
    seating = h.state().players
    expected = list(NAMES)
    rng(game.seed, "seating").shuffle(expected)
    assert list(seating) == expected and list(seating) != NAMES
    assert game.setup["players"] == expected
    # players lists the seats in the new order, and the started game takes nobody else.
    listed = ", ".join(f"{i} {n}" for i, n in enumerate(expected, 1))
    assert h.say("ann", "players")[0] == f"Seating, clockwise: {listed}."
    assert h.say("zed", f"join {code} zed") == [
        f"No seat of game {code} is open for a substitute. Write volunteer {code} to wait for one."
    ]


def test_the_host_ends_a_lobby(h: Harness) -> None:
    code = open_game(h, names=NAMES[:2])
    h.clear()
    h.say("host", "end yes")
    assert h.game().status == "ended"
    assert f"A host closed game {code}." in h.inbox("ann")
    assert "not in a game" in h.say("bob", "players")[0]


def test_a_games_zone_follows_its_language_when_the_host_names_none(h: Harness) -> None:
    # Seen: a Spanish game defaulted to Europe/Rome.
    h.say("h1", "nueva")
    assert (h.game().language, h.game().timezone) == ("es", "Europe/Madrid")
    h.say("h2", "nuova")
    assert (h.game().language, h.game().timezone) == ("it", "Europe/Rome")
    h.say("h3", "new")
    assert (h.game().language, h.game().timezone) == ("en", h.svc.settings.DEFAULT_TIMEZONE)
    h.say("h3", "set lang es")  # a zone nobody chose follows the language
    assert (h.game().language, h.game().timezone) == ("es", "Europe/Madrid")
    h.say("h4", "new lang es tz Europe/London")  # the host's own choice stands
    assert h.game().timezone == "Europe/London"
    h.say("h4", "set lang it")
    assert (h.game().language, h.game().timezone) == ("it", "Europe/London")


def test_a_host_who_sets_phase_times_is_told_them_back_in_his_words(h: Harness) -> None:
    # Seen: "imposta notte 2h giorno 4h" was answered "Partita GE2F: fatto.", and the host could not
    # tell what had been understood.
    h.say("capo", "nuova")
    code = h.game().code
    assert h.say("capo", "imposta notte 2h giorno 4h") == [f"Partita {code}: notte 2 ore, votazione 4 ore."]
    assert h.say("capo", "imposta ballottaggio 18:30") == [f"Partita {code}: ballottaggio fino alle 18:30."]
    h.say("boss", "new")
    code = h.game().code
    assert h.say("boss", "set night 90m") == [f"Game {code}: night 1 hour 30 minutes."]
    assert h.say("boss", "set shuffle off") == [f"Game {code}: noted."]  # not a time: noted, as before
