"""A third channel is one new package: the plain-text console of ``tests/channels/console``,
registered with one line, plays a whole game beside players on Telegram (in the group, tapping
buttons) and by SMS, through the service, the same outbox and the real delivery (its own sender,
its own rate limit), with nothing in the Telegram or SMS packages knowing of it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, cast

import pytest

import engine
from service import channels
from service.delivery.dispatch import deliver
from service.delivery.limiter import MemoryLimiter, Policy, Rate, Rule
from service.delivery.rows import Report
from service.delivery.wiring import Delivery, make_delivery, make_policy
from tests.service.sms_shown import shown

from . import console
from .conftest import SmsPlayer, Stack, TgPlayer, later, phase_moves, sms_player, tg_player
from .console.inbound import type_line
from .console.sender import ConsoleSender
from .test_games import GROUP, GROUP_ID, act

USER = "tty7"  # the console user's address
NAME = "Zed"
FREE = [Rule("channel", Rate(10_000, 1.0, burst=10_000))]


@dataclass
class Console:
    """The console registered, and the deployment's delivery made from the stack's settings: the
    senders and the rate rules of every registered channel, the console's among them."""

    stack: Stack
    delivery: Delivery

    @property
    def sender(self) -> ConsoleSender:
        return cast(ConsoleSender, self.delivery.senders[console.NAME])

    def deliver(self) -> Report:
        """What the worker does: every channel's due texts through its own sender, under the limiter."""
        return deliver(self.stack.db, self.delivery.senders, self.delivery.limiter, clock=self.stack.clock)


def console_kept(policy: Policy) -> Policy:
    """The console's own rule kept, the others' made free: the stand-ins do not enforce Telegram's and
    Twilio's limits (``tests/delivery`` holds the delivery to them), which would hold this game's texts
    for real seconds."""
    return {key: rules if key[0] == console.NAME else FREE for key, rules in policy.items()}


@pytest.fixture
def with_console(stack: Stack) -> Iterator[Console]:
    channels.register(console.CHANNEL)  # the registry's one line for a new channel
    try:
        delivery = make_delivery(stack.settings, policy=console_kept(make_policy(stack.settings)))
        try:
            yield Console(stack, delivery)
        finally:
            delivery.close()
    finally:
        del channels.CHANNELS[console.NAME]


def number_for(screen: list[str], target: str) -> int:
    """The seat number the console's last list gave ``target`` (``| Vote: 1 Ann, 2 Bob``)."""
    for line in reversed(screen):
        m = re.search(rf"(\d+) {re.escape(target)}\b", line)
        if m:
            return int(m.group(1))
    raise AssertionError(f"no list on the console names {target}")


