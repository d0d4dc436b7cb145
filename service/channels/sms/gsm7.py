"""SMS text arithmetic on the one GSM 03.38 table: GSM-7 or UCS-2, how many segments a text costs,
the GSM-7 normalisers (``fold`` for every text written to an SMS reader, ``to_gsm7`` in the sender),
and ``pack``, which merges one command's texts into as few SMS as fit.

An SMS is billed and rate-limited per segment. A text made only of GSM 03.38 characters is packed in
7-bit septets (160 in one segment, 153 per part once split, because the concatenation header takes
the rest); a single character outside that alphabet turns the whole text into UCS-2 (70, or 67 per
part). So one curly apostrophe typed by a translator can triple the cost of a message: `to_gsm7`
replaces typographic punctuation with its plain equivalent before a text is sent.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

# GSM 03.38 default alphabet, in table order (0x1B, the escape to the extension table, left out).
# Of the Italian vowels with accents only à è é ì ò ù and É are here; the other capitals are not.
_BASIC = (
    "@£$¥èéùìòÇ\nØø\rÅå"
    "Δ_ΦΓΛΩΠΨΣΘΞ"
    "ÆæßÉ"
    " !\"#¤%&'()*+,-./"
    "0123456789:;<=>?"
    "¡ABCDEFGHIJKLMNO"
    "PQRSTUVWXYZÄÖÑÜ§"
    "¿abcdefghijklmno"
    "pqrstuvwxyzäöñüà"
)
# Characters of the extension table: each is sent as ESC + code, so it costs two septets.
_EXTENDED = "\f^{}\\[~]|€"
GSM7_BASIC = frozenset(_BASIC)
GSM7_EXTENDED = frozenset(_EXTENDED)

# Replacements that change nothing a reader cares about but keep a text in GSM-7.
_PUNCTUATION = {
    "‘": "'",
    "’": "'",
    "‚": "'",
    "‛": "'",
    "′": "'",
    "`": "'",
    "´": "'",
    "“": '"',
    "”": '"',
    "„": '"',
    "‟": '"',
    "″": '"',
    "«": '"',
    "»": '"',
    "‹": "'",
    "›": "'",
    "‐": "-",
    "‑": "-",
    "‒": "-",
    "–": "-",
    "—": "-",
    "―": "-",
    "−": "-",
    "…": "...",
    "•": "-",
    "·": ".",
    "×": "x",
    "÷": "/",
    "\u00a0": " ",
    "\u2002": " ",
    "\u2003": " ",
    "\u2007": " ",
    "\u2009": " ",
    "\u200a": " ",
    "\u202f": " ",
    "\u2028": "\n",
    "\u2029": "\n",
    "\t": " ",
    "\u200b": "",
    "\ufeff": "",
    "\u00ad": "",
}
# Italian writes a capital vowel with a grave accent as the vowel plus an apostrophe when the accent
# is unavailable ("E' l'alba"); a bare "E" would read as "and".
_LETTERS = {"À": "A'", "È": "E'", "Ì": "I'", "Ò": "O'", "Ù": "U'"}

Encoding = Literal["GSM-7", "UCS-2"]


@dataclass(frozen=True)
class SmsSize:
    """What a text costs: its encoding, its length in that encoding's units, and its segments."""

    encoding: Encoding
    units: int
    segments: int


def is_gsm7(text: str) -> bool:
    """True when every character of `text` is in the GSM 03.38 alphabet (basic or extension)."""
    return all(c in GSM7_BASIC or c in GSM7_EXTENDED for c in text)


def _pack(sizes: list[int], single: int, part: int) -> int:
    """Segments needed for characters of the given unit sizes; a character is never split across
    two parts (an escape pair in GSM-7, a surrogate pair in UCS-2), as real encoders do."""
    if sum(sizes) <= single:
        return 1
    parts, used = 1, 0
    for size in sizes:
        if used + size > part:
            parts, used = parts + 1, 0
        used += size
    return parts


def sms_size(text: str) -> SmsSize:
    """The encoding, units and segments of `text` as the carrier will count them."""
    if is_gsm7(text):
        sizes = [2 if c in GSM7_EXTENDED else 1 for c in text]
        return SmsSize("GSM-7", sum(sizes), _pack(sizes, 160, 153))
    sizes = [2 if ord(c) > 0xFFFF else 1 for c in text]
    return SmsSize("UCS-2", sum(sizes), _pack(sizes, 70, 67))


def segments(text: str) -> int:
    """How many SMS segments `text` is billed and rate-limited as (at least one)."""
    return sms_size(text).segments


def _fold(c: str) -> str:
    if c in GSM7_BASIC or c in GSM7_EXTENDED:
        return c
    if c in _PUNCTUATION:
        return _PUNCTUATION[c]
    if c in _LETTERS:
        return _LETTERS[c]
    # á í ó ú â ç ...: the base letter, if what is left after dropping the marks is GSM-7.
    base = "".join(d for d in unicodedata.normalize("NFD", c) if not unicodedata.combining(d))
    if base and base != c and is_gsm7(base):
        return base
    return c


