"""Whole games through the application service, in every language, on both databases."""

from __future__ import annotations

import pytest

from engine import summary
from engine.record import load_record, replay
from service.texts.i18n import role_name

from .conftest import Harness
from .play import NAMES, open_game, play_to_end, start

OVER = {"en": "Game over", "it": "Partita finita", "es": "Fin de la partida"}
NIGHTS = {
    "en": "What happened, night by night:\nNight 1:",
    "it": "Com'è andata, notte per notte:\nNotte 1:",
    "es": "Lo que pasó, noche a noche:\nNoche 1:",
}
KILL = {"en": " killed ", "it": " hanno sbranato ", "es": " mataron a "}  # what happened, in sentences
WON = {"en": ("You won.", "You lost."), "it": ("Hai vinto.", "Hai perso."), "es": ("Ganaste.", "Perdiste.")}
ROLE = {"en": "Your character", "it": "Il tuo personaggio", "es": "Tu personaje"}


@pytest.mark.parametrize("lang", ["en", "it", "es"])
def test_a_whole_game_from_lobby_to_end(h: Harness, lang: str) -> None:
    code = open_game(h, lang)
    start(h, lang)
    for n in NAMES:
        assert any(m.startswith(ROLE[lang]) for m in h.inbox(n)), h.inbox(n)
    play_to_end(h, lang)
    game = h.game()
    assert game.status == "over" and game.deadline is None
    for n in NAMES:
        over, nights = h.inbox(n)[-2:]
        assert OVER[lang] in over, over
        assert over.startswith(WON[lang][0] if n in h.state().outcome.winners else WON[lang][1]), over  # type: ignore[attr-defined]
        # The reveal names every card in the reader's language.
        for p, r in h.state().roles.items():  # type: ignore[attr-defined]
            assert f"{p} ({role_name(lang, r.value)})" in over, over
        assert nights.startswith(NIGHTS[lang]) and KILL[lang] in nights, nights
    # The record, exported in English whatever the players wrote, replays to the same end.
    record = h.say(NAMES[0], "record")[0]
    assert "vote" in record and "end" in record and code not in record
    assert summary(replay(load_record(record)).state) == summary(h.state())
