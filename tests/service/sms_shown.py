"""Where an SMS player read a row that was held for him and not sent as it is (English texts)."""

from __future__ import annotations

import re

from service.store.models import Outbox
from service.texts.digest import SMS_OWN_VOTE


def shown(row: Outbox, sent: str, reader: str | None = None) -> bool:
    """Whether ``sent`` (all he was sent, joined) carries a held row's news: a nomination
    ``ann>bob`` as ``bob(...ann...)`` in a summary; his own secret ballot among the revealed ones
    (cast by ``reader``, if given); his own night choice by the dawn; the suspects by the ballot's
    line, or for a voter by his options under it; a join by the start text, which tells him to ask
    for the seating (``players``, checked in
    ``test_joins_go_without_saying_when_the_game_starts_and_the_seating_is_his_on_request``)."""
    if row.key in ("day.vote", SMS_OWN_VOTE):
        voter, target = row.text.split(">")
        return re.search(rf"Votes: .*\b{re.escape(target)}\([^)\n]*\b{re.escape(voter)}\b", sent) is not None
    if row.key == "day.ballot_taken":
        target = re.escape(row.text.split("Secret vote for ")[1].split(" ")[0])
        by = rf"[^)\n]*\b{re.escape(reader)}\b" if reader else ""
        return re.search(rf"Ballots: .*\b{target}\({by}", sent) is not None
    if row.key == "night.choice":  # his own: the dawn says what came of it
        return "\nDawn. " in f"\n{sent}"
    if row.key == "day.suspects":
        names = row.text.removeprefix("Suspects: ").split(".")[0].split(", ")  # a tie's reason after
        offered = r"\nReply: vote " + " ".join(rf"\d+ {re.escape(n)}" for n in names) + r"(\n|$)"
        return f"\nBallot: {' or '.join(names)}, until " in f"\n{sent}" or bool(re.search(offered, f"\n{sent}"))
    if row.key == "svc.joined":
        return "Seating: text players." in sent
    return False
