"""Whole games over HTTP, players on Telegram (in a group, tapping buttons) and by SMS (numbered
lists), against the stand-ins that record every outbound call."""

from __future__ import annotations

import re
from typing import Any

from sqlmodel import Session, select

import engine
from service.sandbox import inbound
from service.store.models import GameEvent
from tests.service.sms_shown import shown

from .conftest import SmsPlayer, Stack, TgPlayer, phase_moves, sms_player, tg_player

GROUP_ID = -1001234567
GROUP = inbound.telegram_chat(GROUP_ID, "Lupus by the lake")


def number_for(player: SmsPlayer, target: str) -> int:
    """The number the player's last list gave ``target`` (texts read ``vote 1 Ann, 2 Bob``)."""
    for body in reversed(player.texts()):
        m = re.search(rf"(\d+) {re.escape(target)}\b", body)
        if m:
            return int(m.group(1))
    raise AssertionError(f"no numbered list names {target}")


def keyboards(p: TgPlayer, since: int) -> list[tuple[dict[str, Any], str]]:
    """The buttons of the messages the bot sent him since his message ``since``: (message, data)."""
    return [
        (msg, str(button.get("callback_data", "")))
        for msg in p.stack.tg.sent(p.uid)[since:]
        for row in (msg.get("reply_markup") or {}).get("inline_keyboard", [])
        for button in row
    ]


def button_data(stack: Stack, verb: str, target: str) -> str:
    """What a button for ``verb target`` carries now: the game, the phase it was made for, and the
    move with the target's seat (``#CODE/3 vote 2``), so that a tap from another phase does nothing."""
    state: Any = engine.from_json(stack.game().state or "")
    return f"#{stack.game().code}/{stack.game().phase_no} {verb} {state.players.index(target) + 1}"


def assert_buttons(stack: Stack, p: TgPlayer, name: str, since: int) -> None:
    """A Telegram player who may act this phase got a button for each thing he may do: his
    choices as the engine lists them, each as a button carrying the move (``button_data``)."""
    state: Any = engine.from_json(stack.game().state or "")
    must = {button_data(stack, a.verb.value, a.target or "") for a in engine.legal_actions(state, name)}
    got = {data for _, data in keyboards(p, since)}
    assert must <= got, (name, state.phase.value, sorted(must - got))


def act(p: TgPlayer | SmsPlayer, verb: str, target: str, since: int = 0) -> None:
    """The move as the player makes it: an SMS player answers his numbered list; a Telegram player
    taps the newest button for it among the messages since his message ``since`` (the phase's),
    never typing instead: a missing button fails."""
    if isinstance(p, SmsPlayer):
        p.say(f"{verb.upper()} {number_for(p, target)}")
        return
    want = button_data(p.stack, verb, target)
    buttons = [(msg, data) for msg, data in keyboards(p, since) if data == want]
    assert buttons, f"{p.first_name} has no button for {verb} {target} this phase"
    msg, data = buttons[-1]
    r = p.stack.post_update(inbound.callback_update(p.user, data, msg))
    assert r.status_code == 200, r.text
    answer = r.json()
    assert answer["method"] == "answerCallbackQuery" and answer["callback_query_id"]


def play_phase(stack: Stack, people: dict[str, TgPlayer | SmsPlayer], since: dict[str, int]) -> None:
    """One phase: every Telegram player who may act got his buttons (since his message ``since``,
    where the phase began), and everyone makes the sensible move."""
    state: Any = engine.from_json(stack.game().state or "")
    for name, person in people.items():
        if isinstance(person, TgPlayer):
            assert_buttons(stack, person, name, since[name])

    def move(name: str, verb: str, target: str) -> None:
        act(people[name], verb, target, since.get(name, 0))

    for player, verb, target in phase_moves(state):
        move(player, verb, target)
    stack.deliver()
    since.update({name: len(stack.tg.sent(t.uid)) for name, t in people.items() if isinstance(t, TgPlayer)})
    stack.finish_phase()
    stack.deliver()


