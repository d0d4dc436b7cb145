"""Words: what only looks like a command is answered and never relayed, a move from the wrong
phase gets the phase's own refusal, counts take their plural form, the pack is told when its
choices differ, and the texts read as a native player would write them."""

from __future__ import annotations

import re

import pytest
from babel.messages.pofile import read_po
from sqlalchemy import Engine

import engine
from engine import Action, Phase, Verb
from service.channels.base import Incoming
from service.channels.sms.gsm7 import fold as gsm7
from service.channels.sms.gsm7 import is_gsm7
from service.game import inbound
from service.texts import grammar, render
from service.texts.history import history_text
from service.texts.i18n import LANGUAGES, LOCALE_DIR, t

from .conftest import Harness
from .play import NAMES, WORDS, open_game, start
from .test_sms_texts import Mixed

TABLE = ["Jim", "Zed", "Ann", "Dan", "Eve", "Fay", "Gus", "Hal"]


# -- what counts as shaped like a command ---------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "verb", "target"),
    [
        ("vot Jim", "vote", "Jim"),
        ("vedo Zed", "see", "Zed"),
        ("kil 3", "kill", "3"),
        ("votr 2", "vote", "2"),
        ("sbrna ann", "kill", "Ann"),
        ("mtar Eve", "kill", "Eve"),
        ("miro Eve", "see", "Eve"),
        ("vtoe Dan", "vote", "Dan"),
        ("#K7Q proteg Fay", "protect", "Fay"),
        ("KIL jim.", "kill", "Jim"),
        ("vot Ji", "vote", None),
    ],
)
def test_a_slip_of_a_verb_before_a_name_or_number_is_a_near_miss(text: str, verb: str, target: str | None) -> None:
    found = grammar.near_miss(text, TABLE)
    if target is None:  # "Ji" is no name of three letters: it could be anything
        assert found is None
        return
    assert found is not None and (found.verb, found.target) == (verb, target)


@pytest.mark.parametrize(
    "text",
    [
        "Will Dan lie again?",
        "vedo che Zed mente",
        "Veo que Jim miente",
        "vota chi vuoi",
        "Vero, Jim",
        "Will Dan",
        "hey Jim",
        "ciao Ann",
        "gracias Eve",
        "Ann Bob",
        "kil 30",
        "kil 0",
        "si Jim",
        "ok",
        "vot",
        "I think vot Jim is a typo",
    ],
)
def test_talk_that_starts_near_a_verb_is_still_talk(text: str) -> None:
    assert grammar.near_miss(text, TABLE) is None


def test_a_word_after_a_slash_is_a_command_and_nothing_else_is() -> None:
    assert grammar.parse("/foo").slash and grammar.parse("#K7Q /foo bar").slash
    assert not any(grammar.parse(t).slash for t in ("!foo", "/ hi", "//", "foo /bar", "/vote bob"))


def test_overheard_in_a_group_a_move_itself_is_kept_back() -> None:
    assert grammar.near_miss("vote Jim", TABLE) is None  # a command: the grammar reads it as one
    found = grammar.near_miss("vote Jim", TABLE, exact=True)
    assert found is not None and (found.verb, found.target) == ("vote", "Jim")


def test_a_newcomers_command_word_tells_his_language() -> None:
    assert grammar.language_of("entra K7Q Ann") == "it"
    assert grammar.language_of("#K7Q unirse Ana") == "es"
    assert grammar.language_of("join K7Q Ann") is None  # English: also what Telegram's deep link says
    assert grammar.language_of("pausa") is None  # both Italian and Spanish


# -- in a game -------------------------------------------------------------------------------------
def _game(h: Harness, lang: str = "en") -> dict[str, str]:
    open_game(h, lang)
    start(h, lang)
    return {p: r.value for p, r in h.state().roles.items()}  # type: ignore[attr-defined]


