"""A whole Lupusburg game in Spanish over HTTP, read on the phones: Sofía on Telegram (tapping her
buttons), Pam by SMS (answering her numbered lists), Diego and Oli beside them. The deal is the
seeded one (``conftest.stack``): Sofía the Thief, Diego the Werewolf, Pam and Oli Townsfolk; with
``barajar no`` the seats are the join order, so Sofía holds the Burgomaster on day 1, Pam on day 2.

What issue 30 found the game not saying is asserted on what each phone received: the Burgomaster
told, his privilege and the show, a bet explained, the ballot by seat, houses in Spanish, the end's
scores explained."""

from __future__ import annotations

import re
from typing import Any

import engine
from service.channels.sms.gsm7 import fold as gsm7
from service.texts.grammar import fold
from service.texts.i18n import t

from .conftest import SmsPlayer, Stack, TgPlayer, sms_player, tg_player

ENGLISH_SIDES = re.compile(r"\b(left|right)\b", re.IGNORECASE)


def state(stack: Stack) -> Any:
    return engine.from_json(stack.game().state or "")


def news(p: TgPlayer | SmsPlayer, since: int) -> str:
    """What the phone received since it had ``since`` texts, as one text."""
    return "\n".join(p.texts()[since:])


def has(text: str, *parts: str) -> bool:
    """Every part is in the text, accents and case aside (an SMS drops the accents GSM-7 lacks)."""
    return all(fold(part) in fold(text) for part in parts)


def opened(stack: Stack) -> tuple[TgPlayer, SmsPlayer, TgPlayer, SmsPlayer]:
    sofia, diego = tg_player(stack, "Sofía"), tg_player(stack, "Diego")
    pam, oli = sms_player(stack), sms_player(stack)
    for p in (sofia, diego):
        p.say("/start")
        p.say("idioma es")
    for s in (pam, oli):
        s.say("IDIOMA ES")
    sofia.say("nueva lupusburg barajar no")
    code = stack.game().code
    sofia.say(f"unirse {code} Sofía")
    pam.say(f"UNIRSE {code} Pam")
    diego.say(f"unirse {code} Diego")
    oli.say(f"UNIRSE {code} Oli")
    sofia.say("empezar")
    stack.deliver()
    s = state(stack)
    assert s.players == ("Sofía", "Pam", "Diego", "Oli")
    assert {h: r.value for h, r in s.cards.items() if r.value != "townsfolk"} == {
        "Sofía:left": "thief",
        "Diego:left": "werewolf",
    }, "the seeded deal changed: rewrite the story"
    return sofia, pam, diego, oli


