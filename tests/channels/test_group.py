"""A game played in a Telegram group: Ghosts muted there when the host asks and the bot may
(restrictChatMember through the outbox, undone at the end; the hosts told once when Telegram
refuses), and the group's plain talk relayed to the SMS players, never from a Ghost nor at night."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, col, select

import engine
from engine import Phase
from service.delivery.dispatch import Report, deliver
from service.delivery.limiter import MemoryLimiter, Rate, Rule
from service.delivery.wiring import DEFAULT_POLICY
from service.game.failures import tell_hosts_mute_refused
from service.game.ghosts import OPTION
from service.sandbox import inbound
from service.store.models import Identity, Outbox

from .conftest import SmsPlayer, Stack, TgPlayer, sms_player, tg_player
from .test_games import act

GROUP_ID = -1009876543
GROUP = {"id": GROUP_ID, "title": "Lupus on the hill", "type": "supergroup"}
_FREE = Rate(10_000, 1.0, burst=10_000)
UNLIMITED = {k: [Rule("channel", _FREE), Rule("address", _FREE)] for k in DEFAULT_POLICY}


def work(stack: Stack) -> Report:
    """What the worker's dispatch task does: send the outbox, then hand refused acts to the service."""
    total = Report()
    while True:
        report = deliver(stack.db, stack.senders, MemoryLimiter(UNLIMITED), clock=stack.clock, budget=30)
        if report.refused:
            tell_hosts_mute_refused(stack.svc, report.refused)
        total.sent += report.sent
        total.refused += report.refused
        if not report.sent and not report.refused:
            return total


def table(stack: Stack, new: str) -> tuple[TgPlayer, dict[str, TgPlayer | SmsPlayer]]:
    hana = tg_player(stack, "Hana")
    hana.say("/start")
    hana.say(new, chat=GROUP)
    code = stack.game().code
    tg = [hana] + [tg_player(stack, n) for n in ("Ann", "Bob", "Cat")]
    sms = [sms_player(stack) for _ in range(4)]
    for t in tg:
        t.say(f"/start {code}")
    for s, name in zip(sms, ("Dan", "Eve", "Fay", "Gus"), strict=True):
        s.say(f"JOIN {code} {name}")
    people: dict[str, TgPlayer | SmsPlayer] = {p.first_name: p for p in tg}
    people.update(zip(("Dan", "Eve", "Fay", "Gus"), sms, strict=True))
    hana.say("/begin", chat=GROUP)
    work(stack)
    assert stack.game().status == "running"
    return hana, people


def state(stack: Stack) -> Any:
    return engine.from_json(stack.game().state or "")


def kill_at_night(stack: Stack, people: dict[str, TgPlayer | SmsPlayer], victim: str) -> None:
    st = state(stack)
    assert st.phase is Phase.NIGHT
    for wolf in (p for p in st.players if p in st.alive and st.roles[p].value == "werewolf"):
        act(people[wolf], "kill", victim)
    work(stack)
    stack.finish_phase()
    work(stack)
    assert victim not in state(stack).alive


def to_next_night(stack: Stack) -> None:
    while state(stack).phase is not Phase.NIGHT and stack.game().status == "running":
        stack.finish_phase()
        work(stack)


def victims(stack: Stack, people: dict[str, TgPlayer | SmsPlayer], channel: type) -> list[str]:
    st = state(stack)
    return [
        p
        for p in st.players
        if p in st.alive and st.roles[p].value != "werewolf" and isinstance(people[p], channel) and p != "Hana"
    ]


def acts(stack: Stack) -> list[Outbox]:
    """The mutes and unmutes written (not the keyboards edited after a tap)."""
    with Session(stack.db) as s:
        return list(s.exec(select(Outbox).where(col(Outbox.action).in_(("mute", "unmute"))).order_by(col(Outbox.id))))


def test_ghosts_are_muted_in_the_group_and_let_speak_at_the_end(stack: Stack) -> None:
    stack.tg.make_admin(GROUP_ID)
    hana, people = table(stack, "/new mute ghosts on")
    assert stack.game().options[OPTION] is True
    assert any("Ghosts will be muted in this group" in t for t in hana.texts())
    ghost = victims(stack, people, TgPlayer)[0]
    uid = people[ghost].uid  # type: ignore[union-attr]
    kill_at_night(stack, people, ghost)
    calls = stack.tg.calls("restrictChatMember")
    assert [(int(c.params["chat_id"]), int(c.params["user_id"])) for c in calls] == [(GROUP_ID, uid)]
    assert calls[0].status == 200 and calls[0].params["permissions"]["can_send_messages"] is False
    assert set(stack.tg.restricted(GROUP_ID)) == {uid}
    # An SMS player who dies is not concerned: nothing is done anywhere for him. (The day may have
    # lynched someone too: every Telegram Ghost, and only they, is muted.)
    to_next_night(stack)
    sms_ghost = victims(stack, people, SmsPlayer)[0]
    kill_at_night(stack, people, sms_ghost)
    st = state(stack)
    tg_ghosts = {p.uid for n, p in people.items() if isinstance(p, TgPlayer) and n not in st.alive}
    assert uid in tg_ghosts and set(stack.tg.restricted(GROUP_ID)) == tg_ghosts
    sms_ids = {stack.identity("sms", p.number).id for p in people.values() if isinstance(p, SmsPlayer)}
    assert acts(stack) and not any(a.identity_id in sms_ids for a in acts(stack))
    muted = len(stack.tg.calls("restrictChatMember"))
    assert muted == len(tg_ghosts)
    # The host ends the game: the Ghost may speak again.
    hana.say("/end yes", chat=GROUP)
    work(stack)
    assert stack.tg.restricted(GROUP_ID) == {}
    freed = stack.tg.calls("restrictChatMember")[muted:]
    assert {int(c.params["user_id"]) for c in freed} == tg_ghosts and len(freed) == len(tg_ghosts)
    assert all(c.params["permissions"]["can_send_messages"] is True for c in freed)
    assert all(a.status == "sent" for a in acts(stack))