def _to_day(h: Harness, roles: dict[str, str]) -> None:
    victim = next(p for p in NAMES if roles[p] == "villager")
    for wolf in (p for p in NAMES if roles[p] == "werewolf"):
        h.say(wolf, f"kill {victim}")
    h.finish_phase()
    assert h.state().phase is Phase.NOMINATIONS


@pytest.mark.parametrize(
    ("lang", "typo", "meant"),
    [
        ("en", "vot {x}", "Did you mean: vote {x}?"),
        ("it", "vedo {x}", "Intendevi: vedi {x}?"),
        ("es", "mirr {x}", "¿Querías decir: ver {x}?"),
    ],
)
def test_a_seers_slip_at_night_is_answered_privately_and_reaches_nobody(
    h: Harness, lang: str, typo: str, meant: str
) -> None:
    roles = _game(h, lang)
    seer = next(p for p in NAMES if roles[p] == "seer")
    target = next(p for p in NAMES if p != seer)
    h.clear()
    (reply,) = h.say(seer, typo.format(x=target))
    assert reply.startswith(meant.format(x=target)), reply
    h.deliver()
    assert all(not msgs for who, msgs in h.channel.sent.items() if who != seer), h.channel.sent
    assert h.state().choices == {}  # type: ignore[attr-defined]  # and nothing was chosen


@pytest.mark.parametrize(
    ("lang", "slip", "talk"),
    [
        ("en", "vot {x}", "Will {x} lie again?"),
        ("it", "vots {x}", "vedo che {x} mente"),
        ("es", "votr {x}", "Veo que {x} miente"),
    ],
)
def test_by_day_a_slip_is_kept_back_and_talk_goes_on(h: Harness, lang: str, slip: str, talk: str) -> None:
    roles = _game(h, lang)
    _to_day(h, roles)
    alive = [p for p in NAMES if p in h.state().alive]  # type: ignore[attr-defined]
    speaker, other, listener = alive[0], alive[1], alive[2]
    h.clear()
    (reply,) = h.say(speaker, slip.format(x=other))
    assert f"{WORDS[lang]['vote']} {other}" in reply, reply
    assert h.inbox(listener) == []
    assert h.state().votes == ()  # type: ignore[attr-defined]
    assert h.say(speaker, talk.format(x=other)) == []
    assert h.inbox(listener) == [f"{speaker}: {talk.format(x=other)}"]


@pytest.mark.parametrize(
    ("lang", "unknown", "near"),
    [
        ("en", "I do not know the command /foo", "Did you mean: vote {x}?"),
        ("it", "Non conosco il comando /foo", "Intendevi: vota {x}?"),
        ("es", "No conozco el comando /foo", "¿Querías decir: votar {x}?"),
    ],
)
def test_a_slash_word_that_is_no_command_is_never_talk(h: Harness, lang: str, unknown: str, near: str) -> None:
    roles = _game(h, lang)
    _to_day(h, roles)
    alive = [p for p in NAMES if p in h.state().alive]  # type: ignore[attr-defined]
    h.clear()
    assert h.say(alive[0], "/foo")[0].startswith(unknown)
    assert h.say(alive[0], f"/vot {alive[1]}")[0].startswith(near.format(x=alive[1]))
    assert h.say("stranger", "/foo")[0].startswith("I do not know the command /foo")  # in no game at all
    h.deliver()
    others = [m for who, msgs in h.channel.sent.items() if who not in (alive[0], "stranger") for m in msgs]
    assert not any("foo" in m or "/vot" in m for m in others)


# -- the phase's own refusal -------------------------------------------------------------------------
def test_a_numbered_vote_by_sms_at_night_is_told_votes_are_by_day(db: Engine) -> None:
    h = Mixed(db)
    open_game(h, "es")
    start(h, "es")
    villager = next(p for p, r in h.state().roles.items() if r.value == "villager")  # type: ignore[attr-defined]
    assert h.say(villager, "votar 1") == ["Se vota de dia: espera a la mañana."]
    assert h.say(villager, "votar Zed") == ["Se vota de dia: espera a la mañana."]


