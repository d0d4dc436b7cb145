"""What an SMS player's start and end texts leave out, he has on request, in every language.

The start text names his card and the deck, and says how to ask for the card's help (``role``) and
the seating (``players``); the end text says who won and whether he did, and how to ask for every
card and every night (``status``), which nobody has before the end. Each word a text tells him to
send is understood as the command that answers it."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, col, select

import engine
from service.channels.sms.gsm7 import fold as gsm7
from service.channels.sms.gsm7 import segments
from service.store.models import GameEvent, Identity, Outbox
from service.texts import cards, grammar, render
from service.texts.history import history_text
from service.texts.i18n import LANGUAGES, role_name, t

from .conftest import Harness, deliver_all
from .play import NAMES, open_game, play_to_end, start

#: The words the start and end texts tell him to send, by language: (role, players, status).
WORDS = {
    "en": ("role", "players", "status"),
    "it": ("ruolo", "giocatori", "stato"),
    "es": ("rol", "jugadores", "estado"),
}


#: The guide's word, by language, as the start text writes it.
GUIDE = {"en": "guide", "it": "guida", "es": "guía"}


class Sms(Harness):
    """The harness with every player (and the host) texting by SMS."""

    def say(self, who: str, text: str, external_id: str | None = None) -> list[str]:
        return self.svc.handle_inbound("sms", who, external_id or f"m{next(self._ids)}", text)

    def deliver(self) -> None:
        deliver_all(self.db, {"sms": self.channel}, self.clock)


def _roles(h: Harness) -> dict[str, str]:
    return {p: r.value for p, r in h.state().roles.items()}  # type: ignore[attr-defined]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_start_text_says_how_to_ask_for_the_cards_help_and_the_seating_and_both_answer(
    db: Engine, lang: str
) -> None:
    h = Sms(db)
    open_game(h, lang)
    h.clear()
    start(h, lang)
    roles = _roles(h)
    wolves = [p for p, r in roles.items() if r == "werewolf"]
    villager = next(p for p, r in roles.items() if r == "villager")
    role_word, players_word, _ = WORDS[lang]
    assert grammar.parse(role_word).verb == "role" and grammar.parse(players_word).verb == "players"
    seating = ", ".join(f"{i} {n}" for i, n in enumerate(h.state().players, start=1))
    for who in (villager, wolves[0]):
        (text,) = h.inbox(who)
        assert gsm7(t(lang, "sms.role.dealt", role=role_name(lang, roles[who]))) in text, text
        # What the card does is one command away, in his words: the guide's answer (seen: "text role").
        guide = f"{GUIDE[lang]} {role_name(lang, roles[who])}"
        assert gsm7(f" {guide})") in text and f" {players_word}." in text, text
        assert render.role_help(lang, roles[who]) not in text  # on request now
        (card,) = h.say(who, guide)
        assert gsm7(cards.card_text(lang, roles[who])) in card, card
        if who == villager:  # nothing to do on the first night: one segment
            assert segments(text) == 1, text
        (help_,) = h.say(who, role_word)
        assert gsm7(render.role_help(lang, roles[who])) in help_, help_
        assert h.say(who, players_word) == [gsm7(t(lang, "svc.players.seating", players=seating))]
    # The pack's names come with the Werewolf's card, at the start and on request.
    (again,) = h.say(wolves[0], role_word)
    assert wolves[1] in again and wolves[1] in h.inbox(wolves[0])[0]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_end_text_says_who_won_and_how_to_ask_for_every_card_and_night(db: Engine, lang: str) -> None:
    h = Sms(db)
    open_game(h, lang)
    start(h, lang)
    status_word = WORDS[lang][2]
    assert grammar.parse(status_word).verb == "status"
    cards = gsm7(t(lang, "sms.svc.status.roles", roles="")).removesuffix(".")
    nights_head = gsm7(t(lang, "sms.svc.reveal", nights=""))
    # Before the end no card and no night comes with status.
    (before,) = h.say(NAMES[0], status_word)
    assert cards not in before and nights_head not in before, before
    play_to_end(h, lang)
    pv = engine.public_view(h.state())
    roles = _roles(h)
    for who in NAMES:
        end = h.inbox(who)[-1]
        assert end.endswith(gsm7(t(lang, "sms.end.more"))), end
        # The end's part of his last text (merged with the lynching's) opens with whether he won.
        assert "\n" + gsm7(t(lang, "game.won" if who in pv["winners"] else "game.lost")) in "\n" + end, (who, end)
        assert nights_head not in end and cards not in end, end
    with Session(h.db) as s:
        sms_ids = {i.id for i in s.exec(select(Identity).where(Identity.channel == "sms"))}
        assert not [
            r for r in s.exec(select(Outbox).where(Outbox.key == "svc.reveal")) if r.identity_id in sms_ids
        ]  # the nights are not sent: he asks
        reveal = s.exec(select(GameEvent).where(col(GameEvent.key) == "svc.reveal")).one()
    notes = reveal.data["history"]
    assert notes
    for who in (NAMES[0], NAMES[-1]):
        (after,) = h.say(who, status_word)
        assert gsm7(t(lang, "sms.svc.status.roles", roles=render.roles_by_card(roles, {}, lang))) in after, after
        assert gsm7(history_text(notes, pv["night"], lang, sms=True)) in after, after
        said = after.split(nights_head)[1]
        for n in range(1, pv["night"] + 1):  # every night, every death in it
            assert gsm7(t(lang, "history.night", n=n, events="")).removesuffix(".") in said, said
        assert all(n["player"] in said for n in notes if n["what"] == "killed")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_hosts_answer_by_sms_fits_one_segment_and_names_words_that_work(db: Engine, lang: str) -> None:
    h = Sms(db)
    new, join, start_word = {
        "en": ("new", "join", "start"),
        "it": ("nuova", "entra", "inizia"),
        "es": ("nueva", "unirse", "empezar"),
    }[lang]
    (created,) = h.say("host", f"{new} lang {lang}")
    code = h.game().code
    assert segments(created) == 1, created
    ending = f" {start_word} when all are in." if lang == "en" else f" {start_word}."
    assert f"{join} {code} " in created and created.endswith(ending), created
    assert grammar.parse(f"{join} {code} ann").verb == "join" and grammar.parse(start_word).verb == "start"
    assert segments(gsm7(t(lang, "svc.created", code=code, rules="tabula", tz="Europe/Rome"))) == 2  # as before
