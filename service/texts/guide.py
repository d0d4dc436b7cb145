"""The role guide: ``guide seer`` says what a character (or a theme) is, from its rulebook, in the
reader's language; ``guide`` alone lists the characters of the reader's rule set (outside a game,
of every box, grouped by box) and the expansion's themes. By SMS each answer stays within two
segments (a character's rulebook text, a theme's line; the list names the themes without their
lines); Telegram adds how a character is played here and each theme's line."""

from __future__ import annotations

from collections.abc import Sequence

from service.texts import cards
from service.texts.grammar import fold
from service.texts.i18n import has, role_name, t

#: Each box's characters, in its rulebook's order.
BOXES: dict[str, tuple[str, ...]] = {
    "tabula": (
        "villager",
        "werewolf",
        "seer",
        "medium",
        "possessed",
        "bodyguard",
        "owl_man",
        "freemason",
        "werehamster",
        "mythomaniac",
    ),
    "expansion": (
        "lara",
        "baron_samedi",
        "miss_purple",
        "darius",
        "werecow",
        "deadalive",
        "dorian_wolf",
        "dr_jekyll",
        "hamlet",
        "fortune_teller",
    ),
    "lupusburg": ("werewolf", "thief", "townsfolk"),
}
#: The expansion's variant for 4 to 7 players deals these cards only.
AURA = ("werewolf", "lara", "werecow", "darius", "fortune_teller", "miss_purple", "hamlet", "dr_jekyll")
#: What each rule set's players are shown: (box, its characters in that rule set); None: outside a game.
LISTED: dict[str | None, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "tabula": (("tabula", BOXES["tabula"]), ("expansion", BOXES["expansion"])),
    "aura": (("expansion", AURA),),
    "lupusburg": (("lupusburg", BOXES["lupusburg"]),),
    None: tuple(BOXES.items()),
}


def box_name(lang: str, box: str) -> str:
    return t(lang, f"svc.guide.box.{box}")


def box_of(role: str, rules: str | None) -> str:
    """The box whose card the reader means: his game's, where it prints one; else the first."""
    for box, roles in LISTED.get(rules, LISTED[None]):
        if role in roles:
            return box
    return next(box for box, roles in BOXES.items() if role in roles)


def answer(lang: str, words: Sequence[str], rules: str | None, sms: bool) -> str:
    """The guide's answer to ``guide WORDS`` for a reader whose game plays ``rules`` (None: none).
    A first word naming a rule set ("lupusburg") reads the rest as that box's."""
    if words and fold(words[0]) in LISTED:
        rules, words = fold(words[0]), words[1:]
    if not words:
        return listing(lang, rules, sms)
    key = cards.name_of(words)
    if key is None:
        return t(lang, "svc.guide.unknown", word=" ".join(words))
    if key in cards.themes():
        return t(lang, "svc.guide.theme", name=cards.theme_name(lang, key), text=cards.theme_line(lang, key))
    box = box_of(key, rules)
    text = t(
        lang, "svc.guide.card", name=role_name(lang, key), box=box_name(lang, box), text=cards.card_text(lang, key, box)
    )
    how = f"rolehelp.{key}"
    if not sms and box != "lupusburg" and has("en", how):  # how it is played here, by message
        text += "\n" + t(lang, how)
    return text


def listing(lang: str, rules: str | None, sms: bool) -> str:
    lines = [
        t(lang, "svc.guide.box", box=box_name(lang, box), names=", ".join(role_name(lang, r) for r in roles))
        for box, roles in LISTED.get(rules, LISTED[None])
    ]
    if rules in ("tabula", None):  # the themes are for the expansion's characters with the base game's
        if sms:
            lines.append(t(lang, "svc.guide.theme_names", names=cards.theme_names(lang)))
        else:
            lines += [t(lang, "svc.guide.themes"), cards.themes_list(lang)]
    lines.append(t(lang, "svc.guide.more"))
    return "\n".join(lines)
