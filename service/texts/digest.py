"""The summary a reader gets with the next phase of what was held for him (``Room.flush_digests``):
who joined, the nominations by target with who cast them, the talk. Channel-neutral: a digest reader
on any channel gets one; a reader whose channel reads short (SMS) gets the talk cut short.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from service.store.models import Outbox
from service.texts import houses, render
from service.texts.i18n import t

#: Keys that are talk in the town square: held for players who take it as a digest.
SQUARE_KEYS = frozenset({"svc.talk.relay", "svc.talk.moderator"})
#: The held copy of a short reader's own nomination answered at once (the first day's): his answer
#: promised that the next phase's text shows it, so the summary has it among everyone's.
SMS_OWN_VOTE = "sms.held.own_vote"
#: Held rows that are nominations, as the summary reads them (``sms.held.vote``).
VOTE_KEYS = frozenset({"day.vote", SMS_OWN_VOTE})
#: Held public news that is no talk: Lupusburg's seals used and the Burgomaster's privilege, each in
#: its short form, said together before the square's talk.
NEWS_KEYS = frozenset({"bet.sealed", "privilege.used", "privilege.answered"})


#: Held rows a summary leaves out, as the next phase's text says them or what came of them: his own
#: secret ballot (the ballots are revealed with the lynching), his own night choice (the dawn).
SHOWN_AFTER = frozenset({"day.ballot_taken", "night.choice"})


def vote_pairs(
    texts: Sequence[str], voters: Sequence[str], lang: str, shown: Callable[[str], str] = str
) -> dict[str, tuple[str, str]]:
    """Each nomination's held line (``sms.held.vote``) read back to its (voter, target), by the
    voter's part of the line: a name may hold any character the line uses, a target may be a house.
    ``shown``: what the reader's channel made of the line (``Zoë>Sue`` reaches an SMS reader as
    ``Zoe>Sue``), so that every vote is found whatever the letters of its voter's name."""
    out: dict[str, tuple[str, str]] = {}
    for voter in voters:
        # A name has no line break, and every channel keeps one: the mark between the two parts.
        head, _, tail = shown(t(lang, "sms.held.vote", voter=voter, target="\n")).partition("\n")
        for text in texts:
            if text.startswith(head) and text.endswith(tail) and len(text) > len(head) + len(tail):
                out.setdefault(text, (voter, text[len(head) : len(text) - len(tail)]))
    return out


def digest_text(
    rows: Sequence[Outbox],
    lang: str,
    pairs: Mapping[str, tuple[str, str]] | None = None,
    seating_shown: bool = False,
    sms: bool = False,
) -> str:
    """Held rows as one summary: who joined (unless the seating follows), the nomination votes by
    target with who cast them (``bob(ann,cat) eve(dan)``), then the talk and the rest as the digest
    has always read; by SMS with the talk kept short (``square_lines``). Empty when there is
    nothing to say."""
    lobby = ("svc.joined", "svc.left")
    joined = [r.text for r in rows if r.key == "svc.joined" and not seating_shown]
    votes = [r.text for r in rows if r.key in VOTE_KEYS]
    news = [r.text for r in rows if r.key in NEWS_KEYS]
    rest = [
        r
        for r in rows
        if r.key not in (*VOTE_KEYS, *lobby, *SHOWN_AFTER, *NEWS_KEYS) or (r.key == "svc.left" and not seating_shown)
    ]
    known = [pairs[v] for v in votes if pairs and v in pairs]
    parts = []
    if joined:
        parts.append(t(lang, "sms.held.joined", names=", ".join(joined)))
    if votes:
        listed = [render.grouped(known, lang)] if known else []
        listed += [v for v in votes if not pairs or v not in pairs]
        parts.append(t(lang, "sms.held.votes", votes=" ".join(listed)))
    parts += news
    if rest:
        lines, cut = square_lines(rest, lang) if sms else ([r.text for r in rest], False)
        parts.append(t(lang, "svc.digest", count=len(rest), lines=" | ".join(lines)))
        if cut:
            parts.append(t(lang, "sms.digest.more"))
    return " ".join(parts)


def missed_text(news: Sequence[str], votes: Sequence[tuple[str, str]], lang: str, short: bool = False) -> str:
    """What a player back after STOP missed, in one text (``catchup``): the news told while he was
    away (a dawn's deaths, a ballot's), then the nominations so far by target (``bob(ann,cat)``)."""
    parts = list(news)
    if votes:
        by_target = [(voter, houses.label(target, lang, short)) for voter, target in votes]
        parts.append(t(lang, "sms.held.votes", votes=render.grouped(by_target, lang)))
    return t(lang, "svc.catchup.missed", news=" ".join(parts))


#: By SMS a talk item of the summary is cut to ``TALK_ITEM`` characters, and the talk shown stops
#: at about ``SQUARE_ROOM`` (the rest counted): one 4,000-character message from a Telegram player
#: would otherwise make every SMS player's phase text thirty segments, and a lively day's square
#: ten. ``more`` texts the whole square of his last summary (``service.game.more``).
TALK_ITEM = 80
SQUARE_ROOM = 320


def square_lines(rows: Sequence[Outbox], lang: str) -> tuple[list[str], bool]:
    """The summary's items by SMS, each talk item cut short, and whether anything was left out."""
    lines: list[str] = []
    used, cut = 0, False
    for i, row in enumerate(rows):
        text = row.text
        if row.key in SQUARE_KEYS:
            short = clip(text, TALK_ITEM)
            cut = cut or short != text
            if lines and used + len(short) > SQUARE_ROOM:
                lines.append(t(lang, "sms.digest.left", count=len(rows) - i))
                return lines, True
            text = short
        lines.append(text)
        used += len(text) + 3
    return lines, cut


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, at a word where one is near, marked ``...``."""
    if len(text) <= limit:
        return text
    head = text[: limit - 3]
    space = head.rfind(" ")
    if space > limit * 2 // 3:
        head = head[:space]
    return head.rstrip() + "..."
