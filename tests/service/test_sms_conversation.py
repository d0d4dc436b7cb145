"""The SMS conversation's promises, kept in every language: a Telegram player's 4,000-character
talk leaves every SMS player his phase summary, short, with the talk whole on request (``more``);
the first day's own nomination is answered in one SMS and is in his summary, as its answer
promised; a secret ballot is confirmed at once and ``status`` shows it to him alone; after STOP
and START he learns his card for a game that started meanwhile, and what he may do now."""

from __future__ import annotations

import itertools
import re

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from engine import Phase
from service.channels.sms import inbound as sms
from service.channels.sms.gsm7 import fold as gsm7
from service.channels.sms.gsm7 import segments
from service.game.more import PAGE
from service.game.reminders import install
from service.store.models import Identity, Outbox
from service.texts import render
from service.texts.digest import SQUARE_ROOM, TALK_ITEM, digest_text
from service.texts.i18n import LANGUAGES, role_name, t

from .conftest import Harness, deliver_all
from .play import NAMES, WORDS, open_game, start

TG = "ann"  # the one Telegram player
TWILIO_LIMIT = 1600
MORE = {"en": "more", "it": "leggi", "es": "leer"}


class Mixed(Harness):
    """Every player texts by SMS (his number is his name) but ``ann``, on Telegram."""

    sids = itertools.count(1)

    def say(self, who: str, text: str, external_id: str | None = None) -> list[str]:
        channel = "telegram" if who == TG else "sms"
        return self.svc.handle_inbound(channel, who, external_id or f"m{next(self._ids)}", text)

    def sms(self, who: str, body: str) -> None:
        """A text as Twilio posts it: STOP and START are keywords (``service.channels.sms``)."""
        sms.handle(self.svc, {"MessageSid": f"SM{next(self.sids)}", "From": who, "Body": body})

    def deliver(self) -> None:
        senders = {"sms": self.channel, "telegram": self.channel}
        deliver_all(self.db, senders, self.clock)


def _roles(h: Harness) -> dict[str, str]:
    return {p: r.value for p, r in h.state().roles.items()}  # type: ignore[attr-defined]


def _alive(h: Harness) -> list[str]:
    state = h.state()
    return [p for p in state.players if p in state.alive]  # type: ignore[attr-defined]


def _to_day(h: Mixed, lang: str) -> None:
    """The pack kills a villager who is not the Telegram player; the first day begins."""
    roles = _roles(h)
    victim = next(p for p in NAMES if roles[p] == "villager" and p != TG)
    for wolf in (p for p in NAMES if roles[p] == "werewolf"):
        h.say(wolf, f"{WORDS[lang]['kill']} {victim}")
    h.finish_phase()
    assert h.state().phase is Phase.NOMINATIONS


def _game(db: Engine, lang: str) -> Mixed:
    h = Mixed(db)
    open_game(h, lang)
    start(h, lang)
    return h


