"""The command language and the catalogs."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from babel.messages.pofile import read_po

from engine import Verb
from service.channels.sms.gsm7 import fold as gsm7
from service.channels.sms.gsm7 import is_gsm7
from service.texts import grammar, render
from service.texts.grammar import Ambiguous, NoMatch, NoSeat, parse, parse_duration, resolve
from service.texts.i18n import LANGUAGES, LOCALE_DIR, t


@pytest.mark.parametrize(
    ("text", "verb", "args", "code"),
    [
        ("vote bob", "vote", ("bob",), None),
        ("VOTA Bob", "vote", ("Bob",), None),
        ("votar bob", "vote", ("bob",), None),
        ("Sbrána dan", "kill", ("dan",), None),
        ("matar dan", "kill", ("dan",), None),
        ("vedi 3", "see", ("3",), None),
        ("/vote@LupusBot bob", "vote", ("bob",), None),
        ("#k7q vote bob", "vote", ("bob",), "K7Q"),
        ("proteger eve", "protect", ("eve",), None),
        ("aiuto", "help", (), None),
        ("ayuda", "help", (), None),
        ("lingua es", "lang", ("es",), None),
        ("unirse K7Q Ana", "join", ("K7Q", "Ana"), None),
        ("hello there", None, ("hello", "there"), None),
    ],
)
def test_parse(text: str, verb: str | None, args: tuple[str, ...], code: str | None) -> None:
    p = parse(text)
    assert (p.verb, p.args, p.code) == (verb, args, code)


def test_every_engine_verb_has_words_in_three_languages() -> None:
    for verb in Verb:
        assert verb in grammar.MOVE_WORDS
        for lang in LANGUAGES:
            assert grammar.VERBS[grammar.fold(t(lang, f"verb.{verb.value}"))] == verb.value


def test_talk_keeps_the_text_as_written() -> None:
    assert parse("#K7Q I think Bob lies").rest == "I think Bob lies"
    assert parse("say vote for bob!").rest == "vote for bob!"


def test_targets_by_name_prefix_number_and_accents() -> None:
    names = ["José", "Joan", "bob"]
    assert resolve("jose", names) == "José"
    assert resolve("JOS", names) == "José"
    assert resolve("b", names) == "bob"
    with pytest.raises(Ambiguous) as e:
        resolve("jo", names)
    assert set(e.value.options) == {"José", "Joan"}
    with pytest.raises(NoMatch):
        resolve("zed", names)
    # A legal target wins over the rest of the table: "jo" is Joan if José may not be chosen.
    assert resolve("jo", ["Joan", "bob"], everyone=names) == "Joan"


def test_a_number_is_a_seat_whatever_list_came_last() -> None:
    seats = ["José", "Joan", "bob", "cat"]
    assert resolve("2", ["bob", "Joan"], seats) == "Joan"
    assert resolve("1", ["bob", "Joan"], seats) == "José"  # no legal target: the engine says why
    with pytest.raises(NoSeat) as e:
        resolve("7", ["bob"], seats)
    assert (e.value.word, e.value.seats) == ("7", 4) and isinstance(e.value, NoMatch)
    # Lupusburg: a house by its owner's seat, or its name, with its side as the rules read it.
    houses = ["bob:left", "bob:right", "cat:left"]
    assert resolve("3:left", houses, seats) == "bob:left"
    assert resolve("3:1", houses, seats) == "bob:1" and resolve("bob:r", houses, seats) == "bob:right"
    assert resolve("4", houses, seats) == "cat"  # the rules ask which house
    # Where the choices are no players, a number keeps its own meaning: a coin, a side.
    assert resolve("3", ["3", "1"], seats) == "3" and resolve("2", ["3", "1"], seats) == "2"
    assert resolve("1", ["left", "right"], seats) == "1"


@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        ("2h", 120),
        ("90m", 90),
        ("1h30", 90),
        ("1d", 1440),
        ("3 ore", 180),
        ("2 horas", 120),
        ("45", 45),
        ("soon", None),
        ("0", None),
        ("99d", None),
    ],
)
def test_durations(text: str, minutes: int | None) -> None:
    assert parse_duration(text) == minutes


def _catalog(lang: str) -> dict[str, str]:
    """Each key's text; a plural message's forms joined with " | " (each must hold the same fields)."""
    out: dict[str, str] = {}
    with (LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
        for m in read_po(f):
            if not m.id:
                continue
            if isinstance(m.id, tuple):
                out[str(m.id[0])] = " | ".join(str(x) for x in m.string or ())
            else:
                out[str(m.id)] = str(m.string)
    return out


def _plurals(lang: str) -> dict[str, tuple[str, ...]]:
    with (LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
        return {str(m.id[0]): tuple(str(x) for x in m.string or ()) for m in read_po(f) if isinstance(m.id, tuple)}


#: Plural entries whose verb agrees with a subject that is no count: the actors named ("ann kills bob",
#: "ann,dan kill bob"), the side that won ("the Werehamster wins", "the Werewolves win"), the dead
#: named ("Alba: muore Jim", "Alba: muoiono Jim, Leo").
AGREEING = ("reveal.move.", "game.over", "sms.game.over", "svc.status.over", "night.dawn.some", "sms.night.dawn.some")


def test_plural_messages_take_their_form_from_count() -> None:
    assert t("en", "svc.joined", name="Ann", code="K7Q", count=1) == "Ann joined game K7Q (1 player)."
    assert t("en", "svc.joined", name="Ann", code="K7Q", count=2) == "Ann joined game K7Q (2 players)."
    assert "(1 giocatore)" in t("it", "svc.joined", name="Ann", code="K7Q", count=1)
    assert "(0 jugadores)" in t("es", "svc.joined", name="Ann", code="K7Q", count=0)
    en = _plurals("en")
    assert en, "no plural message in the English catalog"
    for lang in ("it", "es"):
        other = _plurals(lang)
        assert set(other) == set(en), lang  # a key plural in one language is plural in all
        for key, forms in other.items():
            fields = {f for form in en[key] for f in re.findall(r"{(\w+)}", form)}
            # A plural entry shows its count, but for a sentence whose verb agrees with a subject
            # named, not counted (``AGREEING``).
            assert "count" in fields or key.startswith(AGREEING), key
            for form in forms:
                assert form and set(re.findall(r"{(\w+)}", form)) <= fields, (lang, key, form)


def test_catalogs_have_the_same_keys_and_placeholders() -> None:
    en = _catalog("en")
    for lang in ("it", "es"):
        other = _catalog(lang)
        assert set(other) == set(en), lang
        for key, text in en.items():
            assert other[key], (lang, key)
            assert set(re.findall(r"{(\w+)}", other[key])) == set(re.findall(r"{(\w+)}", text)), (lang, key)


def test_every_engine_event_key_has_a_text() -> None:
    import subprocess

    found = subprocess.run(
        ["git", "grep", "-hoE", r"(tell|announce)\([^\"]*\"[a-z_.]+\"|Event\(\"[a-z_.]+\"", "--", "engine"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    keys = set(re.findall(r"\"([a-z_.]+)\"", found))
    reader, info = render.Reader("ann", "en"), render.Info("K7Q", "Europe/Rome", None)
    unknown = t("en", "event.unknown", key="", data="")
    for lang in LANGUAGES:
        reader = render.Reader("ann", lang)
        missing = [k for k in keys if render.event_text(k, {}, reader, info).startswith(k + unknown)]
        assert keys and not missing, (lang, sorted(missing))


@pytest.mark.parametrize("lang", ["en", "it"])
def test_english_and_italian_texts_fit_gsm7(lang: str) -> None:
    for key, text in _catalog(lang).items():
        # Italian's one capital outside GSM-7 is written E' by SMS, as Italians do.
        assert is_gsm7(text.replace("È", "E'")), (lang, key, text)
        assert gsm7(text) == text.replace("È", "E'")


def test_spanish_texts_become_gsm7_for_sms() -> None:
    for text in _catalog("es").values():
        assert is_gsm7(gsm7(text))
    assert gsm7("¿Quién votó? Señor “Núñez”…") == '¿Quién voto? Señor "Nuñez"...'


def test_engine_errors_read_in_the_players_language() -> None:
    from engine import IllegalAction
    from service.texts.errors import error_text

    e = IllegalAction("ballot.not_suspect", "ann is not a suspect", target="ann", suspects=["bob", "cat"])
    assert error_text("it", e) == "ann non è tra gli indiziati: vota bob o cat."
    e = IllegalAction("bet.choose_coin", "choose your coin first", coins=[8, 2])
    assert error_text("es", e) == "Primero elige tu moneda: moneda N (sacaste 8, 2)."
    unknown = IllegalAction("brand.new", "a reason only in English")
    assert error_text("es", unknown) == "No se puede hacer: a reason only in English"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_lupusburg_ballots_read_as_names_not_a_python_list(lang: str) -> None:
    # Lupusburg gives a player one ballot per living character: the event carries a list.
    data = {
        "ballots": {"bea": ["ann", "bob"], "cid": ["ann"], "dan": "bob"},
        "counts": {"ann": 2, "bob": 2},
        "lynched": "ann",
    }
    text = render.event_text("day.ballots", data, render.Reader("bea", lang), render.Info("K7Q", "UTC", None))
    assert "bea -> ann + bob" in text and "cid -> ann" in text and "dan -> bob" in text
    assert not any(c in text for c in "[]'\""), text


#: The characters as the rulebooks name them: Lupus in Tabula in English and Italian, Lupusburg in
#: Spanish (the rulebooks this project has in each language).
RULEBOOK_NAMES = {
    "en": {
        "villager": "Villager",
        "werewolf": "Werewolf",
        "seer": "Seer",
        "medium": "Medium",
        "possessed": "Possessed",
        "bodyguard": "Bodyguard",
        "owl_man": "Owl-man",
        "freemason": "Freemason",
        "werehamster": "Werehamster",
        "mythomaniac": "Mythomaniac",
    },
    "it": {
        "werewolf": "Lupo Mannaro",
        "seer": "Veggente",
        "medium": "Medium",
        "possessed": "Indemoniato",
        "bodyguard": "Guardia del corpo",
        "owl_man": "Gufo",
        "freemason": "Massone",
        "werehamster": "Criceto Mannaro",
        "mythomaniac": "Mitomane",
    },
    "es": {"werewolf": "Hombre Lobo", "thief": "Ladrón", "townsfolk": "Habitante del pueblo"},
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_characters_have_the_rulebooks_names(lang: str) -> None:
    from service.texts.cards import role_key
    from service.texts.i18n import role_name

    for role, name in RULEBOOK_NAMES[lang].items():
        assert role_name(lang, role) == name
        assert role_key(name.replace(" ", "_")) == role  # a host may name the card so in a deck


#: The help texts list what a player may type: every such word must be one the grammar knows.
HELP_KEYS = (
    "svc.help.none",
    "svc.help.lobby",
    "svc.help.host_lobby",
    "svc.help.over",
    "svc.help.host",
    "svc.help.now",
    "svc.help.nothing",
)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_help_texts_name_only_words_the_grammar_understands(lang: str) -> None:
    for key in HELP_KEYS:
        listed = t(lang, key, actions="").rsplit(": ", 1)[1].rstrip(".")
        for item in filter(None, (i.strip() for i in listed.split(","))):
            word = item.split()[0]
            assert parse(word).verb is not None, (lang, key, word)


@pytest.mark.parametrize("word", ["²", "①", "⁴2"])
def test_digits_that_are_no_numbers_are_no_match(word: str) -> None:
    # str.isdigit() takes "²" for a digit, and int() refuses it: found by the 100,000-message fuzz.
    with pytest.raises(NoMatch):
        resolve(word, ["ann", "bob"], ["ann", "bob"])
    assert resolve("２", ["ann", "bob"], ["ann", "bob"]) == "bob"  # a full-width 2 is a number


def test_every_variant_of_an_event_is_in_every_catalog_under_the_events_own_key() -> None:
    # The rule a newcomer greps by (render.VARIANTS): an event's message is its key, or the key and
    # a variant. Each branch of each variant is drawn by one of these data; all must be catalogued.
    samples: list[dict[str, object]] = [
        {},
        {"dead": ["bob"]},
        {"overridden": True},
        {"blocked": True},
        {"aura": "wicked"},
        {"role": "seer"},
        {"were": True},
        {"chest": True},
        {"on": True},
        {"random": True},
        {"aura": None},
        {"actor": "zed"},
        {"suspects": ["bob", "eve"], "tally": [["bob", 2], ["eve", 2], ["bea", 2]]},
        {"counts": {"bob": 1, "eve": 1}, "lynched": "bob"},
        # Lupusburg: its events name the Burgomaster; some read otherwise to the player they name.
        {"burgomaster": "zed"},
        {"burgomaster": "ann"},
        {"player": "ann"},
        {"seen": "ann:left"},
        {"of": 2},
    ]
    readers = [render.Reader("ann", "en"), render.Reader("ann", "en", acts=True)]  # the ballot's voter
    catalogs = {lang: _catalog(lang) for lang in LANGUAGES}
    for key in render.VARIANTS:
        found = {render.message_key(key, d, reader) for d in samples for reader in readers}
        assert len(found) >= 2 and all(m.startswith(key + ".") or m == key for m in found), (key, found)
        for lang, catalog in catalogs.items():
            assert found <= set(catalog), (lang, key, sorted(found - set(catalog)))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_tie_the_order_around_the_table_broke_is_said_as_one(lang: str) -> None:
    # "Bob 2, Eve 2, Bea 2" then two suspects: the text says why Bea is not one, and a tied ballot
    # why Bob and not Eve; where the votes decided (or the Owl-man), it says nothing of a tie.
    info = render.Info("ABCD", "Europe/Rome", None)
    reader = render.Reader("ann", lang)
    order = {"by": "welcome", "player": "fay", "first": "gus"}
    tied = {"suspects": ["bob", "eve"], "tally": [["bob", 2], ["eve", 2], ["bea", 2], ["dan", 1]], "order": order}
    text = render.event_text("day.suspects", tied, reader, info)
    assert text == t(
        lang, "day.suspects.tie", suspects="bob, eve", tied="bea", order=t(lang, "tie.order.welcome", player="fay")
    ), text
    for plain in (
        {"suspects": ["bob", "eve"], "tally": [["bob", 3], ["eve", 2], ["bea", 1]]},
        {"suspects": ["bob", "owl"], "tally": [["bob", 2], ["eve", 2]]},  # the Owl-man's choice
        {"suspects": ["bob", "eve"], "tally": [["bob", 1]]},
    ):  # the second filled in
        assert render.event_text("day.suspects", plain, reader, info) == t(
            lang,
            "day.suspects",
            suspects=", ".join(plain["suspects"]),  # type: ignore[arg-type]
        ), plain
    ballots = {
        "ballots": {"ann": "bob", "dan": "eve"},
        "counts": {"bob": 1, "eve": 1},
        "lynched": "bob",
        "order": order,
    }
    assert render.message_key("day.ballots", ballots, reader) == "day.ballots.tie"
    sms = render.Reader("ann", lang, sms=True)
    assert render.event_text("day.ballots", ballots, sms, info).startswith(
        t(lang, "sms.day.ballots.tie", lynched="bob", ballots="", first="gus").split("bob")[0]
    )
    ballots["counts"] = {"bob": 2, "eve": 1}
    assert render.message_key("day.ballots", ballots, reader) == "day.ballots"


@pytest.mark.parametrize(
    ("lang", "welcome", "burgomaster", "sms"),
    [
        (
            "en",
            'a tie goes to whoever sits closest clockwise after fay, who holds "Welcome!".',
            "A tie goes to whoever sits closest clockwise to the Burgomaster, sofia, counting from that seat:",
            "Tie (clockwise from gus): bob is lynched.",
        ),
        (
            "it",
            'in parità conta chi è più vicino a fay, che ha il "Benvenuto!", in senso orario.',
            "In parità conta chi è più vicino al Borgomastro sofia, partendo dal suo posto in senso orario:",
            "Parità (senso orario da gus): il villaggio lincia bob.",
        ),
        (
            "es",
            'en caso de empate cuenta quien está más cerca de fay, que tiene el "¡Bienvenido!", en sentido horario.',
            "En caso de empate cuenta quien está más cerca del Burgomaestre sofia, contando desde su asiento en "
            "sentido horario:",
            "Empate (sentido horario desde gus): el pueblo lincha a bob.",
        ),
    ],
)
def test_a_tie_names_whom_the_order_around_the_table_is_counted_from(
    lang: str, welcome: str, burgomaster: str, sms: str
) -> None:
    info = render.Info("ABCD", "Europe/Rome", None)
    order = {"by": "welcome", "player": "fay", "first": "gus"}
    tied = {"suspects": ["bob", "eve"], "tally": [["bob", 2], ["eve", 2], ["bea", 2]], "order": order}
    assert render.event_text("day.suspects", tied, render.Reader("ann", lang), info).endswith(welcome)
    ballots = {
        "ballots": {"ann": "bob", "dan": "eve"},
        "counts": {"bob": 1, "eve": 1},
        "lynched": "bob",
        "order": {"by": "burgomaster", "player": "sofia", "first": "sofia"},
    }
    assert burgomaster in render.event_text("day.ballots", ballots, render.Reader("ann", lang), info)
    ballots["order"] = order
    assert render.event_text("day.ballots", ballots, render.Reader("ann", lang, sms=True), info).startswith(sms)


@pytest.mark.parametrize(
    ("reader", "says"),
    [
        (
            render.Reader("gino", "it", sms=True),
            "Ballottaggio: dan o gino, fino a dom 6 dic 05:35 CET. Sei indiziato: non voti.",
        ),
        (render.Reader("gino", "es"), "estás entre los sospechosos, así que no votas"),
        (render.Reader("gino", "en"), "you are a suspect, so you do not vote"),
        (render.Reader("ann", "it", acts=True), "Ballottaggio: voti in segreto per uno degli indiziati."),
    ],
)
def test_a_suspect_is_told_why_he_has_no_vote_in_the_ballot(reader: render.Reader, says: str) -> None:
    # Seen by SMS: a suspect read only "Ballottaggio: Dan o Gino, fino a dom 05:35 CET." and learned
    # that he may not vote when his vote was refused.
    info = render.Info("GE2F", "Europe/Rome", datetime(2026, 12, 6, 4, 35, tzinfo=UTC))
    assert says in render.event_text("phase.ballot", {"suspects": ["dan", "gino"]}, reader, info)
