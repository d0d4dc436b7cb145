"""Message catalogs (gettext, via Babel): every text a player reads, in English, Italian and
Spanish, keyed by the engine's event keys (``night.dawn``) and the service's (``svc.help.now``).

The ``.po`` files are the source; they are compiled in memory on first use, so a fresh
clone needs no build step.
"""

from __future__ import annotations

import io
import string
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from babel.dates import format_datetime, format_timedelta
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

LANGUAGES = ("en", "it", "es")
#: Where a game in a language is played when its host names no time zone: its language's country
#: (English, spoken everywhere, takes the deployment's ``DEFAULT_TIMEZONE``).
LANGUAGE_ZONES = {"it": "Europe/Rome", "es": "Europe/Madrid"}


def zone_of(lang: str, default: str) -> str:
    """The time zone of a game in ``lang`` whose host names none (``LANGUAGE_ZONES``, else ``default``)."""
    return LANGUAGE_ZONES.get(lang, default)


LOCALE_DIR = Path(__file__).resolve().parent / "locale"


@cache
def translations(lang: str) -> Translations:
    if lang not in LANGUAGES:
        lang = "en"
    with (LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
        catalog = read_po(f, locale=lang)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return Translations(fp=buf, domain="messages")


class _Lenient(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def has(lang: str, key: str) -> bool:
    return translations(lang).gettext(key) != key


def sms_key(key: str, sms: bool) -> str:
    """The catalog key to read ``key`` from: its short ``sms.`` form for an SMS reader, if it has one."""
    return f"sms.{key}" if sms and has("en", f"sms.{key}") else key


PLURAL_BY = "count"
"""The one rule for plural forms: a message written in the catalogs with ``msgid_plural`` takes its
form from the ``count`` it is filled with, by the language's own Plural-Forms (Babel's ``ngettext``):
"(1 player)", "(2 players)"; Italian and Spanish keep their own rules."""


_NOT_PLURAL = "\x00"


def _template(lang: str, key: str, data: dict[str, Any]) -> str:
    count = data.get(PLURAL_BY)
    tr = translations(lang)
    if isinstance(count, int) and not isinstance(count, bool):
        # ngettext answers its second argument when the catalog has no plural entry for ``key``.
        form = tr.ngettext(key, _NOT_PLURAL, count)
        if form != _NOT_PLURAL and form != key:
            return form
    return tr.gettext(key)


def t(lang: str, key: str, /, **data: Any) -> str:
    """The text for ``key`` in ``lang`` (English if the language lacks it), filled with ``data``; a
    plural message chooses its form by ``count`` (``PLURAL_BY``)."""
    template = _template(lang, key, data)
    if template == key and lang != "en":
        template = _template("en", key, data)
    return string.Formatter().vformat(template, (), _Lenient(data)) if data else template


def role_name(lang: str, role: str) -> str:
    key = f"role.{role}"
    return t(lang, key) if has("en", key) else role.replace("_", " ").title()


def deadline_text(when: datetime | None, tz: str, lang: str, now: datetime | None = None) -> str:
    """The deadline in the reader's time zone, which it names: "Tue 6 Jan 18:00 CET"; with ``now``
    (an SMS reader's texts), the weekday and time alone when that cannot be mistaken (under six days
    away): "Tue 18:00 CET"."""
    if when is None:
        return t(lang, "svc.no_deadline")
    short = now is not None and timedelta(0) <= when - now < timedelta(days=6)
    zone = ZoneInfo(tz)
    shown = format_datetime(when, "EEE HH:mm" if short else "EEE d MMM HH:mm", tzinfo=zone, locale=lang)
    return f"{shown} {zone_name(when, zone)}"


def zone_name(when: datetime, zone: ZoneInfo) -> str:
    """The zone's abbreviation at that moment, as the tz database has it ("CET", "CEST", "EST",
    "BST"), or the offset from UTC where it has none ("UTC-3" for Buenos Aires' "-03"). Players of one
    game may live in several zones, and "18:00" alone is read in the reader's own; Babel's short
    names are no help here (English gives Rome "+0100", Italian gives New York "-0500")."""
    name = when.astimezone(zone).tzname() or ""
    if name.isalpha():
        return name
    offset = when.astimezone(zone).utcoffset() or timedelta(0)
    minutes = round(offset.total_seconds() / 60)
    sign, minutes = ("+" if minutes >= 0 else "-"), abs(minutes)
    return "UTC" if minutes == 0 else f"UTC{sign}{minutes // 60}" + (f":{minutes % 60:02d}" if minutes % 60 else "")


def duration_text(seconds: float, lang: str) -> str:
    """A span of time in words, to the minute: "2 hours 30 minutes", "2 ore 30 minuti"."""
    minutes = max(0, round(seconds / 60))
    parts = [(minutes // 1440, 86400), (minutes // 60 % 24, 3600), (minutes % 60, 60)]
    words = [
        format_timedelta(timedelta(seconds=n * unit), threshold=1, granularity="minute", locale=lang)
        for n, unit in parts
        if n
    ]
    return " ".join(words) or format_timedelta(timedelta(0), granularity="minute", locale=lang)
