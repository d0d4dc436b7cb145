"""Lupusburg explains itself (issue 30): each defect a Spanish table met, played through the service.

The seating, truthful about houses and the Burgomaster; the ballot and the nominations by seat; houses
read and typed in the reader's language; the Burgomaster told, his privilege and the show he owes; a
bet explained and confirmed once; the help in the game's words; the end's scores, explained."""

from __future__ import annotations

from engine import Role
from engine.lupusburg.houses import houses_of
from engine.lupusburg.state import LupusburgState
from engine.record import load_record
from service.channels.sms.gsm7 import fold as gsm7
from service.texts import player_texts, render
from service.texts.i18n import t

from .conftest import Harness
from .play import open_game, start

FOUR = ["ann", "bob", "cat", "dan"]


def lupusburg(h: Harness) -> LupusburgState:
    state = h.state()
    assert isinstance(state, LupusburgState)
    return state


def table(h: Harness, lang: str = "es") -> LupusburgState:
    """Four players seated in the order they joined: ann holds the Burgomaster on day 1."""
    open_game(h, lang, FOUR, "lupusburg barajar no" if lang == "es" else "lupusburg shuffle off")
    start(h, lang)
    return lupusburg(h)


def others(state: LupusburgState) -> list[str]:
    """The players who are neither the Werewolf nor the Burgomaster, in seating order."""
    wolf = state.holder(Role.WEREWOLF)
    return [p for p in state.players if p not in (wolf, state.burgomaster)]


def to_day(h: Harness, kill: str | None = None) -> None:
    state = lupusburg(h)
    if kill is not None:
        h.say(state.holder(Role.WEREWOLF), f"kill {kill}")
    h.finish_phase()


def nominate(h: Harness, first: str, second: str) -> None:
    for p in lupusburg(h).players:
        h.say(p, f"vote {first}")
        h.say(p, f"vote {second}")
    h.finish_phase()


def last(h: Harness, who: str) -> str:
    return h.inbox(who)[-1]


def test_players_says_what_stands_of_each_players_houses_and_who_holds_the_burgomaster(h: Harness) -> None:
    # It marked everyone with the Ghost mark on night 1: "1 ann +, 2 bob +, ..." (the alive list holds houses).
    state = table(h)
    h.say("bob", "jugadores")
    assert last(h, "bob") == "Asientos, en sentido horario: 1 ann, 2 bob, 3 cat, 4 dan. Burgomaestre: ann."
    x, y = others(state)
    to_day(h, kill=f"{x}:left")

    def seating(mark: str, burgomaster: str) -> str:
        listed = ", ".join(f"{i} {p}" + (mark if p == x else "") for i, p in enumerate(state.players, start=1))
        return f"Asientos, en sentido horario: {listed}. Burgomaestre: {burgomaster}."

    h.say("bob", "jugadores")
    assert last(h, "bob") == seating(" (solo la casa derecha)", "ann")
    nominate(h, f"{x}:right", f"{y}:left")
    for p in state.players:  # the ballot lynches x's last character: Lupusburg's Ghost, who still votes
        h.say(p, f"vote {x}:right")
        h.say(p, f"vote {x}:right")
    h.finish_phase()
    h.say("bob", "jugadores")
    assert last(h, "bob") == seating(" (sin personajes vivos)", "bob")


def test_a_ballot_by_seat_takes_the_owners_one_suspect_house_and_asks_only_between_choices(h: Harness) -> None:
    # In a ballot between Oli:left and Diego:right, "votar 6" was answered "Di qué casa: Oli:left o
    # Oli:right." (a house that is no suspect) and the ballot was lost.
    state = table(h)
    wolf = state.holder(Role.WEREWOLF)
    x, y = others(state)
    to_day(h)
    nominate(h, f"{wolf}:left", f"{x}:right")
    assert set(lupusburg(h).suspects) == {f"{wolf}:left", f"{x}:right"}
    seat = state.players.index(wolf) + 1
    h.clear()
    h.say(y, f"votar {seat}")
    assert lupusburg(h).ballots[y] == (f"{wolf}:left",)
    # "Votos secretos: Cat:izq (de 2)": how many of his two he has cast, said.
    assert last(h, y) == t("es", "day.ballot_taken.two", votes=f"{wolf}:izquierda", used=1, of=2)
    assert "(1 de tus 2)" in last(h, y)
    h.say(y, f"votar {wolf}")  # his name, likewise
    assert lupusburg(h).ballots[y] == (f"{wolf}:left", f"{wolf}:left")
    # A seat none of whose houses is a suspect: the rules' reason, never a question offering his houses.
    h.say(y, f"votar {state.players.index(y) + 1}")
    suspects = " o ".join(s.replace(":left", ":izquierda").replace(":right", ":derecha") for s in lupusburg(h).suspects)
    assert last(h, y) == t("es", "error.ballot.not_suspect", target=f"{y}:izquierda", suspects=suspects)


