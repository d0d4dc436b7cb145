"""The end's history: what happened, night by night and day by day, read from the engine's notebook
(``engine.viewing.Note``, in the public view once the game is over): each death and who caused it,
the lives saved and by whom, the revived named, the looks as their makers were told them. The
notebook holds what the closes resolved, so a choice changed during a night is told once, as it
counted. Pure functions, as ``render``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from service.texts import houses
from service.texts.i18n import has, role_name, t
from service.texts.render import look_variant, sms_key

#: The order a close's notes are told in: the deaths and the kills that failed, as they happened (a
#: Portrait saving Dorian Wolf, then its holder dying), the revived, then the rest as they happened (the
#: looks, the tiles given, the Owl-man, the Mythomaniac).
FIRST = {"killed": 0, "saved": 0, "revived": 1}
LATER = 2


def note_key(note: Mapping[str, Any]) -> str | None:
    """The catalog key of one note (``history.killed.potion``, ``history.look.seer``), or None for
    one no sentence tells."""
    what = str(note.get("what"))
    if what == "killed":
        key = f"history.killed.{note.get('cause')}"
    elif what == "saved":
        key = f"history.saved.{note.get('why')}"
    elif what == "look":
        key = f"history.look.{note.get('as_card')}"
    elif what == "mimic":
        key = "history.mimic" if note.get("became") else "history.mimic.none"
    else:
        key = f"history.{what}"
    return key if has("en", key) else None


def sight(note: Mapping[str, Any], lang: str) -> str:
    """What a look showed, as its maker was told it: "a Werewolf", "the Innocent Aura", the card."""
    thief = note.get("as_card") == "thief"  # Lupusburg's: the card, and whether the chest was there
    variant = ("chest" if note.get("chest") else "nochest") if thief else look_variant(note)
    aura = note.get("aura")
    return t(
        lang,
        f"history.sight.{variant}",
        aura=t(lang, f"aura.{aura}") if aura else "",
        role=role_name(lang, str(note.get("role") or note.get("card") or "")),
    )


def note_text(note: Mapping[str, Any], lang: str, sep: str = ", ", sms: bool = False) -> str | None:
    key = note_key(note)
    if key is None:
        return None
    became, by = note.get("became"), sep.join(note.get("by", ()))
    attack = f"history.attack.{note.get('cause')}"
    return t(
        lang,
        key,
        by=by,
        savers=sep.join(note.get("savers", ())),
        player=houses.label(str(note.get("player", "")), lang, sms),
        target=houses.label(str(note.get("target", "")), lang, sms),
        role=role_name(lang, str(became)) if became else "",
        attack=t(lang, attack, by=by) if has("en", attack) else "",
        sight=sight(note, lang) if note.get("what") == "look" else "",
    )


def _told(notes: Iterable[Mapping[str, Any]], lang: str, sep: str, sms: bool) -> str:
    ordered = sorted(notes, key=lambda n: FIRST.get(str(n.get("what")), LATER))  # stable
    return "; ".join(text for n in ordered if (text := note_text(n, lang, sep, sms)) is not None)


def history_text(notes: Sequence[Mapping[str, Any]], nights: int, lang: str, sms: bool = False) -> str:
    """Every night (``nights``: how many were played) and every day that lynched, in turn: ``What
    happened: Night 1: the Werewolves (ann, bob) killed hal; ... Day 1: dan was lynched.``. A night
    with nothing noted says that nobody died."""
    sep = "," if sms else ", "
    parts = []
    for n in range(1, nights + 1):
        for when in ("night", "day"):
            mine = [x for x in notes if x.get(when) == n]
            told = _told(mine, lang, sep, sms)
            if when == "night" and not any(x.get("what") == "killed" for x in mine):
                told = "; ".join(x for x in (t(lang, "history.nobody_died"), told) if x)
            if told:
                parts.append(t(lang, f"history.{when}", n=n, events=told))
    return t(lang, sms_key("svc.reveal", sms), nights=("\n" if not sms else " ").join(parts))
