"""Player tools: ``status`` (phase, deadline, who lives, the public tally), ``role`` (the card and
what it learned), ``lang``; and the ``#CODE`` prefix for a player in several games, who is asked
which game when it matters."""

from __future__ import annotations

from engine import Phase

from .conftest import Harness
from .play import NAMES, open_game, play_phase, start


def _roles(h: Harness, code: str | None = None) -> dict[str, str]:
    return {p: r.value for p, r in h.state(code).roles.items()}  # type: ignore[attr-defined]


def test_status_shows_phase_deadline_the_living_and_the_tally(h: Harness) -> None:
    code = open_game(h, extra="tz Europe/Rome")
    start(h)
    roles = _roles(h)
    wolves = [p for p in NAMES if roles[p] == "werewolf"]
    victim = next(p for p in NAMES if roles[p] == "villager")
    for w in wolves:
        h.say(w, f"kill {victim}")
    h.finish_phase()
    voters = [p for p in NAMES if p != victim][:3]
    for v in voters:
        h.say(v, f"vote {wolves[0]}")
    living = [p for p in h.state().players if p != victim]
    out = h.say(voters[0], "status")
    assert out == [
        f"Game {code}: nominations 1, until Tue 3 Mar 18:00 CET. Alive: {', '.join(living)}. "
        f"Dead: {victim}.\nTally: {wolves[0]} 3."
    ]
    assert "(Werewolf)" not in out[0] and "(Villager)" not in out[0]
    # In Italian, and paused: no deadline to be "until".
    h.say("host", "pause")
    assert h.say(voters[0], "stato")[0].startswith(f"Game {code}: nominations 1, paused by a host. Alive:")
    h.say(voters[0], "lingua it")
    assert h.say(voters[0], "stato")[0].startswith(
        f"Partita {code}: votazione 1, in pausa per decisione di un organizzatore."
    )


def test_role_repeats_the_card_and_what_it_learned(h: Harness) -> None:
    open_game(h)
    start(h)
    roles = _roles(h)
    seer = next(p for p in NAMES if roles[p] == "seer")
    wolf = next(p for p in NAMES if roles[p] == "werewolf")
    assert h.say(seer, "role")[0].startswith("Your character: Seer.")
    h.say(seer, f"see {wolf}")
    h.finish_phase()
    card = h.say(seer, "ruolo")[0]
    assert card.startswith("Your character: Seer.")
    assert f"What you learned:\n- Your vision: {wolf} is a Werewolf." in card
    pack = h.say(wolf, "role")[0]
    assert pack.startswith("Your character: Werewolf.") and "The pack: " in pack
    assert "not playing" in h.say("host", "role")[0]  # the moderator has no card


def test_lang_switches_every_text_a_player_reads(h: Harness) -> None:
    open_game(h)
    assert h.say("ann", "lang it") == ["Lingua: italiano."]
    assert h.say("bob", "idioma espanol") == ["Idioma: español."]
    assert h.say("cat", "lang klingon") == ["Write lang it, lang es or lang en."]
    h.clear()
    start(h)
    assert any(m.startswith("Il tuo personaggio:") for m in h.inbox("ann"))
    assert any(m.startswith("Tu personaje:") for m in h.inbox("bob"))
    assert any(m.startswith("Your character:") for m in h.inbox("cat"))
    assert h.say("ann", "aiuto")[0].startswith(f"Partita {h.game().code}, notte 1 fino a lun 2 mar")


def test_a_player_in_two_games_names_one_with_its_code_or_is_asked(h: Harness) -> None:
    h.say("host2", "new")
    second = h.game().code
    for n in NAMES:
        h.say(n, f"join {second} {n}")
    first = open_game(h)  # the harness plays the newest game
    start(h)
    h.say("host2", f"#{second} start")
    h.say("host2", "extend 1d")  # the second game's night lasts a day longer
    # Both games at night: ann, a Villager in both, has nothing to do; a bare word asks which game.
    assert h.say("ann", "status") == [
        f"You are in several games: start with the code, e.g. #{second} status. Your games: #{second}, #{first}."
    ]
    assert h.say("ann", f"#{second.lower()} status")[0].startswith(f"Game {second}: night 1, until")
    assert h.say("ann", f"#{second}")[0].startswith(f"Game {second}: night 1, until")  # the code alone: status
    assert h.say("stranger", f"#{first} status") == [f"You are not in game {first}."]
    # The first game to the day: a vote makes sense only there, so it goes there without a code.
    play_phase(h)
    assert h.state(first).phase is Phase.NOMINATIONS and h.state(second).phase is Phase.NIGHT
    living = [p for p in h.state(first).players if p in h.state(first).alive]  # type: ignore[attr-defined]
    voter, target = living[0], living[1]
    assert h.say(voter, f"vote {target}") == []  # announced to all through the outbox
    assert (voter, target) in h.state(first).votes  # type: ignore[attr-defined]
    # A move that fits neither game asks which; with the code it goes where it is told.
    before = h.state(second)
    assert "several games" in h.say(voter, "kill bob")[0]
    assert h.say(voter, f"#{second} vote {target}") == ["Votes are cast by day: wait for the morning."]
    assert h.state(second) == before


def test_a_game_one_only_asked_about_does_not_answer_after_its_end(h: Harness) -> None:
    code = open_game(h)
    start(h)
    assert h.say("stranger", f"#{code} status") == [f"You are not in game {code}."]
    assert h.say("stranger", f"join {code} zed")[0].startswith(f"No seat of game {code} is open")
    h.say("host", "end yes")
    nowhere = "You are not in a game. Write new to create one, or join CODE NAME to join one."
    assert h.say("stranger", "record") == [nowhere]
    assert h.say("stranger", "hello?") == [nowhere]
    assert "rules: tabula" in h.say("ann", "record")[0]  # those who played still get it