def test_nominations_by_seat_take_the_one_living_house_and_ask_between_two(h: Harness) -> None:
    state = table(h)
    x, y = others(state)
    to_day(h, kill=f"{x}:left")
    h.clear()
    h.say(y, f"votar {state.players.index(x) + 1}")
    assert lupusburg(h).votes == ((y, f"{x}:right"),)
    h.say(y, f"votar {state.players.index(y) + 1}")
    assert last(h, y) == f"Di qué casa: {y}:izquierda o {y}:derecha."


def test_a_house_typed_with_a_space_for_its_colon_is_that_house(h: Harness) -> None:
    # "votar 4 izquierda" and "privilegio 3 izq" were refused: "votar lleva un solo nombre."
    state = table(h)
    x, y = others(state)
    to_day(h)
    h.say(y, f"votar {state.players.index(x) + 1} izquierda")
    assert lupusburg(h).votes[-1] == (y, f"{x}:left")
    h.say("ann", f"privilegio {x} dcha")
    assert lupusburg(h).privilege == (f"{x}:right", None)
    h.say(y, f"votar {x} left right")  # three words name no house: the rule's one-name answer
    assert last(h, y) == "votar lleva un solo nombre."


def test_houses_are_shown_in_the_readers_language_and_typed_in_any(h: Harness) -> None:
    # Spanish showed "votar 1 Sofía:left/right" and refused "privilegio diego:izquierda".
    state = table(h)
    x, y = others(state)
    to_day(h)
    options = h.inbox("ann")[-1]
    assert options.startswith("Elige con un número o un nombre: votar 1 ann:izquierda/derecha, 2 bob:izquierda/derecha")
    assert "left" not in options and "right" not in options
    h.say("ann", f"privilegio {x}:IZQUIERDA")
    assert lupusburg(h).privilege == (f"{x}:left", None)
    assert last(h, "ann") == "Elige con un número o un nombre: mostrar izquierda, derecha."
    h.say("ann", "mostrar dcha")
    assert lupusburg(h).privilege == (f"{x}:left", "right")
    h.say(y, "lingua it")  # and read in Italian, typed in Italian
    h.say(y, f"vota {x}:sinistra")
    assert lupusburg(h).votes[-1] == (y, f"{x}:left")
    assert last(h, y).startswith(f"{y} vota {x}:sinistra.")
    # The record keeps the moves in English, whatever was typed.
    record = load_record(h.say("host", "registro")[0]) if h.game().status != "running" else None
    assert record is None  # running: the record waits for the end
    h.say("host", "terminar si")
    moves = [m.text for m in load_record(h.say("host", "registro")[0]).moves]
    assert f"privilege {x}:left" in moves and "show right" in moves and f"vote {x}:left" in moves


def test_the_moderator_reads_the_nights_choices_in_his_language(h: Harness) -> None:
    state = table(h)  # the host did not take a seat: he moderates
    x, _ = others(state)
    h.say(state.holder(Role.WEREWOLF), f"matar {x}:izquierda")
    h.say("host", "estado")
    assert f"matar {x}:izquierda" in last(h, "host"), last(h, "host")


def test_the_burgomaster_is_told_his_privilege_the_show_he_owes_and_a_show_the_bot_made(h: Harness) -> None:
    # Nobody was told he held the Burgomaster; after his privilege the bot chose for him, silently.
    state = table(h)
    x, y = others(state)
    h.clear()
    to_day(h)
    assert t("es", "burgomaster.privilege") in h.inbox("ann")
    assert not any(t("es", "burgomaster.privilege") in h.inbox(p) for p in ("bob", "cat", "dan"))
    assert any(m.startswith("Día 1: votación, dirigida por el Burgomaestre ann.") for m in h.inbox(x))
    h.clear()
    h.say("ann", f"privilegio {x}:left")
    card = t("es", "role.townsfolk")
    assert h.inbox("ann") == [
        f"{x} te muestra en secreto {x}:izquierda: el {card}.",
        t("es", "privilege.must_show", player=x),
        "Elige con un número o un nombre: mostrar izquierda, derecha.",
    ]
    assert h.inbox(x) == [t("es", "privilege.used.yours", burgomaster="ann", house=f"{x}:izquierda")]
    assert h.inbox(y) == [t("es", "privilege.used", burgomaster="ann", house=f"{x}:izquierda")]
    h.clear()
    h.finish_phase()  # he did not choose: the bot shows one at random, and both are told so
    side = lupusburg(h).privilege[1]  # type: ignore[index]
    word = t("es", f"side.{side}")
    own = t("es", f"role.{state.cards[f'ann:{side}'].value}")
    assert t("es", "privilege.showed.random", player=x, side=word, card=own) in h.inbox("ann")
    assert t(
        "es", "privilege.shown.random", burgomaster="ann", seen=f"{x}:izquierda", house=f"ann:{word}", card=own
    ) in h.inbox(x)
    answered = t("es", "privilege.answered", burgomaster="ann", player=x)
    assert answered in h.inbox(y) and answered not in h.inbox("ann") + h.inbox(x), "told in their own words only"


