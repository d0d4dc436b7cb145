"""A check that a text tells a player nothing he may not know.

What he may know (whose card, whose night choices) is ``secrecy.known``'s, from the rulebooks,
not the engine's. A text leaks when one of its sentences names another player together with
that player's card (in the reader's language), or reports another player's night choice to
someone outside that player's channel.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache, lru_cache

from service.texts.i18n import role_name, t

#: What stands between a chooser and his choice in ``night.choice.other`` ("chose to", "ha scelto di").
CHOICE_WORDS = {
    lang: t(lang, "night.choice.other", actor="\0", choice="\1").split("\0")[1].split("\1")[0].strip()
    for lang in ("en", "it", "es")
}


def sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+|\n", text) if s.strip()]


@cache
def _role_re(lang: str, role: str) -> re.Pattern[str]:
    return re.compile(rf"\b{re.escape(role_name(lang, role).casefold())}\b")


@lru_cache(maxsize=64)
def _names_re(names: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"\b(" + "|".join(re.escape(n.casefold()) for n in names) + r")\b")


@lru_cache(maxsize=100_000)
def mentions(text: str, lang: str, roles: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """(player, what) pairs a text gives away: "card" when a sentence names him with his
    card, "choice" when it reports his night choice. Cached: most texts go to everyone."""
    out = []
    by_fold = {p.casefold(): (p, r) for p, r in roles}
    names = _names_re(tuple(sorted(by_fold)))
    for sentence in sentences(text):
        low = sentence.casefold()
        for m in set(names.findall(low)):
            other, role = by_fold[m]
            if _role_re(lang, role).search(low):
                out.append((other, f"card in: {sentence}"))
            if sentence.startswith(f"{other} {CHOICE_WORDS[lang]}"):
                out.append((other, f"choice in: {sentence}"))
    return tuple(out)


def leaks(text: str, reader: str, lang: str, roles: Mapping[str, str], cards: set[str], mates: set[str]) -> list[str]:
    return [
        f"{other}'s {what}"
        for other, what in mentions(text, lang, tuple(sorted(roles.items())))
        if other != reader and other not in (cards if what.startswith("card") else mates)
    ]
