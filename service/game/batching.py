"""Many messages in one transaction (group commit): who wrote them looked up together, their games
locked together, then each command run as it would run alone (``Service.handle_inbound_many``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from sqlalchemy import Engine, bindparam
from sqlmodel import Session, col, select

from service.channels.base import Incoming
from service.game.context import Ctx
from service.game.inbound import Repeat, Work
from service.store.db import is_sqlite, lock_games_ahead, transaction
from service.store.models import Identity
from service.store.unit import unit_of
from service.texts.grammar import code_of

#: Who wrote a batch (built once: see ``service.store.db``).
_IDENTITIES = select(Identity).where(
    Identity.channel == bindparam("channel"), col(Identity.address).in_(bindparam("addresses", expanding=True))
)
BATCH_LOCK_WAIT = "200ms"
"""How long a batch waits for a game another transaction holds before it gives up and runs its
commands one by one (``run_together``)."""


def run_together(
    db: Engine, clock: Callable[[], datetime], messages: Sequence[Incoming], works: Sequence[Work]
) -> tuple[list[list[str] | Exception], list[Ctx]]:
    """Each message's work in one transaction, in order: their replies, and the ctxs that wrote
    them (to hand over once committed). Anything that fails rolls back all of them."""
    results: list[list[str] | Exception] = []
    ctxs: list[Ctx] = []
    with transaction(db) as session:
        if not is_sqlite(str(db.url)):
            # A lock wait here is another transaction's game (the worker closing a phase, another
            # web process's batch, locking its games in another order): give up soon and run
            # one by one rather than wait out PostgreSQL's one-second deadlock check.
            session.connection().exec_driver_sql(f"SET LOCAL lock_timeout = '{BATCH_LOCK_WAIT}'")
        now = clock()
        _known(session, messages)
        _lock_ahead(session, messages)
        for work in works:
            try:
                result, ctx = work(session, now)
            except Repeat:  # raised before it changed anything (see inbound.work)
                result, ctx = [], None
            if ctx is not None:
                ctx.merge_texts()
                ctxs.append(ctx)
            results.append(result)
    return results, ctxs


def _known(session: Session, messages: Sequence[Incoming]) -> None:
    """Who wrote the batch's messages, and the groups they were written in, in one statement
    where each message took one: kept by the transaction's unit of work (``Unit.know``), which
    ``inbound.identity_of`` asks before the database."""
    wanted: dict[str, set[str]] = {}
    for m in messages:
        if not m.overheard:
            wanted.setdefault(m.channel, set()).add(m.address)
            if m.chat is not None:
                wanted[m.channel].add(m.chat)
    known: dict[tuple[str, str], Identity | None] = {}
    for channel, addresses in wanted.items():
        known.update(((channel, a), None) for a in addresses)
        found = session.exec(_IDENTITIES, params={"channel": channel, "addresses": sorted(addresses)})
        known.update(((i.channel, i.address), i) for i in found)
    unit_of(session).know(known)


def _lock_ahead(session: Session, messages: Sequence[Incoming]) -> None:
    """The games the batch names (``#CODE``), and for a message naming none its writer's
    current game, locked together in the order of their ids (``db.lock_games_ahead``)."""
    unit = unit_of(session)
    codes: set[str] = set()
    ids: set[int] = set()
    for m in messages:
        if m.overheard:
            continue
        code = code_of(m.text)
        if code is not None:
            codes.add(code)
        elif (who := unit.known(m.channel, m.address)[1]) is not None and who.current_game_id is not None:
            ids.add(who.current_game_id)
    lock_games_ahead(session, codes, ids)
