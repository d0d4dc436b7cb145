"""Many tables of `tests/delivery/mixed.py`'s kind on one database, each with its own addresses: a
Telegram group, a host and players on Telegram who read it, and (at some tables) three players by
SMS. Played through the service, so what a close writes is what a real close writes."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session

from service.store.models import Game
from tests.delivery.mixed import SMS_NAMES, Mixed
from tests.worker.conftest import NAMES


class Table(Mixed):
    """Table `n`: group -(1000 + n), host 10^6 * (n + 1), players the host's id + 1..8; SMS
    players (if `sms`) +39 333 n fay/gus/hal. One clock per table, moved by `close` only."""

    def __init__(self, db: Engine, n: int, sms: bool, **kwargs: Any) -> None:
        super().__init__(db, seed=n + 1, **kwargs)
        self.n, self.sms, self.group = n, sms, str(-(1000 + n))
        base = 1_000_000 * (n + 1)
        self.addr = {name: str(base + 1 + i) for i, name in enumerate(NAMES)}
        self.addr["host"] = str(base)
        if sms:
            for i, name in enumerate(SMS_NAMES):
                self.addr[name] = f"+39333{n:05d}{i}"
        self.game_id: int | None = None

    def channel(self, name: str) -> str:
        return "sms" if self.sms and name in SMS_NAMES else "telegram"

    def say_as(self, name: str, text: str, in_group: bool = False) -> list[str]:
        channel = "telegram" if name == "host" else self.channel(name)
        return self.svc.handle_inbound(
            channel, self.addr[name], f"t{self.n}m{next(self._n)}", text, chat=self.group if in_group else None
        )

    def game(self) -> Game:
        if self.game_id is None:  # in the lobby, right after "new": the newest game is this one
            game = super().game()
            self.game_id = game.id
            return game
        with Session(self.db) as s:
            found = s.get(Game, self.game_id)
            assert found is not None
            return found

    def act(self) -> None:
        """Wolves kill at night, everyone votes for a wolf by day (as the mixed game's test plays)."""
        phase = self.phase().value
        if phase == "night":
            for wolf in self.wolves():
                self.say_as(wolf, f"kill {next(p for p in self.alive() if p not in self.wolves())}")
        elif phase == "nominations":
            for voter in self.alive():
                self.say_as(voter, f"vote {self.wolves()[0]}")
        elif phase == "ballot":
            suspects = self.state().suspects  # type: ignore[attr-defined]
            for voter in (p for p in self.alive() if p not in suspects):
                self.say_as(voter, f"vote {suspects[0]}")
