"""How the game looks by SMS, where a reader pays and waits per segment: the short ``sms.`` texts,
the public commentary held for one summary with the next phase, his own moves answered with the
next phase's text, one command's texts merged into as few SMS as fit, everything in GSM-7.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.texts import houses
from service.texts.digest import NEWS_KEYS, SQUARE_KEYS
from service.texts.i18n import t

#: What an SMS reader is not sent at a phase change, since the same command's next text says it:
#: the suspects (the ballot's text names them, ``sms.phase.ballot``). The row is written, ``merged``.
SAID_NEXT = frozenset({"day.suspects"})
#: The public running commentary an SMS reader takes summarised in his next phase's text instead
#: of one text each (a day's nominations alone were ten texts): talk, each nomination, each join;
#: in Lupusburg each seal used and the Burgomaster's privilege (told at once to those it concerns).
HELD_KEYS = SQUARE_KEYS | NEWS_KEYS | {"day.vote", "svc.joined", "svc.left"}
#: The answers to an SMS reader's own moves, held: the next phase's text shows his nominations among
#: everyone's and what came of his night. Only his moves of the first night and the first day's
#: nominations are answered at once, with a word on this (``sms.own.first``); a refused or unclear
#: move is answered at once, as any error. A secret ballot is always answered at once: nothing
#: shows it before the ballots are revealed, and he may change it (``status`` shows it too).
OWN_HELD_KEYS = frozenset({"day.vote", "night.choice"})
#: Of those, the ones answered at once in the game's first night or day: (key, "night" or "day").
FIRST_ANSWERED = {"night.choice": "night", "day.vote": "day"}


def held_line(key: str, data: Mapping[str, Any], lang: str) -> str | None:
    """A piece of public commentary as one item of the summary an SMS reader gets with the next
    phase (``digest.digest_text``): a nomination as ``ann>bob``, a join as the name; None: the
    item is its whole text."""
    if key == "day.vote":  # a Lupusburg house with its side in his language, short
        target = houses.label(str(data.get("target")), lang, sms=True)
        return t(lang, "sms.held.vote", voter=data.get("voter"), target=target)
    if key == "svc.joined":
        return str(data.get("name"))
    return None
