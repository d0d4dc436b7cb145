"""Host tools: a substitute takes over a seat with its secrets; pause and resume; remove; end."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engine import Phase

from .conftest import Harness
from .play import NAMES, WORDS, open_game, play_phase, play_to_end, start


def test_a_substitute_takes_over_seat_and_secrets(h: Harness) -> None:
    code = open_game(h)
    start(h)
    state = h.state()
    wolf = next(p for p in state.players if state.roles[p].value == "werewolf")  # type: ignore[attr-defined]
    h.say(wolf, "kill " + next(p for p in state.players if state.roles[p].value != "werewolf"))  # type: ignore[attr-defined]
    h.clear()
    assert "Only a host" in h.say("gus", f"replace {wolf}")[0]
    out = h.say("host", f"replace {wolf}")
    assert "open" in out[0]
    assert any("gave your seat" in m for m in h.inbox(wolf))
    out = h.say("newbie", f"join {code}")
    assert out[0].startswith(f"You take over {wolf}")
    assert "Werewolf" in out[1] and "The pack" in out[1]  # the card and what it learned
    # The engine's player name stays: the substitute acts as the wolf, the old identity cannot.
    assert "not in a game" in h.say(wolf, "kill gus")[0]
    # Nor may he come back in another seat: he knows his old card and what it learned.
    other_seat = next(p for p in state.players if p not in (wolf,) and state.roles[p].value != "werewolf")  # type: ignore[attr-defined]
    h.say("host", f"replace {other_seat}")
    assert "already played in this game" in h.say(wolf, f"join {code}")[0]
    assert "already played in this game" in h.say(wolf, f"volunteer {code}")[0]
    assert h.say("newbie2", f"join {code}")[0].startswith(f"You take over {other_seat}")
    human = next(p for p in state.players if state.roles[p].value != "werewolf")  # type: ignore[attr-defined]
    h.say("newbie", f"kill {human}")
    assert f"You chose to kill {human}. You may change it until the night ends." in h.inbox("newbie")
    # Everyone else is told that the seat has a new player, and nothing about who.
    other = "ann" if wolf != "ann" else "bob"
    assert any(f"{wolf} is now played by a substitute" in m for m in h.inbox(other))
    play_to_end(h)
    assert h.game().status == "over"


def test_a_paused_game_does_not_move(h: Harness) -> None:
    open_game(h)
    start(h)
    h.advance(60)
    before = h.game().deadline
    assert before is not None
    h.say("host", "pause")
    assert h.game().paused and h.game().deadline is None
    h.advance(60 * 24 * 3)
    assert h.svc.due_games() == [] and h.tick() == 0
    assert "paused" in h.say("ann", "vote bob")[0]
    assert h.state().phase_no == 1
    h.say("host", "resume")
    game = h.game()
    assert not game.paused and game.deadline is not None
    assert game.deadline - h.clock.now == before - (h.clock.now - timedelta(days=3))  # the same time left
    h.finish_phase()
    assert h.state().phase is Phase.NOMINATIONS


def test_extend_while_paused_moves_the_time_left(h: Harness) -> None:
    open_game(h)
    start(h)
    h.advance(60)  # a night of 12 hours: 11 left
    h.say("host", "pause")
    h.clear()
    h.say("host", "extend 1h30")
    assert h.game().deadline is None  # still paused: no deadline is announced
    assert any(m.endswith("when it resumes, the night phase has 12 hours 30 minutes left.") for m in h.inbox("ann"))
    h.say("bob", "lang it")
    h.say("host", "shorten 30m")
    assert any(m.endswith("restano 12 ore.") for m in h.inbox("bob"))
    h.say("host", "resume")
    assert h.game().deadline == h.clock.now + timedelta(hours=12)


def test_extend_and_shorten_move_the_deadline(h: Harness) -> None:
    open_game(h)
    start(h)
    d0 = h.game().deadline
    assert d0 is not None
    h.say("host", "extend 2h")
    assert h.game().deadline == d0 + timedelta(hours=2)
    h.say("host", "accorcia 1h30")
    assert h.game().deadline == d0 + timedelta(minutes=30)
    assert any("moved the deadline" in m for m in h.inbox("ann"))
    h.say("host", "shorten 3d")
    assert h.game().deadline == h.clock.now
    assert h.tick() == 1


def test_remove_leaves_the_character_silent(h: Harness) -> None:
    open_game(h)
    start(h)
    h.say("host", "remove dan")
    assert any("dan was removed" in m for m in h.inbox("ann"))
    assert "not in a game" in h.say("dan", "vote ann")[0]
    play_to_end(h)


def test_ending_a_game_reveals_every_card(h: Harness) -> None:
    open_game(h)
    start(h)
    play_phase(h)
    assert "end yes" in h.say("host", "end")[0]
    assert h.game().status == "running"
    h.say("host", "end yes")
    assert h.game().status == "ended"
    last, nights = h.inbox("ann")[-2:]
    assert "ended game" in last and "(Werewolf)" in last and "(Seer)" in last
    assert nights.startswith("What happened, night by night:\nNight 1:")
    assert h.say("ann", "status")[0] == last
    assert "rules: tabula" in h.say("ann", "record")[0]


def test_a_moderator_who_does_not_play_sees_everything(h: Harness) -> None:
    open_game(h)
    start(h)
    state = h.state()
    wolf = next(p for p in state.players if state.roles[p].value == "werewolf")  # type: ignore[attr-defined]
    prey = next(p for p in NAMES if state.roles[p].value == "villager")  # type: ignore[attr-defined]
    h.say(wolf, "kill " + prey)
    assert any(f"{wolf} chose to kill" in m for m in h.inbox("host"))
    status = h.say("host", "status")[0]
    assert "(Werewolf)" in status and f"{wolf}: kill {prey}" in status
    assert "(Werewolf)" not in h.say("ann", "status")[0]
    # In his own language, with the choosers by name (or card) and the verbs as players type them.
    h.say("host", "lang it")
    status = h.say("host", "status")[0]
    assert f"{wolf}: sbrana {prey}" in status and "pack" not in status


def test_fixed_times_of_day_in_the_games_time_zone(h: Harness) -> None:
    # 09:00 UTC is 10:00 in Rome: the night ends at 08:00 Rome time the next morning.
    open_game(h, extra="night 8:00 ballot 21.30 tz Europe/Rome")
    start(h)
    deadline = h.game().deadline
    assert deadline is not None
    assert (deadline.month, deadline.day, deadline.hour, deadline.minute) == (3, 3, 7, 0)
    h.finish_phase()
    day_length = h.game().deadline - h.clock.now  # type: ignore[operator]
    assert day_length == timedelta(hours=20)  # nominations keep the default length
    h.finish_phase()
    ballot_end = h.game().deadline
    assert ballot_end is not None and (ballot_end.hour, ballot_end.minute) == (20, 30)


def test_the_end_reveals_every_night(h: Harness) -> None:
    open_game(h)
    start(h)
    play_to_end(h)
    reveal = [m for m in h.inbox("ann") if m.startswith("What happened, night by night:")]
    assert len(reveal) == 1 and "Night 1:" in reveal[0] and " killed " in reveal[0] and " looked at " in reveal[0]


def test_help_says_until_when_in_the_players_own_time_zone(h: Harness) -> None:
    open_game(h, extra="tz Europe/Rome")
    start(h)
    # The night ends at 21:00 UTC: 22:00 in Rome, 16:00 in New York.
    assert "until Mon 2 Mar 22:00 CET (Europe/Rome)" in h.say("ann", "help")[0]
    assert h.say("ann", "tz america/new_york") == ["Deadlines will be shown in America/New_York."]
    assert "until Mon 2 Mar 16:00 EST (America/New_York)" in h.say("ann", "help")[0]
    assert "time zone like" in h.say("ann", "tz Mars/Olympus")[0]
    h.say("ann", "tz game")
    assert "(Europe/Rome)" in h.say("ann", "help")[0]


def test_the_host_sets_options_in_the_lobby_and_timings_later(h: Harness) -> None:
    open_game(h)
    assert "Only a host" in h.say("ann", "set night 2h")[0]
    # A set of the deck is answered with the deck as it would be dealt to the players now in.
    assert h.say("host", "set night 2h deck seer medium shuffle off") == [
        f"Game {h.game().code}: noted. The deck for the 8 players now in: Medium (1), Seer (1), Villager (4), "
        "Werewolf (2)."
    ]
    game = h.game()
    assert game.options == {"night_minutes": 120, "shuffle": False} and game.setup == {"specials": ["seer", "medium"]}
    assert "did not understand" in h.say("host", "set deck unicorn")[0]
    start(h)
    state = h.state()
    assert list(state.players) == NAMES  # not shuffled
    assert sorted(r.value for r in state.roles.values()).count("medium") == 1  # type: ignore[attr-defined]
    assert h.game().deadline == h.clock.now + timedelta(hours=2)
    assert "only phase lengths" in h.say("host", "set deck seer")[0]
    h.say("host", "imposta giorno 8:30")
    assert h.game().options["nominations_at"] == "08:30" and "nominations_minutes" not in h.game().options


def test_a_cohost_the_host_names_has_the_host_tools(h: Harness) -> None:
    code = open_game(h)
    assert h.say("bob", "cohost ann") == ["Only a host can do that."]
    assert h.say("host", "cohost nobodyhere") == ["There is no player called nobodyhere. To talk, write: say TEXT."]
    h.clear()
    assert h.say("host", "vice ann") == []  # told to the whole table through the outbox
    assert "ann is now a co-host." in h.inbox("bob") and "ann is now a co-host." in h.inbox("host")
    h.say("ann", "start")  # a co-host starts the game
    assert h.game().status == "running"
    d0 = h.game().deadline
    assert d0 is not None
    h.say("ann", "extend 1h")
    assert h.game().deadline == d0 + timedelta(hours=1)
    assert h.say("bob", "extend 1h") == ["Only a host can do that."]
    assert h.say("ann", "pause") == [] and h.game().paused
    # A co-host has every host tool, and no co-host can be named for an empty seat.
    h.say("ann", "resume")
    h.say("ann", "replace dan")
    assert h.say("ann", "cohost dan") == ["dan has no player now: nobody to make a co-host."]
    h.say("newbie", f"join {code}")
    assert "Only a host" in h.say("newbie", "extend 1h")[0]  # the seat's co-host mark did not pass on
    # A co-host who is replaced loses the tools with the seat.
    h.say("host", "replace ann")
    assert "not in a game" in h.say("ann", "extend 1h")[0]


def test_the_moderator_may_not_take_an_open_seat(h: Harness) -> None:
    code = open_game(h)
    start(h)
    h.say("host", "replace dan")
    assert h.say("host", f"join {code}") == [
        f"#{code}: you moderate this game and have read every secret, so you may not take a seat in it."
    ]
    assert h.say("host", f"volunteer {code}") == [
        f"#{code}: you moderate this game and have read every secret, so you may not take a seat in it."
    ]
    assert "status shows everything" in h.say("host", "help")[0]  # still the moderator, seat still open
    assert h.say("newbie", f"join {code}")[0] == f"You take over dan in game {code}."


HOST_WORDS = {
    "it": ("sostituisci", "pausa", "riprendi", "proroga"),
    "es": ("reemplazar", "pausa", "reanudar", "extender"),
}
WELCOME = {
    "it": "Prendi il posto di {name} nella partita {code}.",
    "es": "Ocupas el lugar de {name} en la partida {code}.",
}
PAUSED = {
    "it": "Un organizzatore ha messo in pausa la partita: l'orologio è fermo.",
    "es": "Un anfitrión pausó la partida: el reloj está parado.",
}
CARD = {"it": "Il tuo personaggio: Lupo Mannaro.", "es": "Tu personaje: Hombre Lobo."}


@pytest.mark.parametrize("lang", ["it", "es"])
def test_a_substitute_and_a_pause_in_italian_and_spanish(h: Harness, lang: str) -> None:
    replace, pause, resume, extend = HOST_WORDS[lang]
    code = open_game(h, lang)
    start(h, lang)
    wolf = next(p for p, r in h.state().roles.items() if r.value == "werewolf")  # type: ignore[attr-defined]
    h.say("host", f"{replace} {wolf}")
    welcome, card = h.say("newbie", f"{WORDS[lang]['join']} {code}")[:2]
    assert welcome == WELCOME[lang].format(name=wolf, code=code) and card.startswith(CARD[lang])
    h.clear()
    h.say("host", pause)
    assert PAUSED[lang] in h.inbox("newbie")
    h.say("host", f"{extend} 1h")
    h.advance(60 * 24)
    assert h.tick() == 0
    h.say("host", resume)
    assert h.game().deadline is not None
    play_to_end(h, lang)
    assert h.game().status == "over"
