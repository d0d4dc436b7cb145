"""A player away and back: after STOP at night and START by day he is told, in one text, who died
while he was away and the nominations so far, and his next summary has the nominations made while
he was away."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

from engine import Phase
from service.channels.sms.gsm7 import fold as gsm7
from service.channels.sms.gsm7 import segments
from service.texts import render
from service.texts.i18n import LANGUAGES, t

from .play import NAMES, WORDS, open_game, start
from .test_sms_conversation import TG, Mixed


def _roles(h: Mixed) -> dict[str, str]:
    return {p: r.value for p, r in h.state().roles.items()}  # type: ignore[attr-defined]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_back_with_start_he_is_told_the_deaths_and_the_votes_he_missed(db: Engine, lang: str) -> None:
    # Seen: after STOP at night and START by day the reply was the day's vote list only; he never
    # learned who died, and his next summary left out the nominations made meanwhile.
    h = Mixed(db)
    open_game(h, lang)
    start(h, lang)
    roles = _roles(h)
    villagers = [p for p in NAMES if roles[p] == "villager" and p != TG]
    away, victim = villagers[0], villagers[1]
    wolves = [p for p in NAMES if roles[p] == "werewolf"]
    h.sms(away, "STOP")
    for wolf in wolves:
        h.say(wolf, f"{WORDS[lang]['kill']} {victim}")
    h.finish_phase()
    assert h.state().phase is Phase.NOMINATIONS
    target = wolves[0]
    early = [p for p in NAMES if p not in (victim, away, target)][:3]
    for voter in early:
        h.say(voter, f"{WORDS[lang]['vote']} {target}")
    h.clear()
    h.sms(away, "START")
    (text,) = h.inbox(away)
    dawn = gsm7(t(lang, "sms.night.dawn.some", dead=victim, count=1))
    votes = gsm7(t(lang, "sms.held.votes", votes=render.grouped([(v, target) for v in early], lang)))
    assert text.startswith(gsm7(t(lang, "svc.catchup.missed", news=f"{dawn} {votes}"))), text
    day = gsm7(t(lang, "sms.phase.nominations", day=1, deadline="")).split(":")[0]
    assert text.split("\n")[1].startswith(day), text
    assert segments(text) <= 3, text
    # His next summary counts the nominations made while he was away with the rest.
    late = next(p for p in NAMES if p not in (victim, away, target, *early))
    h.say(late, f"{WORDS[lang]['vote']} {target}")
    h.clear()
    h.finish_phase()
    (summary,) = h.inbox(away)
    cast = summary.split(f"{target}(", 1)[1].split(")")[0].split(",")
    assert set(early) | {late} <= set(cast), summary
    # A second START tells nothing twice.
    h.clear()
    h.sms(away, "STOP")
    h.sms(away, "START")
    (again,) = h.inbox(away)
    assert gsm7(t(lang, "svc.catchup.missed", news="")).strip() not in again, again