def to_gsm7(text: str) -> str:
    """Replace typographic punctuation, odd spaces and accented letters that GSM-7 lacks with their
    GSM-7 equivalents. Letters GSM-7 has (à è é ì ò ù ñ ü ¿ ¡) are kept; characters with no
    equivalent (an emoji, a Chinese name) are kept too, so such a text honestly stays UCS-2."""
    return "".join(_fold(c) for c in unicodedata.normalize("NFC", text))


# What ``fold`` replaces before it drops accents: marks a translator or a player types.
_PLAIN = {
    "‘": "'",
    "’": "'",
    "“": '"',
    "”": '"',
    "–": "-",
    "—": "-",
    "…": "...",
    "«": '"',
    "»": '"',
    "\u00a0": " ",
    "→": "->",
    "×": "x",
    "È": "E'",
}


#: Emoji an SMS reader would get as ``?`` (one for each code point of a ❤️ or a 👍🏽): the commonest
#: faces and signs as the emoticons a texter types; any other run of emoji as one ``EMOJI`` mark.
EMOTICONS = {
    "🙂": ":)",
    "😊": ":)",
    "☺": ":)",
    "😀": ":D",
    "😃": ":D",
    "😄": ":D",
    "😁": ":D",
    "😆": "xD",
    "😂": ":'D",
    "🤣": ":'D",
    "😉": ";)",
    "😜": ";P",
    "😛": ":P",
    "🙁": ":(",
    "☹": ":(",
    "😞": ":(",
    "😟": ":(",
    "😢": ":'(",
    "😭": ":'(",
    "😮": ":O",
    "😲": ":O",
    "😱": ":O",
    "😐": ":|",
    "😠": ">:(",
    "😡": ">:(",
    "❤": "<3",
    "😍": "<3",
    "😘": ":*",
    "👍": "(+1)",
    "👎": "(-1)",
}
EMOJI = "[emoji]"
# What rides on an emoji without being one: the variation selectors, the zero-width joiner of a
# sequence (👨‍👩‍👧), the skin tones, the tags of a flag.
_RIDERS = (
    frozenset({0xFE0E, 0xFE0F, 0x200D, 0x20E3})
    | frozenset(range(0x1F3FB, 0x1F400))
    | frozenset(range(0xE0020, 0xE0080))
)
_EMOJI_RANGES = ((0x1F000, 0x1FAFF), (0x2600, 0x27BF), (0x2B00, 0x2BFF), (0x2300, 0x23FF))


def _emoji(c: str) -> bool:
    return any(lo <= ord(c) <= hi for lo, hi in _EMOJI_RANGES)


def _plain(c: str) -> str | None:
    """``c`` in GSM-7: itself, its plain mark, or its letter without accents; None if it has none."""
    if is_gsm7(c):
        return c
    c = _PLAIN.get(c, c)
    if is_gsm7(c):
        return c
    base = "".join(x for x in unicodedata.normalize("NFKD", c) if not unicodedata.combining(x))
    return base if base and all(x in GSM7_BASIC for x in base) else None


def _emoticons(run: list[str]) -> str:
    """A run of emoji as what an SMS reader can read: each as its emoticon or the mark, the same
    twice in a row once (``🐺🐺😂`` reads ``[emoji] :'D``)."""
    faces = [EMOTICONS.get(c, EMOJI) for c in run]
    return " ".join(f for i, f in enumerate(faces) if i == 0 or f != faces[i - 1])


def fold(text: str) -> str:
    """Keep an SMS in GSM-7 (160 characters a segment instead of 70): letters outside the
    alphabet lose their accents (Spanish á í ó ú), typographic marks become plain ones, emoji
    become emoticons or the mark ``[emoji]`` (``EMOTICONS``), and anything else with no GSM-7
    equivalent becomes ``?``. What every text written to an SMS reader goes through."""
    out: list[str] = []
    run: list[str] = []
    for c in text:
        if ord(c) in _RIDERS:
            continue
        if _emoji(c):
            run.append(c)
            continue
        if run:
            out.append(_emoticons(run))
            run = []
        plain = _plain(c)
        out.append("?" if plain is None else plain)
    if run:
        out.append(_emoticons(run))
    return "".join(out)


def plain_name(name: str) -> str | None:
    """A player's name as an SMS reader sees and types it (``Zoë`` as ``Zoe``; GSM-7's own accented
    letters kept), or None when a sign of it has no GSM-7 form (an emoji, a Cyrillic letter)."""
    plain = [_plain(c) for c in unicodedata.normalize("NFC", name)]
    return None if any(p is None for p in plain) else "".join(p or "" for p in plain)


def pack(texts: Sequence[str], sep: str = "\n", max_len: int = 1600) -> list[list[int]]:
    """Group consecutive texts, in order, into as few SMS as they fit (at most ``max_len``
    characters each, Twilio's limit), never costing more segments than sending them apart: a text
    joins the open group only if the joined text needs no more segments than the two would alone
    (two texts of 155 characters go as two single segments, not as one of three)."""
    groups: list[list[int]] = []
    joined = ""
    for i, text in enumerate(texts):
        candidate = f"{joined}{sep}{text}"
        if groups and len(candidate) <= max_len and segments(candidate) <= segments(joined) + segments(text):
            groups[-1].append(i)
            joined = candidate
        else:
            groups.append([i])
            joined = text
    return groups
