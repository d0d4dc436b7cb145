"""Tables quickly laid in the sandbox: robots that take seats, a whole game of eight with one
click. A part of ``Sandbox`` (``service.sandbox.world``), written over what it offers (``Host``)."""

from __future__ import annotations

from typing import Protocol

from sqlmodel import Session, col, select

from service.game.app import Service
from service.sandbox.phones import Phone
from service.store.models import Game, Identity
from service.store.status import GameStatus


class Host(Protocol):
    """What of the sandbox laying a table needs."""

    service: Service | None

    def add_phone(self, name: str | None = None, channel: str = "telegram", robot: bool = False) -> Phone: ...

    def say(self, name: str, text: str) -> int: ...


class Tables:
    def add_robots(self: Host, code: str, count: int = 1) -> list[str]:
        """`count` robots join game `code` (each on a phone of his own); they play once it starts.
        ``ValueError`` when there is no game in its lobby by that code (nobody could join it)."""
        assert self.service is not None
        wanted = code.strip().lstrip("#").upper()
        with Session(self.service.db) as s:
            game = s.exec(select(Game).where(col(Game.code) == wanted)).first()
        if game is None:
            raise ValueError(f"There is no game #{wanted}.")
        if game.status != GameStatus.LOBBY:
            raise ValueError(f"#{wanted} is {game.status}: robots join a game in its lobby.")
        names = []
        for i in range(count):
            robot = self.add_phone(channel="sms" if i % 3 == 2 else "telegram", robot=True)
            self.say(robot.name, f"join {wanted} {robot.name}")
            names.append(robot.name)
        return names

    def quick_game(
        self: Host, humans: tuple[tuple[str | None, str], ...] = ((None, "telegram"), (None, "sms")), size: int = 8
    ) -> str:
        """A game of `size`: the first human hosts it, the other humans join, robots fill the other
        seats, the host starts it. Returns its code."""
        people = [self.add_phone(name, channel) for name, channel in humans]
        host = people[0]
        self.say(host.name, "new")
        code = Tables._hosted_by(self, host)
        for p in people:
            self.say(p.name, f"join {code} {p.name}")
        Tables.add_robots(self, code, size - len(people))
        self.say(host.name, "start")
        return code

    def _hosted_by(self: Host, phone: Phone) -> str:
        assert self.service is not None
        with Session(self.service.db) as s:
            code = s.exec(
                select(Game.code)
                .join(Identity, col(Identity.id) == col(Game.host_id))
                .where(Identity.channel == phone.channel, Identity.address == phone.address)
                .order_by(col(Game.id).desc())
            ).first()
        if code is None:
            raise RuntimeError(f"{phone.name} could not create a game")
        return code