def test_a_mixed_game_played_in_a_telegram_group_and_by_sms(stack: Stack) -> None:
    hana = tg_player(stack, "Hana")
    hana.say("/start")  # she opens the bot first
    hana.say("/new@lupus_sandbox_bot", chat=GROUP)
    stack.deliver()
    game = stack.game()
    code = game.code
    assert game.group_id is not None
    # The group is told how to join, with a button that opens the bot on the game.
    invite = stack.tg.sent(GROUP_ID)[-1]
    link = f"https://t.me/lupus_sandbox_bot?start={code}"
    assert link in invite["text"]
    assert invite["reply_markup"]["inline_keyboard"][0][0]["url"] == link

    tg = [hana] + [tg_player(stack, n) for n in ("Ann", "Bob", "Cat")]
    sms = [sms_player(stack) for _ in range(4)]
    for t in tg:
        t.say(f"/start {code}")  # the deep link: joins under his first name
    for s, name in zip(sms, ("Dan", "Eve", "Fay", "Gus"), strict=True):
        s.say(f"JOIN {code} {name}")
    people: dict[str, TgPlayer | SmsPlayer] = {p.first_name: p for p in tg}
    people.update(zip(("Dan", "Eve", "Fay", "Gus"), sms, strict=True))
    hana.say("/begin", chat=GROUP)
    stack.deliver()
    assert stack.game().status == "running"

    # Telegram players get their choices as buttons carrying the game, the phase and the move;
    # SMS players as numbered lists. Either way a player's number is his seat.
    state: Any = engine.from_json(stack.game().state or "")
    wolf = next(p for p in state.players if state.roles[p].value == "werewolf")
    choices = people[wolf].texts()[-1]
    listed = re.findall(r"\b(\d+) (\w+)", choices)
    assert listed and all(state.players[int(n) - 1] == name for n, name in listed), choices
    if isinstance(tg_wolf := people[wolf], TgPlayer):
        keyboard = stack.tg.sent(tg_wolf.uid)[-1]["reply_markup"]["inline_keyboard"]
        phase = stack.game().phase_no
        assert all(b["callback_data"].startswith(f"#{code}/{phase} kill ") for row in keyboard for b in row)

    since = {name: 0 for name, t in people.items() if isinstance(t, TgPlayer)}  # each phase's messages
    for _ in range(40):
        if stack.game().status != "running":
            break
        play_phase(stack, people, since)
    assert stack.game().status == "over"
    stack.deliver()

    rows = stack.outbox()
    group = stack.identity("telegram", str(GROUP_ID))
    tg_ids = {int(stack.identity("telegram", str(t.uid)).id or 0) for t in tg}
    sms_ids = {int(stack.identity("sms", s.number).id or 0) for s in sms}
    with Session(stack.db) as session:
        audience = {(e.seq): e.audience for e in session.exec(select(GameEvent).where(GameEvent.game_id == game.id))}
    # Everything the group read was for everyone; nothing secret went there.
    for row in rows:
        if row.identity_id == group.id and row.dedup_key.startswith(f"g{game.id}:e"):
            seq = int(row.dedup_key.split(":")[1][1:])
            assert audience[seq] is None, (row.key, row.text)
    # Public news: once in the group, once to each SMS player, never privately on Telegram.
    over = [r for r in rows if r.key == "game.over"]
    assert sorted(r.identity_id for r in over) == sorted([int(group.id or 0), *sms_ids])
    dawns = [r for r in rows if r.key == "night.dawn"]
    assert dawns and not any(r.identity_id in tg_ids for r in dawns)
    # Each player learned his card privately, and only he did.
    dealt = [r for r in rows if r.key == "role.dealt"]
    assert sorted(r.identity_id for r in dealt) == sorted(tg_ids | sms_ids)
    # The stand-ins got exactly what the outbox sent, and no phone number was ever shown. An SMS
    # player's texts of one command (and the commentary held for him) went merged into one text:
    # the parts stay in the outbox as merged, each inside a text sent to that same player.
    sent = [r for r in rows if r.status != "merged"]
    assert all(r.status == "sent" for r in sent)
    merged = [r for r in rows if r.status == "merged"]
    assert merged and all(r.channel == "sms" for r in merged)
    for part in merged:  # or, held for him, its news in a later text (a summary, the ballots, the seating)
        his = "\n".join(r.text for r in sent if r.identity_id == part.identity_id)
        assert part.text in his or shown(part, his), part.text
    assert len(stack.tg.sent()) == sum(r.channel == "telegram" and r.action is None for r in sent)
    # Each choice made by tapping showed on its keyboard, one edit each.
    edits = [r for r in sent if r.action == "keyboard"]
    assert edits and len(stack.tg.calls("editMessageReplyMarkup")) == len(edits)
    assert len(stack.tw.messages()) == sum(r.channel == "sms" for r in sent)
    everything = [m["text"] for m in stack.tg.sent()] + [m["body"] for m in stack.tw.messages()]
    for s in sms:
        assert not any(s.number in t or s.number[1:] in t for t in everything)
