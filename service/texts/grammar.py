"""The command language: one grammar for every channel and for game records.

A message is ``[#CODE] VERB [ARGS...]``. Verbs are understood in English, Italian and
Spanish; case and accents never matter; Telegram's ``/vote`` works too. What is understood
is handed on in English (engine moves in ``engine.notation`` format), so records store
English whatever language the player wrote in. Anything that does not start with a verb
is talk, for the town square (or the pack's channel at night), except what only looks like a
command (``near_miss``, ``Parsed.slash``): that is answered, never relayed.
"""

from __future__ import annotations

import difflib
import re
import tomllib
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from engine import Verb

WORDS = tomllib.loads((Path(__file__).parent / "locale" / "words.toml").read_text(encoding="utf-8"))
"""Every word a player may type, by command, move and language (``locale/words.toml``)."""
SERVICE_WORDS: dict[str, tuple[str, ...]] = {verb: tuple(ws) for verb, ws in WORDS["commands"].items()}
MOVE_WORDS: dict[Verb, tuple[str, ...]] = {Verb(verb): tuple(ws) for verb, ws in WORDS["moves"].items()}
LANG_WORDS: dict[str, tuple[str, ...]] = {lang: tuple(ws) for lang, ws in WORDS["languages"].items()}
YES_WORDS, NO_WORDS = tuple(WORDS["answers"]["yes"]), tuple(WORDS["answers"]["no"])


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
    slash: bool = False
    """Talk that starts with ``/word``: a command the grammar does not know, which is never talk
    (Telegram users type ``/`` for commands only)."""

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
        slash = len(words[0]) > 1 and words[0][0] == "/" and words[0][1].isalnum()
        return Parsed(None, tuple(words), body, code, slash)
    rest = " ".join(words[1:])
    return Parsed(verb, tuple(words[1:]), rest, code)


# -- what only looks like a command ----------------------------------------------------------------
@dataclass(frozen=True)
class NearMiss:
    """What a message that looks like a command probably meant: the engine verb (canonical English),
    the word of it the message came closest to, and the target as typed (a name is completed)."""

    verb: str
    word: str
    target: str | None


MOVE_INDEX: dict[str, str] = {fold(w): v.value for v, ws in MOVE_WORDS.items() for w in ws}
SHORTEST_NEAR = 3
"""Words shorter than this are never near a verb: "si", "ok", "no" are what people say."""


def edits(a: str, b: str) -> int:
    """How many letters differ between two words (difflib's alignment: a letter changed, missing or
    added counts one, and two neighbouring letters swapped count one, as one slip of the finger)."""
    if len(a) == len(b) and sorted(a) == sorted(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 2 and diff[1] == diff[0] + 1:
            return 1
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    return sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in ops if tag != "equal")


def near(word: str, verb_word: str) -> bool:
    """``word`` is a slip for ``verb_word`` (both folded): it is at least ``SHORTEST_NEAR`` letters
    long, starts with the same letter (a typo rarely hits the first one, and most words that happen
    to sit near a verb do not share it) and is at most one letter off (two, for a verb word of six
    letters or more): ``vot`` for ``vote``, ``vedo`` for ``vedi``, ``kil`` for ``kill``, ``sbrna`` for
    ``sbrana``, ``mato`` for ``mata``."""
    if len(word) < SHORTEST_NEAR or word[0] != verb_word[0] or word == verb_word:
        return False
    allowed = 2 if len(verb_word) >= 6 else 1
    return abs(len(word) - len(verb_word)) <= allowed and edits(word, verb_word) <= allowed


def closest_verbs(word: str, index: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """The (verb, verb word) pairs ``word`` is near, closest first (difflib's ratio ranks them), one
    per verb."""
    index = MOVE_INDEX if index is None else index
    key = fold(word)
    ranked = difflib.get_close_matches(key, list(index), n=len(index), cutoff=0.0)
    out: list[tuple[str, str]] = []
    for w in ranked:
        if near(key, w) and all(v != index[w] for v, _ in out):
            out.append((index[w], w))
    return out


def _target(word: str, names: Sequence[str]) -> str | None:
    """A player's name (folded equal, or a unique prefix of three letters or more; ``name:side``
    for a house) or a number a seat can have; None for any other word."""
    w = word.rstrip(".!")
    if w.isdecimal():
        return w if 1 <= int(w) <= len(names) else None
    head, colon, side = w.partition(":")
    key = fold(head)
    if not key:
        return None
    exact = [n for n in names if fold(n) == key]
    hits = exact or ([n for n in names if fold(n).startswith(key)] if len(key) >= 3 else [])
    if len(hits) != 1:
        return None
    return hits[0] + colon + side


def near_miss(text: str, names: Sequence[str], exact: bool = False) -> NearMiss | None:
    """Whether a message that is no command is *shaped like one*: after an optional ``#CODE``,
    exactly two words, a slip of an engine verb in any of the three languages (``near``) followed by
    nothing but a player's name or seat number (``vot Jim``, ``vedo Zed``, ``kil 3``); with
    ``exact``, the verb itself too (talk overheard in a group is never read as a command, but a move
    typed there must not reach the others either). Anything longer is talk, even if it starts with
    a word close to a verb ("Will Dan lie again?", "vedo che Zed mente"), and so is a first word
    that is a player's name or has anything but letters in it ("Vero, Jim")."""
    words = text.split()
    if words and CODE_RE.match(words[0]):
        words = words[1:]
    if len(words) != 2 or not words[0].isalpha():
        return None
    head, target = fold(words[0]), _target(words[1], names)
    if target is None or any(fold(n) == head for n in names):
        return None
    if head in VERBS:  # a command, which the caller reads as one; overheard in a group, a move is kept back
        return NearMiss(MOVE_INDEX[head], head, target) if exact and head in MOVE_INDEX else None
    found = closest_verbs(head)
    return NearMiss(found[0][0], found[0][1], target) if found else None


def slash_near(p: Parsed) -> tuple[str, str] | None:
    """For ``/word`` that is no command: the (verb, verb word) it is a slip for, of every verb."""
    word = fold(p.args[0]).lstrip("/!").split("@", 1)[0] if p.args else ""
    found = closest_verbs(word, VERBS) if word.isalpha() else []
    return found[0] if found else None


#: Command words that tell a newcomer's language (``own_words`` in ``locale/words.toml``).
LANGUAGE_WORDS: dict[str, frozenset[str]] = {lang: frozenset(ws) for lang, ws in WORDS["own_words"].items()}


def language_of(text: str) -> str | None:
    """The language a message's command word is Italian or Spanish in, if only one (see
    ``LANGUAGE_WORDS``): "entra K7Q Ann" is Italian, "unirse K7Q Ana" Spanish, "join" neither."""
    words = text.split()
    if words and CODE_RE.match(words[0]):
        words = words[1:]
    head = fold(words[0]).lstrip("/!").split("@", 1)[0] if words else ""
    found = [lang for lang, ws in LANGUAGE_WORDS.items() if head in ws]
    return found[0] if len(found) == 1 else None


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
DURATION_RE = re.compile(
    r"^(?:(\d+)\s*(d|g|dias?|giorni?|days?))?\s*(?:(\d+)\s*(h|ore|ora|horas?|hours?))?"
    r"\s*(?:(\d+)\s*(m|min|mins|minut[oi]s?|minutes?)?)?$"
)


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
