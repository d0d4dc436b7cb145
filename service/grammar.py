"""The command language: one grammar for every channel and for game records.

A message is ``[#CODE] VERB [ARGS...]``. Verbs are understood in English, Italian and
Spanish; case and accents never matter; Telegram's ``/vote`` works too. What is understood
is handed on in English (engine moves in ``engine.notation`` format), so records store
English whatever language the player wrote in. Anything that does not start with a verb
is talk, for the town square (or the pack's channel at night).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from engine import Verb

#: Service verbs (canonical English) and their words in the three languages.
SERVICE_WORDS: dict[str, tuple[str, ...]] = {
    "help": ("help", "?", "aiuto", "ayuda", "comandi", "comandos", "commands"),
    "status": ("status", "stato", "estado", "info"),
    "role": ("role", "card", "ruolo", "carta", "rol", "personaje", "personaggio"),
    "lang": ("lang", "language", "lingua", "idioma"),
    "join": ("join", "entra", "partecipa", "unirse", "unirme", "entrar"),
    "leave": ("leave", "esci", "lascia", "salir", "dejar", "abandonar"),
    "start": ("start", "begin", "inizia", "comincia", "empezar", "comenzar", "iniciar"),
    "new": ("new", "create", "nuova", "nuovo", "crea", "nueva", "nuevo", "crear"),
    "set": ("set", "options", "imposta", "opzioni", "ajustar", "opciones"),
    "say": ("say", "dici", "decir", "dile"),
    "players": ("players", "list", "giocatori", "lista", "jugadores"),
    "games": ("games", "partite", "partidas"),
    "record": ("record", "export", "registro", "esporta", "exportar"),
    "digest": ("digest", "riassunto", "resumen"),
    "tz": ("tz", "timezone", "fuso", "zona", "huso"),
    "extend": ("extend", "estendi", "proroga", "prolunga", "extender", "prorrogar", "alargar"),
    "shorten": ("shorten", "accorcia", "abbrevia", "acortar", "reducir"),
    "pause": ("pause", "pausa", "sospendi"),
    "resume": ("resume", "riprendi", "continua", "reanudar", "continuar"),
    "replace": ("replace", "substitute", "sostituisci", "rimpiazza", "reemplazar", "sustituir"),
    "remove": ("remove", "kick", "rimuovi", "espelli", "quitar", "expulsar"),
    "end": ("end", "finish", "termina", "finisci", "terminar", "finalizar"),
    "volunteer": ("volunteer", "standby", "volontario", "riserva", "voluntario", "suplente"),
    "cohost": ("cohost", "co-host", "vice", "coorganizador", "coorganizzatore"),
    "again": ("again", "rematch", "ancora", "rivincita", "otra", "revancha"),
}

#: Engine verbs and their words.
MOVE_WORDS: dict[Verb, tuple[str, ...]] = {
    Verb.KILL: ("kill", "sbrana", "uccidi", "matar", "mata", "devora"),
    Verb.SEE: ("see", "look", "vedi", "guarda", "scruta", "ver", "mirar", "mira"),
    Verb.PROTECT: ("protect", "guard", "proteggi", "proteger", "protege"),
    Verb.OWL: ("owl", "hoot", "gufa", "gufo", "buho", "ulula"),
    Verb.MIMIC: ("mimic", "imita", "imitar"),
    Verb.VOTE: ("vote", "vota", "votar", "voto"),
    Verb.REVIVE: ("revive", "resuscita", "rianima", "revivir", "resucitar", "resucita"),
    Verb.PORTRAIT: ("portrait", "ritratto", "retrato"),
    Verb.SKULL: ("skull", "teschio", "calavera"),
    Verb.POTION: ("potion", "pozione", "pocion"),
    Verb.PEEK: ("peek", "sbircia", "espia", "espiar"),
    Verb.REVEAL: ("reveal", "rivela", "revela", "revelar"),
    Verb.PRIVILEGE: ("privilege", "privilegio"),
    Verb.SHOW: ("show", "mostra", "mostrar", "muestra", "ensena"),
    Verb.BET: ("bet", "scommetti", "punta", "apuesta", "apostar", "apuesto"),
    Verb.COIN: ("coin", "moneta", "moneda"),
}

LANG_WORDS = {
    "en": ("en", "english", "inglese", "ingles"),
    "it": ("it", "italiano", "italian"),
    "es": ("es", "espanol", "spanish", "spagnolo", "castellano"),
}
YES_WORDS = ("yes", "y", "on", "si", "ok")
NO_WORDS = ("no", "n", "off")


def fold(text: str) -> str:
    """Case and accents ignored: ``Sbrána`` and ``sbrana`` are one word."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def _index() -> dict[str, str]:
    out: dict[str, str] = {}
    pairs: list[tuple[str, str]] = [(w, v) for v, ws in SERVICE_WORDS.items() for w in ws]
    pairs += [(w, v.value) for v, ws in MOVE_WORDS.items() for w in ws]
    for word, verb in pairs:
        key = fold(word)
        if out.get(key, verb) != verb:
            raise AssertionError(f"the word {word!r} means both {out[key]} and {verb}")
        out[key] = verb
    return out


VERBS: dict[str, str] = _index()
ENGINE_VERBS = frozenset(v.value for v in Verb)
CODE_RE = re.compile(r"^#([A-Za-z0-9]{3,8})$")