@pytest.mark.parametrize(
    ("lang", "word", "refusal"),
    [
        ("en", "kill 2", "You cannot kill: your character has no such power."),
        ("it", "sbrana 2", "Non puoi sbranare: il tuo personaggio non ha questo potere."),
        ("es", "matar 2", "No puedes matar: tu personaje no tiene ese poder."),
    ],
)
def test_a_villagers_kill_is_told_he_has_no_such_power(h: Harness, lang: str, word: str, refusal: str) -> None:
    roles = _game(h, lang)
    villager = next(p for p in NAMES if roles[p] == "villager")
    assert h.say(villager, word) == [refusal]
    assert h.say(villager, word.split()[0] + " nobody") == [refusal]


@pytest.mark.parametrize(
    ("lang", "word", "refusal"),
    [
        ("en", "see", "You cannot look at a player now."),
        ("it", "vedi", "Ora non puoi scrutare un giocatore."),
        ("es", "ver", "Ahora no puedes mirar a un jugador."),
    ],
)
def test_a_seer_by_day_reads_a_sentence(h: Harness, lang: str, word: str, refusal: str) -> None:
    roles = _game(h, lang)
    _to_day(h, roles)
    seer = next(p for p in NAMES if roles[p] == "seer")
    assert h.say(seer, f"{word} 1") == [refusal]