def test_a_console_player_plays_a_whole_game_beside_telegram_and_sms(stack: Stack, with_console: Console) -> None:
    assert set(with_console.delivery.senders) == {"telegram", "sms", console.NAME}
    screen = with_console.sender.screens[USER]
    deliver_all = with_console.deliver  # the real delivery, where the other tests use their drain
    hana = tg_player(stack, "Hana")
    hana.say("/start")
    hana.say("/new@lupus_sandbox_bot", chat=GROUP)
    deliver_all()
    code = stack.game().code
    tg = [hana, tg_player(stack, "Ann"), tg_player(stack, "Bob")]
    sms = [sms_player(stack) for _ in range(4)]
    for t in tg:
        t.say(f"/start {code}")
    for s, name in zip(sms, ("Dan", "Eve", "Fay", "Gus"), strict=True):
        s.say(f"JOIN {code} {name}")
    type_line(stack.svc, USER, "help")
    deliver_all()
    assert screen and screen[0].startswith(console.PREFIX)  # the help, as his channel shows it
    type_line(stack.svc, USER, f"join {code} {NAME}")
    people: dict[str, TgPlayer | SmsPlayer | str] = {p.first_name: p for p in tg}
    people.update(zip(("Dan", "Eve", "Fay", "Gus"), sms, strict=True))
    people[NAME] = USER
    hana.say("/begin", chat=GROUP)
    deliver_all()
    assert stack.game().status == "running", screen + [m["text"] for m in stack.tg.sent(GROUP_ID)]
    # The console printed his joining and his card, every line of a text on a line of its own.
    assert screen and all(line.startswith(console.PREFIX) for line in screen)

    since = {name: 0 for name, p in people.items() if isinstance(p, TgPlayer)}
    for _ in range(40):
        if stack.game().status != "running":
            break
        state: Any = engine.from_json(stack.game().state or "")

        def move(name: str, verb: str, target: str) -> None:
            who = people[name]
            if isinstance(who, str):  # the console: he types his numbered list's number, as listed
                deliver_all()
                type_line(stack.svc, who, f"{verb} {number_for(screen, target)}")
            else:
                act(who, verb, target, since.get(name, 0))

        for player, verb, target in phase_moves(state):
            move(player, verb, target)
        deliver_all()
        since.update({n: len(stack.tg.sent(p.uid)) for n, p in people.items() if isinstance(p, TgPlayer)})
        stack.finish_phase()
        deliver_all()
    assert stack.game().status == "over"
    deliver_all()

    zed = stack.identity(console.NAME, USER)
    rows = stack.outbox()
    his = [r for r in rows if r.identity_id == zed.id]
    # Everything written to him went out through his channel's sender, none held, merged or buttoned.
    assert his and all(r.channel == console.NAME and r.status == "sent" and not r.buttons for r in his)
    assert [r.text for r in his] == with_console.sender.texts[USER]
    keys = {r.key for r in his}
    assert {"role.dealt", "svc.options", "night.dawn", "game.over"} <= keys, keys
    # He read the public news directly (not from the group he is not in), as written, in full.
    over = next(r for r in his if r.key == "game.over")
    assert "(" in over.text and NAME in over.text  # every card, "name (Card)", as Telegram shows it
    # The others played on as before: SMS texts merged, Telegram in the group, nothing of his leaked.
    sms_ids = {stack.identity("sms", s.number).id for s in sms}
    merged = [r for r in rows if r.status == "merged"]
    assert merged and all(r.channel == "sms" for r in merged)
    sent = [r for r in rows if r.status != "merged"]
    for part in merged:
        assert part.identity_id in sms_ids
        texts = "\n".join(r.text for r in sent if r.identity_id == part.identity_id)
        assert part.text in texts or shown(part, texts), part.text
    group = stack.identity("telegram", str(GROUP_ID))
    assert any(r.identity_id == group.id and r.key == "game.over" for r in rows)


def test_the_real_delivery_holds_the_console_to_its_own_rate(stack: Stack, with_console: Console) -> None:
    policy = make_policy(stack.settings)
    assert policy[(console.NAME, "private")] == [Rule("address", console.RATE)]  # from its package
    for _ in range(console.RATE.burst + 5):
        type_line(stack.svc, USER, "help")
    frozen = MemoryLimiter(policy, clock=lambda: 1000.0)  # time stands still: only the burst may go
    report = deliver(stack.db, with_console.delivery.senders, frozen, clock=stack.clock, budget=0)
    assert len(with_console.sender.texts[USER]) == report.sent == console.RATE.burst
    zed = stack.identity(console.NAME, USER)
    waiting = [r.id for r in stack.outbox() if r.identity_id == zed.id and r.status == "pending"]
    assert len(waiting) >= 5 and sorted(report.deferred) == waiting  # the rest for later, in order
    later(stack, 1)
    with_console.deliver()  # a minute on, under the deployment's own limiter: the rest, in order
    his = [r for r in stack.outbox() if r.identity_id == zed.id]
    assert all(r.status == "sent" for r in his) and [r.text for r in his] == with_console.sender.texts[USER]
