"""Buttons bound to their moment, numbers that never move, every tap answered (issue 22), over the
real webhooks, against the stand-ins: a game of eight in a Telegram group, four on Telegram (Hana
hosts) and four by SMS."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from typing import Any

from sqlmodel import Session, col, func, select

import engine
from engine import Phase
from service.delivery.senders import KEYBOARD, SendStatus
from service.game.reminders import parse_quiet, remind, remind_at
from service.sandbox import inbound
from service.store.models import GameEvent

from .conftest import SmsPlayer, Stack, TgPlayer, button_move, tg_player
from .test_group import GROUP, GROUP_ID, table, work

People = dict[str, TgPlayer | SmsPlayer]


def state(stack: Stack) -> Any:
    return engine.from_json(stack.game().state or "")


def to(stack: Stack, phase: Phase, day: int) -> None:
    """Let phases pass (nobody acting: nobody dies) until ``phase`` of ``day``."""

    def now() -> tuple[Phase, int]:
        st = state(stack)
        return st.phase, st.night if st.phase is Phase.NIGHT else st.day

    while now() != (phase, day):
        stack.finish_phase()
        work(stack)


def moves(stack: Stack) -> int:
    with Session(stack.db) as s:
        return s.exec(select(func.count(col(GameEvent.id))).where(GameEvent.kind == "move")).one()


def seat_numbers(text: str, seats: list[str]) -> list[tuple[int, str]]:
    """Every "N Name" in a text, for the names at the table."""
    return [(int(n), who) for n, who in re.findall(rf"\b(\d+) ({'|'.join(seats)})\b", text)]


def vote_buttons(p: TgPlayer) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [(m, b) for m, b in p.buttons() if button_move(b).startswith("vote ")]


def test_a_stale_button_changes_nothing_and_is_answered_with_the_current_choices(stack: Stack) -> None:
    _, people = table(stack, "/new")
    ann = people["Ann"]
    assert isinstance(ann, TgPlayer)
    to(stack, Phase.NOMINATIONS, 1)
    old_message, old_button = vote_buttons(ann)[-1]
    assert old_button["callback_data"].startswith(f"#{stack.game().code}/{stack.game().phase_no} vote ")
    to(stack, Phase.NOMINATIONS, 3)
    before, made, group = stack.game().state, moves(stack), len(stack.tg.sent(GROUP_ID))
    r = ann.tap_on(old_message, old_button)  # the day-1 nomination button, on day 3
    work(stack)
    # Nothing happened: no vote, no move, nothing said in the group.
    assert stack.game().state == before and moves(stack) == made
    assert len(stack.tg.sent(GROUP_ID)) == group
    # He is told at once (the tap's notice) and in the chat, with what he may choose now: fresh
    # buttons for this phase, and the old keyboard is gone.
    answer = r.json()
    assert answer["method"] == "answerCallbackQuery"
    assert answer["text"] == f"That button was for an earlier phase of game {stack.game().code}: nothing was done."
    reply = ann.texts()[-1]
    assert reply.startswith(answer["text"] + "\nChoose with a number or a name: vote "), reply
    fresh = stack.tg.sent(ann.uid)[-1]["reply_markup"]["inline_keyboard"]
    phase = stack.game().phase_no
    assert all(b["callback_data"].startswith(f"#{stack.game().code}/{phase} vote ") for row in fresh for b in row)
    shown = {m["message_id"]: m for m in stack.tg.messages(ann.uid)}
    assert "reply_markup" not in shown[old_message["message_id"]]
    # A fresh button works.
    target = button_move(vote_buttons(ann)[-1][1]).split()[1]
    ann.tap(f"vote {target}")
    work(stack)
    assert dict(state(stack).votes)["Ann"].lower() == target
    assert not stack.tg.unanswered()


def test_a_button_of_a_game_that_is_over_does_nothing(stack: Stack) -> None:
    hana, people = table(stack, "/new")
    ann = people["Ann"]
    assert isinstance(ann, TgPlayer)
    to(stack, Phase.NOMINATIONS, 1)
    message, button = vote_buttons(ann)[-1]
    hana.say("/end yes", chat=GROUP)
    work(stack)
    assert stack.game().status == "ended"
    made = moves(stack)
    r = ann.tap_on(message, button)
    work(stack)
    assert moves(stack) == made
    code = stack.game().code
    assert r.json()["text"] == f"Game {code} is over: that button does nothing now."
    assert ann.texts()[-1] == r.json()["text"]


def test_the_keyboard_shows_the_choice_made_by_tapping(stack: Stack) -> None:
    _, people = table(stack, "/new")
    ann = people["Ann"]
    assert isinstance(ann, TgPlayer)
    to(stack, Phase.NOMINATIONS, 1)
    message, button = vote_buttons(ann)[-1]
    target = button_move(button).split()[1]
    r = ann.tap_on(message, button)
    work(stack)
    assert "text" not in r.json()  # nothing to say: the vote shows on the keyboard, and in the group
    edits = stack.tg.calls("editMessageReplyMarkup")
    assert [(c.status, int(c.params["chat_id"]), int(c.params["message_id"])) for c in edits] == [
        (200, ann.uid, message["message_id"])
    ]
    shown = {m["message_id"]: m for m in stack.tg.messages(ann.uid)}[message["message_id"]]
    # A nomination is final: the keyboard keeps the choice alone, marked.
    (row,) = shown["reply_markup"]["inline_keyboard"]
    assert [b["text"].lower() for b in row] == [f"\u2713 {target}"]
    assert dict(state(stack).votes)["Ann"].lower() == target


def test_every_tap_is_answered(stack: Stack) -> None:
    _, people = table(stack, "/new")
    ann = people["Ann"]
    assert isinstance(ann, TgPlayer)
    to(stack, Phase.NOMINATIONS, 1)
    message, button = vote_buttons(ann)[-1]
    code = stack.game().code
    made = moves(stack)
    for data in ("", "   ", "no button of ours", f"#{code}/{stack.game().phase_no} help", f"#{code} vote Bob"):
        r = stack.post_update(inbound.callback_update(ann.user, data, message))
        assert r.status_code == 200 and r.json()["method"] == "answerCallbackQuery"
        assert r.json()["text"], data
    assert moves(stack) == made  # none of them acted
    ann.tap_on(message, button)  # acted on
    ann.tap_on(message, button)  # again: the engine's refusal, as its notice
    work(stack)
    assert moves(stack) == made + 1
    answers = stack.tg.calls("answerCallbackQuery")
    assert len(answers) == 7 and all(c.status == 200 for c in answers)
    assert not stack.tg.unanswered()
    unknown = [c.params.get("text") for c in answers[:3]]
    assert unknown == ["This button no longer works: write help."] * 3
    # In the language his Telegram says, without asking the service anything.
    italian = inbound.telegram_user(ann.uid, "Ann", language_code="it")
    r = stack.post_update(inbound.callback_update(italian, "", message))
    assert r.json()["text"] == "Questo pulsante non funziona più: scrivi aiuto."
    assert not stack.tg.unanswered()


def test_numbers_are_seats_in_every_list_on_both_channels(stack: Stack) -> None:
    hana, people = table(stack, "/new")
    seats = list(state(stack).players)
    st = state(stack)
    wolves = [p for p in seats if st.roles[p].value == "werewolf"]
    # The seating at the start, the night's options, by SMS and on Telegram: one number a player.
    group_start = next(
        (m["text"] for m in stack.tg.sent(GROUP_ID) if "Seating" in m["text"]),
        [m["text"] for m in stack.tg.sent(GROUP_ID)],
    )
    assert isinstance(group_start, str), group_start
    assert seat_numbers(group_start, seats) == [(i, p) for i, p in enumerate(seats, start=1)]
    for name in wolves:
        (listed,) = [t for t in people[name].texts() if seat_numbers(t, seats)][-1:]
        found = seat_numbers(listed, seats)
        assert found and all(seats[n - 1] == who for n, who in found), listed
    # The night's list, then ``players`` (the whole table), then "kill N": seat N, whatever came last.
    wolf = wolves[0]
    me = people[wolf]
    night = seat_numbers(
        me.texts()[-1] if isinstance(me, SmsPlayer) else next(t for t in reversed(me.texts()) if "kill" in t), seats
    )
    number, victim = night[-1]
    me.say("players")
    work(stack)
    assert seat_numbers(me.texts()[-1], seats) == [(i, p) for i, p in enumerate(seats, start=1)]
    me.say(f"kill {number}")
    work(stack)
    choices = engine.moderator_view(state(stack))["choices"]
    assert choices[f"pack:{wolf}"] == ["kill", victim] or tuple(choices[f"pack:{wolf}"]) == ("kill", victim)
    # A seat that is no legal target gets the engine's reason; a number that is no seat, its own.
    me.say(f"kill {seats.index(wolf) + 1}")
    work(stack)
    assert me.texts()[-1] == "You cannot choose yourself."
    me.say("kill 12")
    work(stack)
    assert me.texts()[-1] == "There is no seat 12: the seats are 1 to 8."
    # The reminder numbers by seat too.
    game = stack.game()
    assert game.deadline is not None
    at = remind_at(game.deadline, timedelta(minutes=60), game.timezone, parse_quiet("22:00-08:00"))
    stack.clock.now = at
    assert remind(stack.svc, now=at) == 1
    work(stack)
    other = next(p for p in wolves if p != wolf)
    reminded = people[other].texts()[-1]
    assert "kill" in reminded and seat_numbers(reminded, seats), reminded
    assert all(seats[n - 1] == who for n, who in seat_numbers(reminded, seats))
    # Help on Telegram and a substitute's options number by seat as well.
    tg_name = next(p for p in seats if isinstance(people[p], TgPlayer) and p != "Hana")
    tg = people[tg_name]
    tg.say("help")
    work(stack)
    assert all(seats[n - 1] == who for n, who in seat_numbers(tg.texts()[-1], seats))
    hana.say(f"replace {other}")
    newcomer = tg_player(stack, "Zed")
    newcomer.say(f"/start {game.code}")
    work(stack)
    options = newcomer.texts()[-1]
    assert "kill" in options and seat_numbers(options, seats), newcomer.texts()
    assert all(seats[n - 1] == who for n, who in seat_numbers(options, seats))


def test_a_night_later_a_number_is_still_the_same_seat(stack: Stack) -> None:
    """Numbers used to shift once a player died and the lists were numbered anew."""
    _, people = table(stack, "/new")
    seats = list(state(stack).players)
    st = state(stack)
    wolves = [p for p in seats if st.roles[p].value == "werewolf"]
    humans = [p for p in seats if p not in wolves and p != "Hana"]
    first = humans[0]  # the earliest seat among them: every number after it would have moved
    for w in wolves:
        people[w].say(f"kill {seats.index(first) + 1}")
    work(stack)
    to(stack, Phase.NIGHT, 2)
    assert first not in state(stack).alive
    victim = humans[-1]
    for w in wolves:
        people[w].say(f"kill {seats.index(victim) + 1}")
        people[w].say(f"kill {seats.index(first) + 1}")  # the dead: the engine's own reason
        work(stack)
        assert people[w].texts()[-1] == f"{first} is dead.", people[w].texts()[-1]
    choices = engine.moderator_view(state(stack))["choices"]
    assert {tuple(choices[f"pack:{w}"]) for w in wolves} == {("kill", victim)}


def test_a_join_from_the_deep_link_is_answered_privately_in_the_players_language(stack: Stack) -> None:
    hana = tg_player(stack, "Hana")
    hana.say("/start")
    hana.say("/new", chat=GROUP)
    code = stack.game().code
    work(stack)
    lola = tg_player(stack, "Lola")
    update = inbound.text_update(inbound.telegram_user(lola.uid, "Lola", language_code="es"), f"/start {code}")
    assert stack.post_update(update).status_code == 200
    work(stack)
    assert stack.identity("telegram", str(lola.uid)).language == "es"
    (welcome,) = lola.texts()
    assert (
        welcome == f"Te uniste a la partida {code} como Lola (1 jugador). Tu carta y tus elecciones llegan "
        "aquí, en privado."
    ), welcome
    # The group reads it in the game's language, as before.
    assert stack.tg.sent(GROUP_ID)[-1]["text"] == f"Lola joined game {code} (1 player)."
    # Someone Telegram gives no language of ours reads the game's.
    gil = tg_player(stack, "Gil")
    update = inbound.text_update(inbound.telegram_user(gil.uid, "Gil", language_code="pt-br"), f"join {code}")
    assert stack.post_update(update).status_code == 200
    work(stack)
    assert gil.texts() == [
        f"You joined game {code} as Gil (2 players). Your card and your choices come here, privately."
    ]


def test_a_keyboard_edit_sent_again_is_done_not_refused(stack: Stack) -> None:
    """The worker may send an act twice (a crash after Telegram took it): Telegram then answers
    "message is not modified", which means the keyboard is as asked."""
    ann = tg_player(stack, "Ann")
    ann.say("/start")
    ann.say("new")
    stack.deliver()
    sent = stack.tg.sent(ann.uid)[-1]
    keyboard = [[{"text": "\u2713 Bob", "data": "#ABCD/3 vote 2"}]]
    spec = json.dumps({"chat": str(ann.uid), "message_id": sent["message_id"], "buttons": keyboard})
    sender = stack.senders["telegram"]
    first = sender.act(str(ann.uid), KEYBOARD, spec, dedup_key="k1")
    again = sender.act(str(ann.uid), KEYBOARD, spec, dedup_key="k1")
    assert first.ok and again.ok
    assert [c.status for c in stack.tg.calls("editMessageReplyMarkup")] == [200, 400]
    shown = {m["message_id"]: m for m in stack.tg.messages(ann.uid)}[sent["message_id"]]
    assert shown["reply_markup"]["inline_keyboard"][0][0]["callback_data"] == "#ABCD/3 vote 2"
    # Taken away (no buttons), and a message that is not there: refused, that row alone.
    gone = json.dumps({"chat": str(ann.uid), "message_id": sent["message_id"], "buttons": []})
    assert sender.act(str(ann.uid), KEYBOARD, gone, dedup_key="k2").ok
    assert "reply_markup" not in {m["message_id"]: m for m in stack.tg.messages(ann.uid)}[sent["message_id"]]
    lost = json.dumps({"chat": str(ann.uid), "message_id": 999, "buttons": []})
    refused = sender.act(str(ann.uid), KEYBOARD, lost, dedup_key="k3")
    assert refused.status is SendStatus.PERMANENT and refused.reason is not None and refused.reason.value == "rejected"