LONG = " ".join(f"word{i} of a long day speech," for i in range(150))[:4000]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_4000_character_talk_leaves_every_sms_player_his_phase_summary(db: Engine, lang: str) -> None:
    h = _game(db, lang)
    _to_day(h, lang)
    assert len(LONG) == 4000
    assert h.say("cat", MORE[lang]) == [gsm7(t(lang, "svc.more.none"))]  # no summary with talk yet
    h.clear()
    h.say(TG, LONG)
    h.say("bob", "I trust cat.")
    h.finish_phase()
    assert h.state().phase is Phase.BALLOT
    suspects = list(h.state().suspects)  # type: ignore[attr-defined]
    for who in (p for p in NAMES if p != TG):
        (text,) = h.inbox(who)  # one text: the results, the summary, the ballot and his choices
        assert len(text) <= TWILIO_LIMIT and segments(text) <= 3, (who, len(text), text)
        named = gsm7(t(lang, "sms.phase.ballot", suspects=render.alternatives(suspects, lang), deadline=""))
        voting = gsm7(t(lang, "sms.phase.ballot.voter", deadline=""))  # his options name them
        assert named.removesuffix(".").split(",")[0] in text or voting.removesuffix(".").strip() in text, text
        talk = gsm7(t(lang, "svc.talk.relay", name=TG, text=LONG))
        assert talk[: TALK_ITEM // 2] in text and talk not in text, text  # cut short, and shown
        assert gsm7(t(lang, "sms.digest.more")) in text, text
        if who != "bob":
            assert gsm7(t(lang, "svc.talk.relay", name="bob", text="I trust cat.")) in text, text
    # The whole talk on request, in pages that each fit a text.
    pages = _pages(h, "cat", lang)
    assert len(pages) == 3 and all(len(p) <= PAGE for p in pages), [len(p) for p in pages]
    said = " ".join(pages).split()
    assert (
        said
        == gsm7(
            " ".join(
                [
                    t(lang, "svc.talk.relay", name=TG, text=LONG),
                    t(lang, "svc.talk.relay", name="bob", text="I trust cat."),
                ]
            )
        ).split()
    )
    # Followed by words, it is talk that begins with it.
    h.clear()
    talk = f"{MORE[lang].capitalize()} votes on eve please"
    speaker = next(p for p in _alive(h) if p not in (TG, "bob", "cat"))
    assert h.say(speaker, talk) == [] and h.inbox(TG) == [t(lang, "svc.talk.relay", name=speaker, text=talk)]
    # ``more`` is about his newest summary.
    h.say("bob", "Let us vote.")
    h.finish_phase()
    h.clear()
    assert h.say("cat", MORE[lang]) == [
        gsm7(
            t(lang, "svc.talk.relay", name=speaker, text=talk)
            + "\n"
            + t(lang, "svc.talk.relay", name="bob", text="Let us vote.")
        )
    ]


def _pages(h: Mixed, who: str, lang: str) -> list[str]:
    """Every page ``more`` texts him, without the line that asks for the next one."""
    pages, word = [], MORE[lang]
    for n in range(1, 10):
        (reply,) = h.say(who, word if n == 1 else f"{word} {n}")
        nxt = gsm7(t(lang, "svc.more.next", page=n + 1))
        pages.append(reply.removesuffix("\n" + nxt))
        if not reply.endswith(nxt):
            break
    assert h.say(who, f"{word} {n + 1}") == [gsm7(t(lang, "svc.more.end"))]
    return pages


def test_a_lively_days_square_is_cut_to_a_few_lines_with_the_rest_counted() -> None:
    rows = [
        Outbox(
            identity_id=1,
            channel="sms",
            key="svc.talk.relay",
            text=f"p{i % 7}: {'blah ' * (i % 40)}hm",
            dedup_key=str(i),
        )
        for i in range(60)
    ]
    rows.insert(3, Outbox(identity_id=1, channel="sms", key="svc.left", text="dan left.", dedup_key="x"))
    text = digest_text(rows, "en", sms=True)
    assert len(text) <= SQUARE_ROOM + 200, len(text)
    assert text.startswith("Town square (61 messages): p0: hm | ") and "dan left." in text, text
    shown = text.split(": ", 1)[1].split(" | ")
    assert all(len(item) <= TALK_ITEM for item in shown), shown
    left = 61 - (len(shown) - 1)
    assert shown[-1].startswith(f"and {left} more") and text.endswith("The whole town square: text more."), text
    # Telegram's digest readers keep every item whole.
    assert digest_text(rows, "en") == "Town square (61 messages): " + " | ".join(r.text for r in rows)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_readers_own_first_day_vote_is_in_his_sms_summary(db: Engine, lang: str) -> None:
    h = _game(db, lang)
    _to_day(h, lang)
    alive = _alive(h)
    reader, target = [p for p in alive if p != TG][:2]
    h.clear()
    h.say(reader, f"{WORDS[lang]['vote']} {target}")
    (answer,) = h.inbox(reader)  # answered at once, with the promise
    assert answer.endswith(gsm7(t(lang, "sms.own.first"))), answer
    others = [p for p in alive if p not in (reader, target)]
    for voter in others:
        h.say(voter, f"{WORDS[lang]['vote']} {target}")
    h.clear()
    h.finish_phase()
    (text,) = h.inbox(reader)
    head = gsm7(t(lang, "sms.held.votes", votes="")).removesuffix(".")
    voters = [p for p in h.state().players if p in (reader, *others) and p != TG]
    assert re.search(rf"{re.escape(head)}.*\b{target}\(([^)]*)\)", text), text
    cast = re.search(rf"\b{target}\(([^)]*)\)", text.split(head, 1)[1])
    assert cast is not None and reader in cast.group(1).split(","), text
    assert set(voters) <= set(cast.group(1).split(",")), text  # everyone's, his own among them


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_first_answer_to_an_sms_nomination_is_one_sms(db: Engine, lang: str) -> None:
    # Its promise (``sms.own.first``) is long: the running tally is left to the summary, which
    # shows every nomination, or the answer would cost two segments once a few players had voted.
    h = _game(db, lang)
    _to_day(h, lang)
    alive = [p for p in _alive(h) if p != TG]
    reader, targets = alive[0], alive[1:]
    for voter, target in zip(alive[1:4], [*targets[1:], targets[0]], strict=False):
        h.say(voter, f"{WORDS[lang]['vote']} {target}")
    h.clear()
    h.say(reader, f"{WORDS[lang]['vote']} {targets[-1]}")
    (answer,) = h.inbox(reader)
    assert answer.endswith(gsm7(t(lang, "sms.own.first"))) and segments(answer) == 1, answer


@pytest.mark.parametrize("lang", LANGUAGES)
def test_an_sms_player_killed_learns_he_is_a_ghost_in_his_dawn_text_and_from_role(db: Engine, lang: str) -> None:
    # The short form says what changed, that he may no longer talk; the options under it show the
    # vote he keeps. The whole sentence pushed every new Ghost's dawn text over one segment.
    h = _game(db, lang)
    victim = next(p for p in NAMES if _roles(h)[p] == "villager" and p != TG)
    h.clear()
    _to_day(h, lang)
    assert victim not in _alive(h)
    ghost = gsm7(t(lang, "sms.svc.role.ghost"))
    (dawn,) = h.inbox(victim)
    assert ghost in dawn.split("\n") and segments(dawn) == 1, dawn
    assert all(ghost not in m for p in NAMES if p != victim for m in h.inbox(p))
    role = {"en": "role", "it": "ruolo", "es": "rol"}[lang]
    (card,) = h.say(victim, role)
    assert card.endswith(ghost), card


@pytest.mark.parametrize("lang", LANGUAGES)
def test_an_idle_sms_players_warning_is_short_and_leaves_his_phase_text_in_two_segments(db: Engine, lang: str) -> None:
    # The whole sentence (who takes the seat, volunteer or host) made his ballot text three segments.
    h = _game(db, lang)
    install(h.svc)  # as the worker's service counts a phase's absences at its close
    idle = next(p for p in NAMES if _roles(h)[p] == "villager" and p != TG)
    short = gsm7(t(lang, "sms.svc.inactive.warn", code=h.game().code, count=2))
    whole = gsm7(t(lang, "svc.inactive.warn", code=h.game().code, count=2))
    told: list[str] = []
    for _ in range(6):
        if h.game().status != "running":
            break
        h.clear()
        h.finish_phase()  # nobody acts (a Ghost, too, is warned for the nominations he lets pass)
        told = [m for m in h.inbox(idle) if short in m]
        if told:
            break
    assert told, "never warned"
    assert all(whole not in m for m in h.inbox(idle))
    assert segments(told[0]) <= 2, told[0]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_secret_ballot_by_sms_is_confirmed_and_status_shows_it_to_him_alone(db: Engine, lang: str) -> None:
    h = _game(db, lang)
    _to_day(h, lang)
    alive = _alive(h)
    wolf = next(p for p in alive if _roles(h)[p] == "werewolf")
    for voter in alive:
        h.say(voter, f"{WORDS[lang]['vote']} {wolf if voter != wolf else alive[-1]}")
    h.finish_phase()
    assert h.state().phase is Phase.BALLOT
    suspects = list(h.state().suspects)  # type: ignore[attr-defined]
    voters = [p for p in alive if p not in suspects]
    balloter, other = next(p for p in voters if p != TG), next(p for p in voters if p != TG and p != voters[0])
    if balloter == other:
        other = next(p for p in voters if p not in (balloter,))
    status = {"en": "status", "it": "stato", "es": "estado"}[lang]
    for suspect in (suspects[0], suspects[1]):  # cast, then changed: each confirmed at once, short
        h.clear()
        h.say(balloter, f"{WORDS[lang]['vote']} {suspect}")
        (confirmed,) = h.inbox(balloter)
        assert confirmed == gsm7(t(lang, "sms.day.ballot_taken", target=suspect)) and segments(confirmed) == 1
        (shown,) = h.say(balloter, status)
        assert shown.endswith("\n" + gsm7(t(lang, "svc.status.ballot", target=suspect))), shown
    # Nobody else reads it: not another voter, not the Telegram player, who has his own.
    mine = gsm7(t(lang, "svc.status.ballot", target="")).removesuffix(".")
    (theirs,) = h.say(other, status)
    assert mine not in theirs, theirs
    if TG in voters:
        h.say(TG, f"{WORDS[lang]['vote']} {suspects[0]}")
        (tg_status,) = h.say(TG, status)
        assert tg_status.endswith(t(lang, "svc.status.ballot", target=suspects[0])), tg_status


@pytest.mark.parametrize("lang", LANGUAGES)
def test_after_stop_and_start_he_is_told_his_card_for_the_game_that_started_meanwhile(db: Engine, lang: str) -> None:
    h = Mixed(db)
    open_game(h, lang)
    away = [p for p in NAMES if p != TG]
    for who in away:
        h.sms(who, "STOP")
    h.clear()
    start(h, lang)
    roles = _roles(h)
    assert all(h.inbox(who) == [] for who in away)  # nothing texted while opted out
    wolf = next(p for p in away if roles[p] == "werewolf")
    villager = next(p for p in away if roles[p] == "villager")
    mates = [p for p in NAMES if roles[p] == "werewolf" and p != wolf]
    for who in (wolf, villager):
        h.sms(who, "START")
        (text,) = h.inbox(who)
        assert text.startswith(gsm7(t(lang, "svc.catchup", code=h.game().code))), text
        assert gsm7(t(lang, "sms.role.dealt", role=role_name(lang, roles[who]))) in text, text
        # Then the night as its text says it, and what he may do now, numbered: by SMS, short.
        night = gsm7(t(lang, "sms.phase.night", night=1, deadline="")).removesuffix(".").strip()
        assert text.split("\n")[2].startswith(night), text
        if who == wolf:  # and what the card learned: the pack
            assert all(m in text.split("\n")[1] for m in mates), text
            assert text.split("\n")[3].startswith(gsm7(t(lang, "sms.svc.options", options=WORDS[lang]["kill"]))), text
        assert segments(text) <= 2, text
    # Back after a STOP in a game he knows: help, as always, and no card again.
    h.clear()
    h.sms(villager, "STOP")
    h.sms(villager, "START")
    (again,) = h.inbox(villager)
    assert gsm7(t(lang, "svc.catchup", code=h.game().code)) not in again, again
    assert gsm7(t(lang, "sms.role.dealt", role=role_name(lang, roles[villager]))) not in again, again


def test_a_telegram_player_back_after_blocking_the_bot_is_told_what_he_may_do_now(db: Engine) -> None:
    h = Mixed(db)
    open_game(h)
    start(h)
    h.clear()  # his card reached him; then he blocked the bot
    with Session(h.db) as s:  # he blocked the bot: the sender marked him unreachable
        ann = s.exec(select(Identity).where(Identity.address == TG)).one()
        ann.unreachable = True
        s.add(ann)
        s.commit()
    h.finish_phase()
    assert h.inbox(TG) == []  # the dawn and the day's choices never reach him
    h.clear()
    h.say(TG, "status")
    missed, now, status = h.inbox(TG)  # the dawn he missed, then help's answer and status's
    assert missed == t("en", "svc.catchup.missed", news=t("en", "night.dawn.none")), missed
    h.clear()
    assert h.say(TG, "help") == [now] and h.say(TG, "status") == [status]  # help's answer, and what he asked
    assert "vote 1 " in now, now
    assert not any(t("en", "svc.catchup", code=h.game().code) in x for x in (now, status))  # he had his card
