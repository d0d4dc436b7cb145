"""A player away and back, and notices once: after STOP at night and START by day he is told, in
one text, who died while he was away and the nominations so far, and his next summary has the
nominations made while he was away; the word that his moves go unanswered comes once a game; a
bet is confirmed once to its maker."""

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


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_word_that_moves_go_unanswered_comes_once_a_game(db: Engine, lang: str) -> None:
    # Seen twice ("From now on only secret votes and refused moves get a reply...") in one night's text.
    h = Mixed(db)
    open_game(h, lang)
    start(h, lang)
    roles = _roles(h)
    wolf = next(p for p in NAMES if roles[p] == "werewolf" and p != TG)
    humans = [p for p in NAMES if roles[p] != "werewolf" and p != TG]
    h.clear()
    h.say(wolf, f"{WORDS[lang]['kill']} {humans[0]}")
    h.say(wolf, f"{WORDS[lang]['kill']} {humans[1]}")  # he changes his mind
    h.finish_phase()
    h.say(wolf, f"{WORDS[lang]['vote']} {humans[2]}")  # and nominates on the first day
    h.finish_phase()
    said = gsm7(t(lang, "sms.own.first"))
    told = [m for m in h.inbox(wolf) if said in m]
    assert len(told) == 1 and told[0].count(said) == 1, h.inbox(wolf)
    assert segments(told[0]) <= 2, told[0]


def test_a_bet_is_confirmed_once_to_its_maker_on_sms_whatever_her_name(db: Engine) -> None:
    # Seen: "Tu apuesta ... esta sellada." then "Sofia hizo una apuesta sellada." to Sofía, by SMS.
    h = Mixed(db)
    names = {"ann": "ann", "bob": "Sofía", "cat": "cat", "dan": "dan"}
    h.say("host", "nueva lupusburg barajar no idioma es")
    code = h.game().code
    for address, name in names.items():
        h.say(address, f"unirse {code} {name}")
    start(h, "es")
    h.finish_phase()  # night 1
    state = h.state()
    target = next(p for p in state.players if p != "Sofía")
    h.clear()
    h.say("bob", f"apostar {target}")
    coins = list(h.state().draws["Sofía"][1])  # type: ignore[attr-defined]
    h.say("bob", f"moneda {coins[0]}")
    h.finish_phase()
    texts = "\n".join(h.inbox("bob"))
    sealed = gsm7(t("es", "sms.bet.placed", target=target, coin=coins[0]))
    assert texts.count(sealed) == 1, texts
    assert gsm7(t("es", "sms.bet.sealed", player="Sofía")) not in texts, texts
    assert gsm7(t("es", "sms.bet.sealed", player="Sofía")) in "\n".join(h.inbox("cat"))