def test_a_bot_that_is_no_admin_tells_the_host_once_and_stops_trying(stack: Stack) -> None:
    hana, people = table(stack, "/new mute on")  # the bot is no admin of the group
    first, second = victims(stack, people, TgPlayer)[:2]
    kill_at_night(stack, people, first)
    refusals = stack.tg.calls("restrictChatMember")
    assert len(refusals) == 1 and refusals[0].status == 400
    told = [t for t in hana.texts() if "did not let me mute" in t]
    assert len(told) == 1
    assert stack.game().options[OPTION] is False  # muting is off: no act is tried again
    assert acts(stack)[0].status == "failed"
    # The Ghost's seat and messages are untouched: he is no less reachable.
    assert not stack.identity("telegram", str(people[first].uid)).unreachable  # type: ignore[union-attr]
    to_next_night(stack)
    if second in state(stack).alive and stack.game().status == "running":
        kill_at_night(stack, people, second)
    assert len(stack.tg.calls("restrictChatMember")) == 1
    assert len([t for t in hana.texts() if "did not let me mute" in t]) == 1


def test_a_ghost_telegram_will_not_let_us_mute_is_tried_once(stack: Stack) -> None:
    stack.tg.make_admin(GROUP_ID)
    hana, people = table(stack, "/new mute on")
    ghost = victims(stack, people, TgPlayer)[0]
    uid = people[ghost].uid  # type: ignore[union-attr]
    stack.tg.make_admin(GROUP_ID, uid)  # an admin of the group: Telegram refuses to restrict him
    kill_at_night(stack, people, ghost)
    assert [c.status for c in stack.tg.calls("restrictChatMember")] == [400]
    # Not the bot's rights: muting stays on for the others, and the host is not bothered.
    assert stack.game().options[OPTION] is True
    assert not any("did not let me mute" in t for t in hana.texts())
    to_next_night(stack)
    if stack.game().status == "running":
        stack.finish_phase()
        work(stack)
    tried = [c for c in stack.tg.calls("restrictChatMember") if int(c.params["user_id"]) == uid]
    assert len(tried) == 1  # not again at every turn of the game
    hana.say("/end yes", chat=GROUP)
    work(stack)
    assert [c for c in stack.tg.calls("restrictChatMember") if int(c.params["user_id"]) == uid] == tried


def test_plain_talk_in_the_group_reaches_the_sms_players(stack: Stack) -> None:
    hana, people = table(stack, "/new")
    sms = [p for p in people.values() if isinstance(p, SmsPlayer)]
    group_before = len(stack.tg.sent(GROUP_ID))
    # At night the village sleeps: nothing typed in the group is relayed.
    hana.say("who is awake?", chat=GROUP)
    work(stack)
    assert not any("who is awake" in t for p in sms for t in p.texts())
    ghost = victims(stack, people, TgPlayer)[0]
    kill_at_night(stack, people, ghost)
    assert state(stack).phase is Phase.NOMINATIONS
    speaker = next(p for p in people.values() if isinstance(p, TgPlayer) and p.first_name != ghost)
    before = {p.number: len(p.texts()) for p in sms}
    speaker.say("I trust nobody today", chat=GROUP)
    # A Ghost's words are not relayed (the rulebooks forbid the dead to speak), and he is not answered.
    dead = people[ghost]
    assert isinstance(dead, TgPlayer)
    dead.say("it was the baker!", chat=GROUP)
    # Someone in the group who does not play: neither relayed, nor answered, nor remembered.
    stranger = tg_player(stack, "Zed")
    stranger.say("what game is this?", chat=GROUP)
    work(stack)
    # By SMS the town square is held and comes, summarised, with the next phase's text.
    assert all(p.texts()[before[p.number] :] == [] for p in sms)
    stack.finish_phase()
    work(stack)
    for p in sms:
        (news,) = p.texts()[before[p.number] :]
        assert news.count(f"{speaker.first_name}: I trust nobody today") == 1, news
    assert not any("baker" in t for p in sms for t in p.texts())
    assert not any("baker" in t or "I trust nobody" in t for t in dead.texts())
    # The group read it already: nothing is echoed there; the speakers got no reply.
    assert not any("I trust nobody" in m["text"] or "baker" in m["text"] for m in stack.tg.sent(GROUP_ID))
    assert len(stack.tg.sent(GROUP_ID)) >= group_before
    assert stranger.texts() == []
    with Session(stack.db) as s:
        assert s.exec(select(Identity).where(Identity.address == str(stranger.uid))).first() is None
    # A command in the group still works as before.
    r = stack.post_update(inbound.text_update(speaker.user, "/status", chat=GROUP))
    assert r.status_code == 200
