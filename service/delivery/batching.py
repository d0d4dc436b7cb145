"""Fitting texts to the platforms: merging queued texts for one chat, splitting texts too long for one.

A group may receive only 20 messages a minute, so when several announcements for the same group are
waiting, the worker sends them as one message instead of waiting minutes between them. A text longer
than a platform allows (Telegram 4096 characters, Twilio 1600) is split at paragraph, line or word
boundaries, never inside a word when that can be helped, and goes as consecutive messages.
``sends`` says what a chat's claimed rows go out as.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from service.channels import channel as channel_of
from service.delivery.rows import Row, chat_kind
from service.delivery.senders import Keyboard


@dataclass(frozen=True)
class Batch:
    """One message to send: its text, its buttons, and which queued items (by index) it carries."""

    text: str
    buttons: Keyboard | None
    items: tuple[int, ...]


def merge(queued: Sequence[tuple[str, Keyboard | None]], max_len: int | None = None, sep: str = "\n\n") -> list[Batch]:
    """Merge consecutive queued texts, in order, into as few messages as fit in `max_len` (None: a
    channel with no limit of ours). A text with buttons closes its batch (the buttons stay under the
    text they belong to); a text that is too long on its own travels alone (split it with `split`
    first)."""
    batches: list[Batch] = []
    text, items = "", list[int]()  # the open batch
    for i, (body, buttons) in enumerate(queued):
        joined = f"{text}{sep}{body}" if items else body
        if items and max_len is not None and len(joined) > max_len:
            batches.append(Batch(text, None, tuple(items)))
            text, items = body, [i]
        else:
            text, items = joined, [*items, i]
        if buttons:
            batches.append(Batch(text, buttons, tuple(items)))
            text, items = "", []
    if items:
        batches.append(Batch(text, None, tuple(items)))
    return batches


def split(text: str, max_len: int) -> list[str]:
    """`text` in pieces of at most `max_len` characters, cut at the last paragraph break, else line
    break, else space that fits; a single word longer than `max_len` is cut where it must be."""
    if max_len < 1:
        raise ValueError("max_len must be positive")
    pieces: list[str] = []
    rest = text.strip() if len(text) > max_len else text
    while len(rest) > max_len:
        window = rest[: max_len + 1]
        for mark in ("\n\n", "\n", " "):
            cut = window.rfind(mark)
            if cut > 0:
                head, rest = rest[:cut], rest[cut + len(mark) :]
                break
        else:
            head, rest = rest[:max_len], rest[max_len:]
        pieces.append(head.rstrip())
        rest = rest.lstrip()  # a piece never starts with the blank that ended the previous one
    pieces.append(rest)
    return [p for p in pieces if p] or [""]


@dataclass
class Send:
    """One message to send: one row, several rows merged (a group's queue), or one part of a row
    too long for one message (``part`` of ``parts``; the row is sent once its last part is)."""

    text: str
    buttons: Keyboard | None
    rows: list[Row]
    part: int = 0
    parts: int = 1

    @property
    def finishes(self) -> bool:
        return self.part == self.parts - 1


def sends(rows: Sequence[Row], prepare: Callable[[str], str] | None = None) -> list[Send]:
    """What one chat's rows (in order) go out as, in order: a text too long for one message in
    parts, from where the last attempt left off (``Row.parts_sent``); a group's texts merged into
    as few messages as fit. ``prepare``: what the sender makes of a text before sending it
    (Twilio's: GSM-7, where "…" is "..."), so that a part is measured as the platform counts it."""
    if not rows:
        return []
    first = rows[0]
    limit = channel_of(first.channel).max_len  # the longest text one message may hold
    fit = prepare or (lambda text: text)
    out: list[Send] = []
    for r in rows:
        if r.action or limit is None or len(fit(r.text)) <= limit:
            out.append(Send(r.text, r.buttons, [r]))
            continue
        pieces = split(fit(r.text), limit)
        out += [
            Send(piece, r.buttons if k == len(pieces) - 1 else None, [r], k, len(pieces))
            for k, piece in enumerate(pieces)
            if k >= r.parts_sent
        ]
    if chat_kind(first.channel, first.address) != "group" or len(out) < 2:
        return out
    merged: list[Send] = []
    run: list[Send] = []  # whole texts in a row, to merge (a part or an act travels alone)
    for send in [*out, None]:
        if send is not None and send.parts == 1 and not send.rows[0].action:
            run.append(send)
            continue
        if run:
            batches = merge([(x.text, x.buttons) for x in run], limit)
            merged += [Send(b.text, b.buttons, [r for i in b.items for r in run[i].rows]) for b in batches]
            run = []
        if send is not None:
            merged.append(send)
    return merged