def test_a_bet_is_explained_and_confirmed_once_to_its_maker(h: Harness) -> None:
    # "Sacaste las monedas 8, 5: quédate una con: moneda N.", then "Tu apuesta ... está sellada." and
    # "Sofía hizo una apuesta sellada." to the same player.
    state = table(h)
    x, y = others(state)
    to_day(h)
    h.clear()
    h.say(x, f"apostar {y}")
    coins = list(lupusburg(h).draws[x][1])
    listed = ", ".join(map(str, coins))
    assert h.inbox(x) == [
        t("es", "bet.drawn", target=y, coins=listed, count=3),
        f"Elige con un número o un nombre: moneda {listed}.",
    ]
    assert "Sacaste 3 monedas de la bolsa" in h.inbox(x)[0] and "un sello sin usar vale 1" in h.inbox(x)[0]
    h.clear()
    h.say(x, f"moneda {coins[1]}")
    assert h.inbox(x) == [t("es", "bet.placed", target=y, coin=coins[1])]
    assert h.inbox(y) == [t("es", "bet.sealed", player=x)]


def test_one_coin_left_is_said_as_one() -> None:
    info, reader = render.Info("K7Q", "UTC", None), render.Reader("ann", "es")
    one = render.event_text("bet.drawn", {"target": "Pam", "coins": [5]}, reader, info)
    assert "Solo quedaba 1 moneda en la bolsa, la de 5: quédatela con moneda 5." in one, one
    sms = render.event_text("bet.drawn", {"target": "Pam", "coins": [5]}, render.Reader("ann", "es", sms=True), info)
    assert sms.startswith("Apuesta por Pam, secreta. Queda 1 moneda, la de 5"), sms


def test_the_deal_says_what_each_pair_of_cards_makes_its_player_do() -> None:
    # "Juegas como Habitante del pueblo. Casa izquierda: ..." told nobody what he may do, nor how he wins.
    info = render.Info("K7Q", "UTC", None)
    for role, said in (
        ("townsfolk", "No tienes poderes: descubre al hombre lobo"),
        ("thief", "Cada noche miras bajo una casa"),
        ("werewolf", "Cada noche matas al personaje bajo una casa"),
    ):
        data = {"role": role, "left": "villager", "right": role if role != "townsfolk" else "villager", "chest": "left"}
        for sms in (False, True):
            text = render.event_text("houses.dealt", data, render.Reader("ann", "es", sms=sms), info)
            assert said in text or gsm7(said) in text, text
            assert ": " + said[0] not in text, text  # a sentence of its own, not a capital after a colon
    werewolf = render.event_text("houses.dealt", {**data, "role": "werewolf"}, render.Reader("ann", "en"), info)
    assert "lose if you are lynched" in werewolf and "with the pack" not in werewolf, werewolf


def test_help_says_what_a_lupusburg_player_may_do_in_its_own_words(h: Harness) -> None:
    # "mostrar left, right" appeared only in "ayuda", in English, among the verbs.
    state = table(h)
    x, _ = others(state)
    to_day(h)
    h.say("ann", "ayuda")
    said = [m for m in h.inbox("ann") if m.startswith("Partida ")][-1]
    assert t("es", "svc.help.lupusburg.tokens", count=2) in said
    assert t("es", "svc.help.lupusburg.privilege") in said and t("es", "svc.help.lupusburg.bet") in said
    h.say("ann", f"privilegio {x}:left")
    h.say("ann", "ayuda")
    said = [m for m in h.inbox("ann") if m.startswith("Partida ")][-1]
    assert "mostrar izquierda, derecha" in said and t("es", "svc.help.lupusburg.show", player=x) in said