@dataclass(frozen=True)
class Parsed:
    """One message, understood: ``verb`` is canonical English, or None for talk."""

    verb: str | None
    args: tuple[str, ...]
    rest: str
    """The text after the verb (or the whole text, for talk), as typed."""
    code: str | None = None

    @property
    def is_move(self) -> bool:
        return self.verb in ENGINE_VERBS


def code_of(text: str) -> str | None:
    """The game a message names with ``#CODE`` before its command, without parsing the rest."""
    head = text.lstrip()[:10].split(None, 1)
    return head[0][1:].upper() if head and CODE_RE.match(head[0]) else None


def parse(text: str) -> Parsed:
    words = text.strip().split()
    code = None
    if words and CODE_RE.match(words[0]):
        code = words[0][1:].upper()
        words = words[1:]
    if not words:
        return Parsed("help" if code is None else "status", (), "", code)
    head = fold(words[0]).lstrip("/!").split("@", 1)[0]  # Telegram: /vote@LupusBot
    verb = VERBS.get(head)
    if verb is None:
        body = text.strip()
        if code is not None:
            body = body.split(None, 1)[1] if len(body.split(None, 1)) > 1 else ""
        return Parsed(None, tuple(words), body, code)
    rest = " ".join(words[1:])
    return Parsed(verb, tuple(words[1:]), rest, code)


# -- targets -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Ambiguous(Exception):
    word: str
    options: tuple[str, ...]


@dataclass(frozen=True)
class NoMatch(Exception):
    word: str


@dataclass(frozen=True)
class NoSeat(NoMatch):
    """A number that is no seat at this table (``vote 12`` at a table of eight)."""

    seats: int


def resolve(word: str, candidates: Sequence[str], everyone: Sequence[str] = ()) -> str:
    """A name by exact name, unique prefix, or seat number.

    ``candidates`` are the names that make sense now (the legal targets); ``everyone`` the whole
    table in seating order, tried after them so that the engine can say *why* a name is refused.
    A number is a seat (``vote 3``: the third seat), whatever list the player was sent last, and
    a seat that is no legal target is returned all the same, for the engine's own reason ("cat is
    dead"). Where the choices are no players (a coin's value, a side, on or off) a number is
    left to the rules to read (``coin 3``, ``show 1``). A house is its owner's name or seat and a
    side (``ann:left``, ``3:left``, ``3:1``).
    """
    typed = word.strip()
    w = typed
    seats = list(everyone)
    if w.isdecimal():  # not isdigit: "²" is a digit that int() refuses
        same = next((c for c in candidates if fold(c) == fold(w)), None)
        if same is not None:
            return same
        if candidates and not any(c in seats or c.rpartition(":")[0] in seats for c in candidates):
            return w
        return _seat(w, w, seats)
    head, colon, side = w.partition(":")
    if colon and head.isdecimal() and side:
        w = f"{_seat(head, typed, seats)}:{side}"
    key = fold(w)
    pools = [list(candidates), [e for e in seats if e not in candidates]]
    for pool in pools:
        for name in pool:
            if fold(name) == key:
                return name
    for pool in pools:
        hits = [name for name in pool if fold(name).startswith(key)]
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            raise Ambiguous(typed, tuple(hits))
    owner, colon, side = w.rpartition(":")
    found = next((e for e in seats if fold(e) == fold(owner)), None) if colon and side else None
    if found is not None:  # a house with its side as the rules also read it (ann:1, ann:l)
        return f"{found}:{side}"
    raise NoMatch(typed)


def _seat(number: str, typed: str, seats: Sequence[str]) -> str:
    n = int(number)
    if not 1 <= n <= len(seats):
        raise NoSeat(typed, len(seats))
    return seats[n - 1]


# -- small values ------------------------------------------------------------------------------------
DURATION_RE = re.compile(r"^(?:(\d+)\s*(d|g|dias?|giorni?|days?))?\s*(?:(\d+)\s*(h|ore|ora|horas?|hours?))?"
                         r"\s*(?:(\d+)\s*(m|min|mins|minut[oi]s?|minutes?)?)?$")


def parse_duration(text: str) -> int | None:
    """Minutes, from ``2h``, ``90m``, ``1h30``, ``1d``, ``3 ore``, ``2 horas``, ``45``."""
    t = fold(text).replace(" ", "")
    if not t:
        return None
    m = DURATION_RE.match(t)
    if m is None or not any(m.group(i) for i in (1, 3, 5)):
        return None
    days, hours, minutes = (int(m.group(i) or 0) for i in (1, 3, 5))
    total = days * 1440 + hours * 60 + minutes
    return total if 0 < total <= 14 * 1440 else None


TIME_RE = re.compile(r"^([01]?\d|2[0-3])[:.]([0-5]\d)$")


def parse_time(text: str) -> str | None:
    """A time of day, ``8:00`` or ``20.30``, as ``HH:MM``."""
    m = TIME_RE.match(text.strip())
    return f"{int(m.group(1)):02d}:{m.group(2)}" if m else None


def parse_lang(word: str) -> str | None:
    key = fold(word)
    for lang, words in LANG_WORDS.items():
        if key in words:
            return lang
    return None


def parse_yes_no(word: str) -> bool | None:
    key = fold(word)
    if key in YES_WORDS:
        return True
    if key in NO_WORDS:
        return False
    return None
