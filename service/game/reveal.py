"""The end of a game, told: each player whether he won, and everyone what happened, night by night,
from the engine's notebook (``service.texts.history``). Nothing of the notebook is read before the
game is over or a host ended it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import engine
from engine import GameState
from service.channels import channel as channel_of
from service.game.context import Ctx
from service.store.models import Game, Identity, Seat
from service.texts.history import history_text
from service.texts.i18n import t

#: The notebook and how many nights were played.
History = tuple[list[Mapping[str, Any]], int]


class Ending(Protocol):
    """What the end needs of the game that ended (a ``service.game.room.Room``, which calls it:
    named here so that this module need not import it back)."""

    ctx: Ctx
    game: Game
    id: int
    state: GameState | None

    def log(
        self,
        kind: str,
        key: str,
        data: Mapping[str, Any],
        audience: Sequence[str] | None = None,
        channel: str | None = None,
    ) -> int: ...

    def public_people(self) -> list[Identity]: ...

    def seated(self) -> list[tuple[Seat, Identity]]: ...

    def in_group(self, person: Identity) -> bool: ...


def history(state: GameState | None) -> History | None:
    """What happened, once told: the public view's notebook when the game is over, the Moderator's
    when a host ended it (then every card is shown too); None while it runs."""
    if state is None:
        return None
    view: Mapping[str, Any] = engine.public_view(state)
    if view.get("status") != engine.Phase.OVER:
        view = engine.moderator_view(state)
    notes = list(view.get("history") or ())
    nights = int(view.get("night") or 0)
    if view.get("phase") == "night":  # a host ended it during a night: that one was never resolved
        nights -= 1
    return (notes, nights) if notes else None


def tell_the_end(room: Ending) -> None:
    """The game is over (``game.over`` was told): who won, then what happened."""
    tell_winners(room)
    tell_history(room)


def tell_winners(room: Ending) -> None:
    """A player reads whether he won in his own end text (``render.game_over``), but one who reads
    the game in its Telegram group read it there, with everyone: he learns his own result privately."""
    outcome = engine.outcome(room.state) if room.state is not None else None
    if outcome is None:
        return
    for seat, person in room.seated():
        if room.in_group(person):
            key = "svc.end.won" if seat.name in outcome.winners else "svc.end.lost"
            room.ctx.send(
                person,
                key,
                t(person.language, key, code=room.game.code),
                f"g{room.id}:won:i{person.id}",
                game_id=room.id,
            )


def tell_history(room: Ending) -> None:
    """Everyone learns what happened (the cards came with the end's text); an SMS reader on request,
    as his end text says (``sms.end.more``: ``status``)."""
    told = history(room.state)
    if told is None:
        return
    notes, nights = told
    seq = room.log("event", "svc.reveal", {"history": notes})
    for person in room.public_people():
        if channel_of(person.channel).short:
            continue
        room.ctx.send(
            person,
            "svc.reveal",
            history_text(notes, nights, person.language),
            f"g{room.id}:e{seq}:i{person.id}",
            game_id=room.id,
        )
