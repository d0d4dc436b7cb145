"""What one command carries through its transaction: the session, the clock, who wrote,
and everything that must go out (replies and broadcasts, all via the outbox)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from sqlmodel import Session

from service.channels import channel
from service.channels.base import Buttons, Tap
from service.delivery.senders import KEYBOARD
from service.settings import Settings
from service.store.models import Identity
from service.store.status import OutboxStatus
from service.store.unit import Letter, unit_of
from service.texts.i18n import sms_key, t

__all__ = ["Buttons", "Ctx", "Tap"]


class Serving(Protocol):
    """What a command may ask of the application service that runs it (``service.game.app.Service``):
    named here so that the commands, which the service imports, need not import it back."""

    settings: Settings
    handles: dict[str, str]

    def random_bits(self, k: int, /) -> int:
        """Fresh random bits (a new game's seed)."""
        ...


@dataclass
class Ctx:
    session: Session
    svc: Serving
    now: datetime
    identity: Identity | None = None
    inbound_id: int | None = None
    newcomer: bool = False
    """The identity was created by this very message (at ``new`` he takes the game's language)."""
    chat: Identity | None = None
    """The group the message was written in (a Telegram group), or None for a private message."""
    replies: list[str] = field(default_factory=list)
    written: list[Letter] = field(default_factory=list)
    unreached: set[int] = field(default_factory=set)
    """Telegram users we could not write to privately (they never opened the bot)."""
    tap: Tap | None = None
    """The command is a tap on a button (see ``Tap``), not typed."""

    @property
    def lang(self) -> str:
        return self.identity.language if self.identity else self.svc.settings.DEFAULT_LANGUAGE

    def send(
        self,
        person: Identity,
        key: str,
        text: str,
        dedup: str,
        game_id: int | None = None,
        hold: bool = False,
        buttons: Buttons | None = None,
        said: bool = False,
    ) -> None:
        """Write one message to the outbox (in this transaction; the worker sends it after commit).
        ``hold``: kept back (``held``) until the game's next phase folds it into a summary.
        ``said``: written as ``merged`` and never sent alone, since another text this command
        writes him says the same (the ballot's text names the suspects).
        To a player away (he texted STOP, or blocked the bot) a game's text is written ``missed``,
        never sent: what he is told he missed when he is back (``catchup``); what is held for the
        next summary stays held, so that his next summary has it."""
        away = person.opted_out or person.unreachable
        if person.id is None or (away and (game_id is None or said)):
            return
        way = channel(person.channel)
        if not away and way.writes_first and not person.direct:
            self.unreached.add(person.id)
            return
        status = (
            OutboxStatus.HELD
            if hold
            else OutboxStatus.MERGED
            if said
            else OutboxStatus.MISSED
            if away
            else OutboxStatus.PENDING
        )
        row = Letter(
            identity_id=person.id,
            channel=person.channel,
            game_id=game_id,
            key=key,
            text=way.fold(text),
            status=status,
            not_before=self.now,
            dedup_key=dedup,
            created_at=self.now,
            buttons=buttons if buttons and way.buttons and not away else None,
        )
        self._write(row)

    def _write(self, row: Letter) -> None:
        """Stage ``row`` in the transaction's unit of work, and keep it among what this command wrote."""
        unit_of(self.session).stage(row)
        self.written.append(row)

    def act(self, person: Identity, action: str, chat: str, dedup: str, game_id: int | None = None) -> None:
        """Write an act on a chat to the outbox (``mute``/``unmute`` ``person`` in the group ``chat``):
        sent by the worker like a message, through the sender's ``act``."""
        if person.id is None or not channel(person.channel).acts:
            return
        row = Letter(
            identity_id=person.id,
            channel=person.channel,
            game_id=game_id,
            key=f"act.{action}",
            text=chat,
            action=action,
            not_before=self.now,
            dedup_key=dedup,
            created_at=self.now,
        )
        self._write(row)

    def show_buttons(
        self, person: Identity, tap: Tap, buttons: Buttons | None, dedup: str, game_id: int | None = None
    ) -> None:
        """Replace the keyboard under the message ``tap`` was made on (None: take it away), through
        the outbox like a message, so it is rate limited and retried (the sender's ``act``)."""
        if (
            person.id is None
            or not channel(person.channel).buttons
            or person.opted_out
            or person.unreachable
            or tap.chat is None
            or tap.message_id is None
        ):
            return
        where = json.dumps({"chat": tap.chat, "message_id": tap.message_id, "buttons": buttons or []})
        row = Letter(
            identity_id=person.id,
            channel=person.channel,
            game_id=game_id,
            key=f"act.{KEYBOARD}",
            text=where,
            action=KEYBOARD,
            not_before=self.now,
            dedup_key=dedup,
            created_at=self.now,
        )
        self._write(row)

    def merge_texts(self) -> None:
        """What this command wrote to one reader whose channel merges (SMS) goes out as one text, in
        order (as few texts as Twilio's length and the segment count allow): at a phase change that
        is the results, the held commentary's summary, the announcement and his numbered options
        together. Each part is a row he was going to receive anyway, so merging can show him
        nothing new. The merged text's key is ``<channel>.merged`` (``sms.merged``). It asks the
        transaction's unit of work (``service.store.unit``), which mostly still holds the rows: rewriting
        them costs no statement, and the merged rows go in the commit's one INSERT."""
        by_person: dict[int, list[Letter]] = {}
        for row in self.written:
            if row.status == OutboxStatus.PENDING:
                by_person.setdefault(row.identity_id, []).append(row)
        for rows in by_person.values():
            groups = channel(rows[0].channel).pack([r.text for r in rows])
            merged_before = False
            for group in groups or []:  # None: his channel sends each text alone
                if len(group) < 2:
                    if merged_before:  # it must come after the merged text before it (ids are the order)
                        self._behind(rows[group[0]])
                    continue
                merged_before = True
                parts = [rows[i] for i in group]
                for part in parts:
                    part.status = OutboxStatus.MERGED  # staged or written: either way this is what is kept
                name = parts[0].channel
                merged = Letter(
                    identity_id=parts[0].identity_id,
                    channel=name,
                    game_id=next((p.game_id for p in parts if p.game_id is not None), None),
                    key=f"{name}.merged",
                    text="\n".join(p.text for p in parts),
                    not_before=self.now,
                    dedup_key=f"{parts[0].dedup_key[:120]}:{name}",
                    created_at=self.now,
                )
                self._write(merged)

    def _behind(self, row: Letter) -> None:
        """Put ``row`` after the rows staged so far: a merged text, written after its parts, would
        otherwise get a higher id, so be sent later, than a text that follows it. A row already
        written (it has its id) goes as a copy staged now."""
        if unit_of(self.session).put_last(row):
            return
        row.status = OutboxStatus.MERGED
        copy = Letter(
            identity_id=row.identity_id,
            channel=row.channel,
            game_id=row.game_id,
            key=row.key,
            text=row.text,
            not_before=self.now,
            dedup_key=f"{row.dedup_key[:120]}:{row.channel}",
            created_at=self.now,
        )
        self._write(copy)

    def keyboard(
        self,
        actions: Sequence[str],
        code: str,
        lang: str,
        *,
        phase: int,
        seats: Sequence[str],
        chosen: str | None = None,
    ) -> Buttons | None:
        """The choices ``actions`` as buttons under a reply to him, where his channel has buttons."""
        if self.identity is None:
            return None
        return channel(self.identity.channel).keyboard(actions, code, lang, phase=phase, seats=seats, chosen=chosen)

    def bot_link(self, via: str, start: str | None = None) -> str:
        """The link that opens a private chat with the bot on channel ``via`` (and joins a game, with
        ``start``), or words that say where to find it while the link is not known."""
        link = channel(via).private_link(self.svc.handles.get(via), start)
        return link or t(self.lang, "svc.tg.the_bot")

    def reply(self, key: str, **data: Any) -> None:
        """Answer him with ``key``, in its short ``sms.`` form if his channel reads short and it has one."""
        short = self.identity is not None and channel(self.identity.channel).short
        self.reply_text(key, t(self.lang, sms_key(key, short), **data))

    def reply_text(self, key: str, text: str, game_id: int | None = None, buttons: Buttons | None = None) -> None:
        assert self.identity is not None
        n = len(self.replies)
        dedup = f"in{self.inbound_id}:r{n}" if self.inbound_id is not None else f"x{id(self)}:{self.now}:r{n}"
        before = len(self.written)
        self.send(self.identity, key, text, dedup, game_id=game_id, buttons=buttons)
        self.replies.append(self.written[-1].text if len(self.written) > before else text)
