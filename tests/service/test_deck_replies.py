"""A host's deck, as he hears of it: each ``set`` of the deck, the theme or the rules is answered
with the deck as it would be dealt to the players in the lobby now (as for the fewest the game
takes while fewer are in), or with why it cannot be; ``start`` refuses a deck whose Werewolves
do not fit the player count, saying how many it takes, in the host's language, and changes
nothing."""

from __future__ import annotations

from .conftest import Harness
from .play import NAMES, open_game
from .test_bad_input import _snapshot

FIFTEEN = [f"p{i:02d}" for i in range(15)]


def test_set_deck_answers_with_the_deck_for_the_players_now_in(h: Harness) -> None:
    code = open_game(h, names=NAMES[:3])
    # Fewer than the game takes: the deck as it would be for the fewest.
    assert h.say("host", "set deck seer medium") == [
        f"Game {code}: noted. With 8 players, the fewest it takes (3 in now), the deck is: Medium (1), Seer (1), "
        "Villager (4), Werewolf (2)."
    ]
    # Lara is one of the Werewolves: one Werewolf card is added beside her, not two.
    assert h.say("host", "set deck lara seer") == [
        f"Game {code}: noted. With 8 players, the fewest it takes (3 in now), the deck is: Lara (1), Seer (1), "
        "Villager (5), Werewolf (1)."
    ]
    assert h.say("host", "set theme nights_of_blood")[0].startswith(
        f"Game {code}: noted. With 12 players, the fewest it takes (3 in now), the deck is: "
    )
    # The Aura variant deals its own deck: the theme no longer applies.
    assert h.say("host", "set aura") == [
        f"Game {code}: noted. With 4 players, the fewest it takes (3 in now), the deck is: Werewolf (1) and three of "
        "Werecow, Darius, Fortune Teller, Miss Purple, one left out unseen."
    ]
    assert h.say("host", "set theme the_night_shift") == [
        f"Game {code}: noted, but this deck cannot be dealt: Themes are for Lupus in Tabula (tabula), not for the "
        "Aura variant, whose cards the player count fixes."
    ]
    for n in NAMES[3:]:
        h.say(n, f"join {code} {n}")
    assert h.say("host", "start") == [
        "The game cannot start. The Aura variant (aura) is for 4 to 7 players (there are 8)."
    ]
    assert h.say("host", "set tabula deck seer") == [
        f"Game {code}: noted. The deck for the 8 players now in: Seer (1), Villager (5), Werewolf (2)."
    ]
    # Not a deck: the phase time said back (test_lobby), and a yes-or-no choice noted as before.
    assert h.say("host", "set night 2h") == [f"Game {code}: night 2 hours."]
    assert h.say("host", "set shuffle on") == [f"Game {code}: noted."]


def test_too_many_werewolves_are_noted_with_why_and_start_refuses_until_a_sixteenth(h: Harness) -> None:
    code = open_game(h, names=FIFTEEN)
    assert h.say("host", "set deck werewolf werewolf werewolf seer") == [
        f"Game {code}: noted, but this deck cannot be dealt: With 15 players the deck takes 2 Werewolves "
        "(Lara counts as one), not 3."
    ]
    before = _snapshot(h)
    assert h.say("host", "start") == [
        "The game cannot start. With 15 players the deck takes 2 Werewolves (Lara counts as one), not 3."
    ]
    assert _snapshot(h) == before and h.game().status == "lobby"
    h.say("p15", f"join {code} p15")  # the sixteenth: "with 16 or more players, add the third Werewolf"
    assert h.say("host", "start") == []
    roles = [r.value for r in h.state().roles.values()]  # type: ignore[attr-defined]
    assert roles.count("werewolf") == 3 and len(roles) == 16


def test_the_refusals_read_in_italian_and_spanish(h: Harness) -> None:
    code = open_game(h, lang="it", names=FIFTEEN)
    assert h.say("host", "imposta mazzo lupo_mannaro lupo_mannaro lupo_mannaro veggente") == [
        f"Partita {code}: fatto, ma questo mazzo non si può distribuire: Con 15 giocatori servono 2 lupi mannari "
        "(Lara conta come uno), non 3."
    ]
    assert h.say("host", "inizia") == [
        "La partita non può iniziare. Con 15 giocatori servono 2 lupi mannari (Lara conta come uno), non 3."
    ]
    assert h.game().status == "lobby"
    h.say("host", "end yes")
    h.say("host", "lang es")
    code = open_game(h, lang="es", names=FIFTEEN)
    assert h.say("host", "ajustar mazo lara vidente") == [
        f"Partida {code}: anotado. El mazo para los 15 jugadores de ahora: Lara (1), Vidente (1), Aldeano (12), "
        "Hombre Lobo (1)."
    ]
    assert h.say("host", "ajustar mazo lara hombre_lobo hombre_lobo vidente") == [
        f"Partida {code}: anotado, pero este mazo no se puede repartir: Con 15 jugadores el mazo lleva 2 hombres "
        "lobo (Lara cuenta como uno), no 3."
    ]
    assert h.say("host", "empezar") == [
        "La partida no puede empezar. Con 15 jugadores el mazo lleva 2 hombres lobo (Lara cuenta como uno), no 3."
    ]
    assert h.game().status == "lobby"