def test_a_lupusburg_game_in_spanish_explains_itself_on_telegram_and_by_sms(stack: Stack) -> None:
    sofia, pam, diego, oli = opened(stack)
    code = stack.game().code

    # The start: the table is told who holds the Burgomaster and what he does.
    started = news(sofia, 0)
    assert has(started, "El Burgomaestre es Sofía", "el cargo pasa al siguiente jugador en sentido horario"), started
    assert has(news(pam, 0), "Burgomaestre: Sofia"), pam.texts()

    # Night 1: the Thief looks (a button named in Spanish), the Werewolf's Claw takes Oli's left house.
    mark = len(sofia.texts())
    sofia.tap("peek Oli:derecha")
    diego.tap("kill Oli:izquierda")
    stack.deliver()
    stack.finish_phase()
    stack.deliver()

    # Day 1: Sofía alone is told she holds the Burgomaster, and what her privilege is.
    day1 = news(sofia, mark)
    assert has(day1, "Bajo Oli:derecha: el Habitante del pueblo")  # the Thief's look, in Spanish
    assert has(day1, t("es", "burgomaster.privilege")), day1
    assert not any(has(x, "Hoy eres el Burgomaestre") for x in pam.texts() + diego.texts() + oli.texts())
    assert has(day1, "Día 1: votación, dirigida por el Burgomaestre Sofía", "dos fichas de voto")

    # She asks what she may do: Lupusburg's own words, houses in Spanish.
    mark = len(sofia.texts())
    sofia.say("ayuda")
    stack.deliver()
    helped = news(sofia, mark)
    assert has(helped, "Te quedan 2 fichas de voto", "Eres el Burgomaestre", "Sofía:izquierda/derecha"), helped

    # Her privilege, typed with the Spanish side and no accent; she sees Pam's card, is told she must
    # now show one of hers, and gets the two as buttons.
    mark = len(sofia.texts())
    sofia.say("privilegio pam:izquierda")
    stack.deliver()
    seen = news(sofia, mark)
    assert has(seen, "Pam te muestra en secreto Pam:izquierda: el Habitante del pueblo."), seen
    assert has(seen, "Ahora debes mostrar a Pam uno de tus dos personajes"), seen
    shows = {b["text"] for _, b in sofia.buttons()[-2:]}
    assert shows == {"izquierda", "derecha"}, shows
    mark_pam = len(pam.texts())
    sofia.tap("show derecha")
    stack.deliver()
    assert has(news(sofia, mark), "Mostraste a Pam tu casa derecha: el Habitante del pueblo.")
    shown = news(pam, mark_pam)
    assert has(
        shown,
        "El Burgomaestre Sofia, que miro tu personaje Pam:izq, te muestra a cambio Sofia:der: el Habitante del pueblo.",
    ), shown
    assert not has(shown, "uno de sus personajes"), "the shown player is not told it twice"
    assert has(news(diego, 0), "El Burgomaestre Sofía mira Pam:izquierda")

    # Pam bets by SMS: what a bet is and what the draw means, then one confirmation, not two.
    mark_pam, mark = len(pam.texts()), len(sofia.texts())
    pam.say("APOSTAR 3")
    stack.deliver()
    drawn = news(pam, mark_pam)
    coins = state(stack).draws["Pam"][1]
    assert has(
        drawn,
        "Apuesta por Diego, secreta",
        f"Quédate 1 de {len(coins)} monedas",
        "su valor en puntos si Diego es el Hombre Lobo, si no 0",
    ), drawn
    assert re.search(r"Responde: moneda " + " ".join(map(str, coins)) + "$", drawn), drawn
    mark_pam = len(pam.texts())
    pam.say(f"MONEDA {coins[0]}")
    stack.deliver()
    assert news(pam, mark_pam) == gsm7(f"Apuesta sellada: Diego, moneda de {coins[0]}."), pam.texts()[mark_pam:]
    assert has(news(sofia, mark), "Pam usó su sello: una apuesta secreta sobre quién es el Hombre Lobo.")

    # The nominations, some by seat: Oli has one house left, so his seat means it.
    sofia.tap("vote Diego:izquierda")
    sofia.tap("vote Oli:derecha")
    pam.say("VOTAR 3:izq")
    pam.say("VOTAR 4")
    diego.say("votar oli")
    diego.say("votar 4:derecha")
    oli.say("VOTAR 3:IZQUIERDA")
    oli.say("VOTAR diego:izquierda")
    assert [t for _, t in state(stack).votes].count("Oli:right") == 4
    stack.deliver()
    mark_pam = len(pam.texts())
    stack.finish_phase()
    stack.deliver()
    assert state(stack).suspects == ("Diego:left", "Oli:right")

    # The ballot by seat: Diego's left house is a suspect, his right one is not; "votar 3" means it.
    ballot = news(pam, mark_pam)
    assert has(ballot, "Responde: votar 3 Diego:izq 4 Oli:der"), ballot
    pam.say("VOTAR 3")
    pam.say("VOTAR 3")
    assert state(stack).ballots["Pam"] == ("Diego:left", "Diego:left")
    stack.deliver()
    assert has(pam.texts()[-1], "Votos secretos: Diego:izq + Diego:izq (2 de 2)"), pam.texts()[-1]
    sofia.say("votar 3")
    sofia.say("votar diego")
    diego.say("votar 4")
    stack.deliver()
    stack.finish_phase()
    stack.deliver()
    assert "Diego:left" in state(stack).lynched

    # Night 2 passes the Burgomaster to Pam, and she is told; the Claw takes Pam's right house.
    assert has(pam.texts()[-1], "Eres el nuevo Burgomaestre.\nNoche 2 hasta"), pam.texts()[-1]
    assert has(news(sofia, mark), "Pam es el nuevo Burgomaestre.")
    diego.tap("kill Pam:derecha")
    stack.deliver()
    mark_pam = len(pam.texts())
    stack.finish_phase()
    stack.deliver()
    day2 = news(pam, mark_pam)
    assert has(day2, "Día 2: 2 votos públicos hasta", gsm7(t("es", "sms.burgomaster.privilege"))), day2

    # Pam asks for the seating: each player with what stands of his houses, and the Burgomaster.
    mark_pam = len(pam.texts())
    pam.say("JUGADORES")
    stack.deliver()
    seating = news(pam, mark_pam)
    assert seating == gsm7(
        "Asientos, en sentido horario: 1 Sofía, 2 Pam (solo la casa izquierda), 3 Diego (solo la "
        "casa derecha), 4 Oli (solo la casa derecha). Burgomaestre: Pam."
    ), seating

    # Her privilege by seat (Diego has one house left): she sees his Townsfolk card (the Werewolf's
    # was lynched), and does not show one of hers.
    mark_pam, mark_diego = len(pam.texts()), len(diego.texts())
    pam.say("PRIVILEGIO 3")
    stack.deliver()
    seen = news(pam, mark_pam)
    assert has(
        seen,
        "Diego te muestra en secreto Diego:der: el Habitante del pueblo.",
        "Ahora muestra uno tuyo a Diego, o irá uno al azar:",
        "Responde: mostrar izq der",
    ), seen
    for p in (sofia, pam, diego, oli):
        for _ in range(2):
            p.say("votar 3")
    stack.deliver()
    stack.finish_phase()  # the nominations close: the bot shows Diego one of Pam's at random
    stack.deliver()
    side = state(stack).privilege[1]
    word = {"left": "izquierda", "right": "derecha"}[side]
    assert has(
        news(pam, mark_pam),
        f"No habías elegido al cerrarse la votación: el bot mostró a Diego, al azar, tu casa {word}",
    ), news(pam, mark_pam)
    assert has(
        news(diego, mark_diego),
        "El Burgomaestre Pam miró tu personaje Diego:derecha y no eligió qué mostrarte: el bot te muestra al azar",
    ), news(diego, mark_diego)

    # Pam's one living character is a suspect: she has no vote, and is told so in Spanish.
    mark_pam = len(pam.texts())
    pam.say("VOTAR 3")
    stack.deliver()
    assert news(pam, mark_pam) == gsm7(t("es", "error.ballot.all_suspects")), news(pam, mark_pam)

    # The ballot lynches the Werewolf's last character: the end, with every score explained.
    mark, mark_pam = len(sofia.texts()), len(pam.texts())
    sofia.say("votar 3")
    sofia.say("votar 3")
    oli.say("VOTAR 3")
    stack.finish_phase()
    stack.deliver()
    assert stack.game().status == "over"
    end = news(sofia, mark)
    table = state(stack).outcome.scores
    assert has(end, t("es", "svc.scores.explained")), end
    assert has(end, f"Sofía {table['Sofía']}: 2 personajes vivos 4, cofre 1, sello sin usar 1"), end
    assert has(end, f"apuesta por Diego, el Hombre Lobo, {coins[0]}", "Diego 0: el Hombre Lobo, linchado, 0"), end
    sms_end = news(pam, mark_pam)
    assert has(sms_end, "Puntos (personajes+cofre+sello):", f"Pam {table['Pam']} (2+1+{coins[0]})"), sms_end

    # By SMS the rest is one text away, and it answers (it once failed with an HTTP 500).
    mark_pam = len(pam.texts())
    pam.say("ESTADO")
    stack.deliver()
    status = news(pam, mark_pam)
    assert has(status, "Hombre Lobo + Habitante del pueblo: Diego", t("es", "svc.scores.explained")), status

    # Houses were always in Spanish, on both phones: no English side anywhere.
    for text in sofia.texts() + pam.texts():
        assert not ENGLISH_SIDES.search(text), text
    assert code
