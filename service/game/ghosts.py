"""Muting Ghosts in a game's Telegram group (a host option: ``mute on|off``, off by default).

The rulebooks forbid Ghosts to speak; the bot already relays nothing a Ghost writes, but in a
Telegram group he could still type where everyone reads. With the option on and the bot an admin
of the group (a supergroup, with the right to restrict members), each Ghost who reads the game in
the group is restricted there (``restrictChatMember``, no sending), and let speak again when he
comes back (Baron Samedi), leaves the seat, or the game ends.

``sync`` compares who should be muted with who is (the last mute or unmute row written for each
person in the game's outbox; a mute Telegram refused is not tried again) and writes the
difference as outbox rows whose ``action`` is ``mute`` or ``unmute``: the act goes out through the
outbox like every message, rate limited and retried.
It is cheap and idempotent, so it is called wherever the answer may change: after every change of
the engine state, when a seat changes hands, when the game ends, when the host flips the option.

If Telegram refuses (400 "not enough rights", or a basic group, where restricting does not exist),
the worker reports the row, and ``service.game.failures.tell_hosts_mute_refused`` tells the game's hosts
once and turns the option off for that game (``refused_for_rights``), so nothing is tried again
and again. Only a channel with acts on chats (Telegram's ``Channel.acts``) is concerned: ``Ctx.act``
writes nothing for the others. A Ghost whose
messages cannot reach him privately (he blocked the bot) is not muted: the worker drops every row
for an unreachable person.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from sqlmodel import col, select

import engine
from engine import GameState
from service.channels import channel as channel_of
from service.game.context import Ctx
from service.store.models import Game, Identity, Outbox, Seat
from service.store.status import GameStatus, OutboxStatus
from service.store.unit import unit_of

OPTION = "mute_ghosts"
MUTE, UNMUTE = "mute", "unmute"


class Table(Protocol):
    """What muting needs of a game loaded for one command (a ``service.game.room.Room``, which calls
    ``sync``: named here so that this module need not import it back)."""

    ctx: Ctx
    game: Game
    id: int
    state: GameState | None
    people: dict[int, Identity]

    def group(self) -> Identity | None: ...

    def seated(self) -> list[tuple[Seat, Identity]]: ...

    def in_group(self, person: Identity) -> bool: ...


def enabled(game: Game) -> bool:
    return bool(game.options.get(OPTION, False))


def wanted(room: Table) -> dict[int, Identity]:
    """The people who should be muted now: Ghosts seated in a running game who read it in its group."""
    if not enabled(room.game) or room.game.status != GameStatus.RUNNING or room.state is None:
        return {}
    speakers = set(engine.public_view(room.state)["speakers"])
    return {p.id: p for s, p in room.seated() if p.id is not None and s.name not in speakers and room.in_group(p)}


def last_acts(room: Table) -> dict[int, tuple[str, str]]:
    """The last mute or unmute written for each person in this game: (action, outbox status)."""
    s = room.ctx.session
    with unit_of(s).reading(Outbox, staged=lambda o: o.action in (MUTE, UNMUTE)):  # those of this transaction too
        rows = s.exec(
            select(Outbox.identity_id, Outbox.action, Outbox.status)
            .where(Outbox.game_id == room.id, col(Outbox.action).in_((MUTE, UNMUTE)))
            .order_by(col(Outbox.id))
        ).all()
    return {pid: (str(action), status) for pid, action, status in rows}


def sync(room: Table) -> None:
    """Write the mutes and unmutes that bring the group in line with the game. A mute is tried once:
    one Telegram refused (he is an admin of the group, he blocked the bot) is not written again and
    again; an unmute goes only to those a mute may have reached."""
    group = room.group()
    if group is None:
        return
    want, last = wanted(room), last_acts(room)
    tried = {pid for pid, (action, _) in last.items() if action == MUTE}
    muted = {pid for pid, (action, status) in last.items() if action == MUTE and status != OutboxStatus.FAILED}
    tag = f"g{room.id}:p{room.game.phase_no}:v{room.game.version}"
    for pid in sorted(want.keys() - tried):
        room.ctx.act(want[pid], MUTE, group.address, f"{tag}:{MUTE}:i{pid}", game_id=room.id)
    for pid in sorted(muted - want.keys()):
        person = room.people.get(pid) or room.ctx.session.get(Identity, pid)
        if person is not None:
            room.ctx.act(person, UNMUTE, group.address, f"{tag}:{UNMUTE}:i{pid}", game_id=room.id)


def refused_for_rights(rows: Iterable[Outbox]) -> list[int]:
    """Of the acts the platform refused (the worker's ``Report.refused``), the games where the reason
    is the bot's rights in the group, as the channel reads its error (``Channel.cannot_act``): muting
    there would be refused every time, so it is turned off and the hosts are told
    (``service.game.failures.tell_hosts_mute_refused``)."""
    return sorted(
        {
            r.game_id
            for r in rows
            if r.game_id is not None
            and r.action in (MUTE, UNMUTE)
            and channel_of(r.channel).cannot_act(r.last_error or "")
        }
    )