GAME_OVER = {
    "team": "townsfolk",
    "winners": ["pam"],
    "reason": "end.werewolf_dead",
    "roles": {
        "sofia": ["thief", "townsfolk"],
        "pam": ["townsfolk", "townsfolk"],
        "diego": ["werewolf", "townsfolk"],
        "oli": ["townsfolk", "townsfolk"],
    },
    "scores": {"sofia": 6, "pam": 11, "diego": 0, "oli": 0},
    "chests": {"sofia": "right", "pam": "left", "diego": "right", "oli": "left"},
    "bets": {"pam": {"target": "diego", "coin": 8}, "oli": {"target": "sofia", "coin": 3}},
    "score_table": {
        "sofia": {"characters": 4, "chest": 1, "seal": 1, "werewolf": 0, "total": 6},
        "pam": {"characters": 2, "chest": 1, "seal": 8, "werewolf": 0, "total": 11},
        "diego": {"characters": 0, "chest": 0, "seal": 0, "werewolf": 0, "total": 0},
        "oli": {"characters": 0, "chest": 0, "seal": 0, "werewolf": 0, "total": 0},
    },
}


def test_the_end_explains_each_score() -> None:
    # "Puntos: Sofía 0, Pam 6, Diego 0..." said neither why nor how.
    text = render.game_over(GAME_OVER, "es")
    assert text.endswith(
        "\n".join(
            [
                t("es", "svc.scores.explained"),
                "pam 11: 1 personaje vivo 2, cofre 1, apuesta por diego, el Hombre Lobo, 8",
                "sofia 6: 2 personajes vivos 4, cofre 1, sello sin usar 1",
                "diego 0: el Hombre Lobo, linchado, 0",
                "oli 0: apuesta por sofia, que no era el Hombre Lobo, 0",
            ]
        )
    ), text
    # One player wins on points: "ganan los Habitantes ... Ganadores: Cat" named a side of one.
    assert text.startswith("Fin de la partida: el Hombre Lobo ha muerto. Gana pam, con más puntos. "), text
    sms = render.game_over(GAME_OVER, "es", sms=True, name="pam")
    assert sms.startswith("Ganaste. Se acabó: el Hombre Lobo ha muerto. Gana pam por puntos."), sms
    assert (
        "Puntos (personajes+cofre+sello): pam 11 (2+1+8), sofia 6 (4+1+1), diego 0 (Hombre Lobo), oli 0 (0+0+0)."
    ) in sms, sms
    won = {
        **GAME_OVER,
        "team": "werewolf",
        "winners": ["diego"],
        "reason": "end.werewolf_parity",
        "scores": {"sofia": 0, "pam": 0, "diego": 4, "oli": 0},
        "score_table": {
            p: {
                "characters": 0,
                "chest": 0,
                "seal": 0,
                "werewolf": 4 if p == "diego" else 0,
                "total": 4 if p == "diego" else 0,
            }
            for p in GAME_OVER["roles"]
        },
    }
    assert render.game_over(won, "it").endswith(
        "\nPunteggi: il Lupo Mannaro diego vince e fa un punto per giocatore, 4; gli altri 0."
    )


def test_status_at_the_end_of_a_lupusburg_game_answers_by_sms() -> None:
    # An SMS player's "estado" at the end failed (HTTP 500): two cards a player were grouped as one key.
    over = {"status": "over", "team": "townsfolk", "winners": ["pam"], **GAME_OVER}
    text = player_texts.status_text(
        over,  # type: ignore[arg-type]
        render.Reader("pam", "es", sms=True),
        render.Info("K7Q", "UTC", None),
        False,
    )
    assert "Hombre Lobo + Habitante del pueblo: diego" in text and t("es", "svc.scores.explained") in text, text
    # "ganaron los Habitantes. Ganadores: pam" named a side of one: the one winner, on points.
    assert text.startswith("La partida K7Q ha terminado: ganó pam, con más puntos."), text


def test_houses_dealt_and_each_seat_in_italian_and_english(h: Harness) -> None:
    state = table(h, "en")
    x, _ = others(state)
    to_day(h, kill=f"{x}:left")
    h.say("bob", "players")
    assert f"{state.players.index(x) + 1} {x} (right house only)" in last(h, "bob")
    h.say("bob", "lingua it")
    h.say("bob", "giocatori")
    assert f"{state.players.index(x) + 1} {x} (solo la casa destra)" in last(h, "bob")
    assert houses_of(x) == (f"{x}:left", f"{x}:right")