# -- counts --------------------------------------------------------------------------------------------
NUMBERS = ("count", "n", "minimum", "maximum", "cards", "wolves")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_text_that_counts_is_a_plural_entry(lang: str) -> None:
    with (LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
        singular = {str(m.id): str(m.string) for m in read_po(f) if m.id and not isinstance(m.id, tuple)}
    # Ordinals are no counts: "Night 2", "Game 3 of the series".
    ordinal = {"svc.night_n", "history.night", "history.day", "svc.again.series"}
    counted = [
        k for k, text in singular.items() if k not in ordinal and set(re.findall(r"{(\w+)}", text)) & set(NUMBERS)
    ]
    assert counted == [], counted


@pytest.mark.parametrize(
    ("lang", "one", "two"),
    [
        ("en", "with 1 player.", "with 2 players."),
        ("it", "con 1 giocatore.", "con 2 giocatori."),
        ("es", "con 1 jugador.", "con 2 jugadores."),
    ],
)
def test_counts_take_their_form_from_the_number(lang: str, one: str, two: str) -> None:
    assert one in t(lang, "game.started", code="K7Q", count=1, deck="", seating="")
    assert two in t(lang, "game.started", code="K7Q", count=2, deck="", seating="")
    from engine import InvalidSetup
    from service.texts.errors import error_text

    wolves = error_text(lang, InvalidSetup("setup.too_many_wolves", "1 would win", wolves=1))
    assert wolves.startswith("1 ") and "{" not in wolves


# -- wording ----------------------------------------------------------------------------------------
def test_the_history_reads_as_sentences_in_each_language_and_names_whom_a_revival_brought_back() -> None:
    notes = [
        {"night": 1, "what": "killed", "by": ["Jim", "Dan"], "player": "Ann", "cause": "werewolves"},
        {"night": 1, "what": "look", "by": ["Eve"], "target": "Jim", "as_card": "seer", "were": True},
        {"day": 1, "what": "killed", "by": [], "player": "Jim", "cause": "lynched"},
        {"night": 2, "what": "revived", "by": ["Bea"], "player": "Ann"},
    ]
    told = {lang: history_text(notes, 2, lang).split("\n")[1:] for lang in LANGUAGES}
    assert told["en"] == [
        "Night 1: the Werewolves (Jim, Dan) killed Ann; the Seer (Eve) looked at Jim: a Werewolf.",
        "Day 1: the village lynched Jim.",
        "Night 2: nobody died; Baron Samedi (Bea) brought Ann back to life.",
    ]
    assert told["it"] == [
        "Notte 1: i Lupi Mannari (Jim, Dan) hanno sbranato Ann; il Veggente (Eve) ha scrutato Jim: è un lupo mannaro.",
        "Giorno 1: il villaggio ha linciato Jim.",
        "Notte 2: non è morto nessuno; il Barone Samedi (Bea) ha riportato in vita Ann.",
    ]
    assert told["es"] == [
        "Noche 1: los Hombres Lobo (Jim, Dan) mataron a Ann; el Vidente (Eve) miró a Jim: es un hombre lobo.",
        "Día 1: el pueblo linchó a Jim.",
        "Noche 2: no murió nadie; el Barón Samedi (Bea) devolvió la vida a Ann.",
    ]
    assert history_text(notes, 2, "en", sms=True).startswith(
        "What happened: Night 1: the Werewolves (Jim,Dan) killed Ann;"
    )


@pytest.mark.parametrize("lang", ["it", "es"])
def test_the_lynched_reads_right_for_anyone(lang: str) -> None:
    info = render.Info("K7Q", "UTC", None)
    data = {"ballots": {"bea": "ann"}, "counts": {"ann": 1}, "lynched": "Ann"}
    for sms in (False, True):
        text = render.event_text("day.ballots", data, render.Reader("bea", lang, sms=sms), info)
        assert "linciato" not in text and "linchado" not in text, text
        assert {"it": "lincia Ann", "es": "lincha a Ann"}[lang] in text, text


def test_a_nomination_shows_the_running_tally(h: Harness) -> None:
    roles = _game(h)
    _to_day(h, roles)
    alive = [p for p in NAMES if p in h.state().alive]  # type: ignore[attr-defined]
    a, b, c = alive[:3]
    h.say(a, f"vote {c}")
    h.say(b, f"vote {c}")
    h.clear()
    h.say(c, f"vote {a}")
    assert h.inbox(alive[3]) == [f"{c} votes {a}. Tally: {c} 2, {a} 1."]


@pytest.mark.parametrize(
    ("lang", "paused", "until"),
    [("en", "paused by a host", "until"), ("it", "in pausa", "fino a"), ("es", "en pausa", "hasta")],
)
def test_a_paused_game_is_not_until_no_deadline(h: Harness, lang: str, paused: str, until: str) -> None:
    roles = _game(h, lang)
    h.say("host", "pausa" if lang != "en" else "pause")
    player = next(p for p in NAMES if roles[p] == "villager")
    status = h.say(player, {"en": "status", "it": "stato", "es": "estado"}[lang])[0]
    helped = h.say(player, {"en": "help", "it": "aiuto", "es": "ayuda"}[lang])[0]
    for text in (status, helped):
        assert paused in text and f"{until} " not in text.split(".")[0], text
        assert t(lang, "svc.no_deadline") not in text


def test_a_moved_deadline_names_the_phase_as_a_phase(h: Harness) -> None:
    roles = _game(h)
    _to_day(h, roles)
    h.clear()
    h.say("host", "extend 1h")
    h.deliver()
    assert any("the nominations phase now ends" in m for msgs in h.channel.sent.values() for m in msgs)


@pytest.mark.parametrize(
    ("word", "lang", "joined"),
    [("entra", "it", "Lia entra nella partita"), ("unirse", "es", "Lia se unio a la partida")],
)
def test_a_newcomer_is_answered_in_the_language_of_his_words(db: Engine, word: str, lang: str, joined: str) -> None:
    h = Mixed(db)
    h.say("host", "new")  # an English game
    code = h.game().code
    h.say("+390000001", f"{word} {code} Lia")
    assert any(joined in m for m in h.inbox("+390000001")), h.inbox("+390000001")
    assert h.say("+390000002", f"{word}") == [gsm7(t(lang, "svc.join.how"))]  # no game named: his language
    h.say("+440000003", f"join {code} Tom")
    assert any("Tom joined game" in m for m in h.inbox("+440000003"))


@pytest.mark.parametrize(
    ("first", "word", "lang", "joined"),
    [("ciao", "entra", "it", "Giulia entra nella partita"), ("/start", "unirse", "es", "Giulia se unio a la partida")],
)
def test_a_word_of_no_language_pins_none_and_his_first_command_in_one_sets_it(
    db: Engine, first: str, word: str, lang: str, joined: str
) -> None:
    # Seen: "ciao", then "entra zbdd Giulia", answered in English; "/start", then "unirse hag4 Diego", likewise.
    h = Mixed(db)
    h.say("host", "new")  # an English game
    code = h.game().code
    me = "+390000001"
    h.say(me, first)
    h.say(me, f"{word} {code} Giulia")
    assert any(joined in m for m in h.inbox(me)), h.inbox(me)
    # His language until he says otherwise: neither an English word nor the other language's changes it.
    already = gsm7(t(lang, "svc.join.already", code=code, name="Giulia"))
    assert h.say(me, f"join {code} Giulia") == [already]
    assert h.say(me, f"{'unirse' if lang == 'it' else 'entra'} {code} Giulia") == [already]
    h.say(me, "lang en")
    assert h.say(me, f"{word} {code} Giulia") == [t("en", "svc.join.already", code=code, name="Giulia")]


def test_telegrams_language_code_tells_a_newcomers_language_until_his_words_do(h: Harness) -> None:
    h.say("host", "new")
    code = h.game().code

    def tg(text: str, language: str | None) -> list[str]:
        message = Incoming("test", "zoe", f"z{next(h._ids)}", text, language=language)
        return h.svc._act(inbound.work(h.svc, message))  # what the Telegram webhook hands over

    tg("/start", "it")
    tg(f"join {code} Zoe", "en")  # his app says English now: what it said first stays
    assert tg(f"join {code} Zoe", None) == [t("it", "svc.join.already", code=code, name="Zoe")]
    tg("unirse", "it")  # his words outrank his app's
    assert tg(f"join {code} Zoe", "it") == [t("es", "svc.join.already", code=code, name="Zoe")]


# -- the pack told when its choices differ ---------------------------------------------------------
def _pack_state() -> tuple[engine.GameState, list[str], list[str]]:
    for seed in range(50):
        state, _ = engine.new_game(engine.GameConfig(engine.RuleSet.TABULA, tuple(NAMES)), seed)
        wolves = [p for p in NAMES if state.roles[p].value == "werewolf"]  # type: ignore[attr-defined]
        if len(wolves) == 2:
            return state, wolves, [p for p in NAMES if p not in wolves]
    raise AssertionError("no deal with two Werewolves")


def test_the_pack_is_told_at_once_when_its_choices_differ_and_how_it_is_settled() -> None:
    state, (a, b), humans = _pack_state()
    state, events = engine.apply(state, Action(a, Verb.KILL, humans[0]))
    assert [e.key for e in events] == ["night.choice"]  # one choice: nothing differs
    state, events = engine.apply(state, Action(b, Verb.KILL, humans[1]))
    split = [e for e in events if e.key == "werewolf.split"]
    assert len(split) == 1 and set(split[0].to or ()) == {a, b} and split[0].channel == "werewolves"
    assert split[0].data == {"choices": {a: humans[0], b: humans[1]}, "overridden": False}
    state, events = engine.apply(state, Action(b, Verb.KILL, humans[1]))  # the same again: told already
    assert [e.key for e in events] == ["night.choice"]
    state, events = engine.apply(state, Action(b, Verb.KILL, humans[0]))  # agreed: nothing to settle
    assert [e.key for e in events] == ["night.choice"]
    reader = render.Reader(a, "it")
    text = render.event_text("werewolf.split", split[0].data, reader, render.Info("K7Q", "UTC", None))
    assert text.startswith(f"Il branco ha scelto vittime diverse: {a} sbrana {humans[0]}, {b} sbrana {humans[1]}.")
    assert "più lupi vivi" in text and "sorte" in text


def test_the_pack_reads_the_split_in_its_own_language_and_nobody_else_does(h: Harness) -> None:
    roles = _game(h, "es")
    a, b = [p for p in NAMES if roles[p] == "werewolf"]
    x, y = [p for p in NAMES if roles[p] == "villager"][:2]
    h.say(a, f"matar {x}")
    h.clear()
    h.say(b, f"matar {y}")
    told = [m for m in h.inbox(a) if m.startswith("La manada eligió víctimas distintas")]
    assert told == [
        f"La manada eligió víctimas distintas: {a} mata a {x}, {b} mata a {y}. Al amanecer muere el "
        "elegido por más lobos vivos; si hay empate, se sortea."
    ]
    assert any(m.startswith("La manada eligió") for m in h.inbox(b))
    assert not any("distintas" in m for who in NAMES if who not in (a, b) for m in h.inbox(who))


@pytest.mark.parametrize(
    ("lang", "one", "many"),
    [
        ("en", "Game over: the Werewolf wins (", "Game over: the Werewolves win ("),
        ("it", "Partita finita: vince il Lupo Mannaro (", "Partita finita: vincono i Lupi Mannari ("),
        ("es", "Fin de la partida: gana el Hombre Lobo (", "Fin de la partida: ganan los Hombres Lobo ("),
    ],
)
def test_the_end_agrees_with_the_side_that_won(lang: str, one: str, many: str) -> None:
    # Lupusburg's Werewolf is one player; the Werewolves of the base game a side.
    alone = {"team": "werewolf", "winners": ["pam"], "reason": "end.werewolf_parity", "roles": {"pam": "werewolf"}}
    side = {
        "team": "werewolves",
        "winners": ["ann", "bob"],
        "reason": "end.werewolves_parity",
        "roles": {"ann": "werewolf", "bob": "werewolf", "cat": "villager"},
    }
    assert render.game_over(alone, lang).startswith(one)
    assert render.game_over(side, lang).startswith(many)
    assert t(lang, "svc.status.over", code="K7Q", team="x", winners="pam", count=render.side_count("werehamster")) != t(
        lang, "svc.status.over", code="K7Q", team="x", winners="pam", count=render.side_count("humans")
    )


# -- slips a native writer would not make ------------------------------------------------------------
def _text(key: str, data: dict[str, object], lang: str, sms: bool = False, name: str = "Marco") -> str:
    return render.event_text(key, data, render.Reader(name, lang, sms=sms), render.Info("K7Q", "UTC", None))


@pytest.mark.parametrize(
    ("lang", "one", "two", "sms_one", "sms_two"),
    [
        (
            "it",
            "È l'alba. Vittima della notte: Jim.",
            "È l'alba. Vittime della notte: Jim, Leo.",
            "Alba: muore Jim.",
            "Alba: muoiono Jim, Leo.",
        ),
        (
            "es",
            "Amanece. Esta noche ha muerto Jim.",
            "Amanece. Esta noche han muerto Jim, Leo.",
            "Amanece: murió Jim.",
            "Amanece: murieron Jim, Leo.",
        ),
    ],
)
def test_the_dawn_agrees_with_how_many_died(lang: str, one: str, two: str, sms_one: str, sms_two: str) -> None:
    # "Alba. Morti: Jim." named one death with a plural.
    assert _text("night.dawn", {"night": 1, "dead": ["Jim"]}, lang) == one
    assert _text("night.dawn", {"night": 1, "dead": ["Jim", "Leo"]}, lang) == two
    assert _text("night.dawn", {"night": 1, "dead": ["Jim"]}, lang, sms=True) == sms_one
    assert _text("night.dawn", {"night": 1, "dead": ["Jim", "Leo"]}, lang, sms=True) == sms_two


@pytest.mark.parametrize(
    ("lang", "night"), [("it", "Notte 2: azioni notturne fino a "), ("es", "Noche 2: acciones nocturnas hasta ")]
)
def test_the_night_is_named_as_a_night_not_as_a_number_falling(lang: str, night: str) -> None:
    # "Scende la notte 2", "Cae la noche 2": the number is the night's name, not what falls.
    assert _text("phase.night", {"night": 2}, lang).startswith(night)


@pytest.mark.parametrize(
    ("lang", "self_", "other", "sms"),
    [
        ("en", "You chose to look at Zed. You may change it", "Jim chose to kill Zed.", "You chose to look at Zed;"),
        (
            "it",
            "Hai scelto di scrutare Zed. Puoi cambiare idea",
            "Jim ha scelto di sbranare Zed.",
            "Hai scelto di scrutare Zed, puoi",
        ),
        ("es", "Elegiste mirar a Zed. Puedes cambiarlo", "Jim eligió matar a Zed.", "Elegiste mirar a Zed, cambiable"),
    ],
)
def test_a_night_choice_is_answered_with_a_sentence(lang: str, self_: str, other: str, sms: str) -> None:
    # "Preso nota: vedi Marco" read as a command echoed, not as a sentence.
    see = {"actor": "Marco", "verb": "see", "target": "Zed", "changed": False}
    assert _text("night.choice", see, lang).startswith(self_)
    assert _text("night.choice", see, lang, sms=True).startswith(sms)
    assert _text("night.choice", {"actor": "Jim", "verb": "kill", "target": "Zed", "changed": False}, lang) == other
    revive = _text("night.choice", {"actor": "Marco", "verb": "revive", "target": None, "changed": False}, lang)
    assert "{" not in revive and "None" not in revive


def test_the_spanish_ballot_has_the_rulebooks_name_tied_or_not() -> None:
    # "Desempate" (a tie-break) named every ballot; the rulebook's Spanish says "segunda votación".
    data = {"day": 1, "suspects": ["Jim", "Zed"]}
    assert _text("phase.ballot", data, "es").startswith("Segunda votación hasta ")
    assert _text("phase.ballot", data, "es", sms=True).startswith("Segunda votación: Jim o Zed")
    assert t("es", "phase.name.ballot") == "segunda votación"
    with (LOCALE_DIR / "es" / "LC_MESSAGES" / "messages.po").open("rb") as f:
        said = [
            str(m.string)
            for m in read_po(f)
            if m.id and str(m.id).startswith(("phase.", "sms.phase.", "error.ballot."))
        ]
    assert not [s for s in said if "desempate" in s.casefold()], said


@pytest.mark.parametrize(
    ("lang", "refusal"),
    [
        ("en", "The game cannot start. Not enough players: there are 2, at least 8 are needed."),
        ("it", "La partita non può iniziare. Giocatori insufficienti: ce ne sono 2, ne servono almeno 8."),
        ("es", "La partida no puede empezar. Faltan jugadores: hay 2, se necesitan al menos 8."),
    ],
)
def test_a_refused_start_reads_as_two_sentences(h: Harness, lang: str, refusal: str) -> None:
    # "The game cannot start: Not enough players: ...": two colons, a capital after one.
    open_game(h, lang, names=NAMES[:2])
    assert h.say("host", WORDS[lang]["start"]) == [refusal]


def test_being_in_no_game_reads_the_same_whatever_was_asked(h: Harness) -> None:
    # "You are not in a game. Write help." and "You are in no game. Write new to create one.": one state.
    said = {h.say("stranger", word)[0] for word in ("games", "status", "record", "vote bob", "hello?")}
    assert said == {t("en", "svc.not_in_game")}, said


def test_the_created_text_by_sms_loses_no_accent() -> None:
    # "Unete" reached an SMS reader: GSM-7 has no "Ú". The SMS text says it with words GSM-7 carries whole.
    for lang in ("es", "it"):
        created = t(lang, "sms.svc.created", code="K7Q", rules=t(lang, "rules.tabula"), tz="Europe/Madrid")
        assert gsm7(created) == created and is_gsm7(created), created
