"""Incoming SMS (Twilio's form posts) as commands, and Twilio's delivery reports.

- ``JOIN CODE NAME`` joins; a name is needed, since a phone number is never shown to anyone (the
  number is the address only, never a display name).
- The texts number every list by seat, so ``VOTE 3`` is seat 3 whatever list came last.
- STOP (and Twilio's other opt-out words, alone in a message) opts the number out: nothing is
  texted to it until START, while its seat stays and what it texts still counts. Twilio blocks a
  number that texted STOP at carrier level too (error 21610), so a text written anyway would
  only fail. START (or YES, UNSTOP) from an opted-out number lifts it and answers with help.
  HELP is our help. With Twilio's Advanced Opt-Out the form says which it was (``OptOutType``).
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from typing import Protocol

from sqlalchemy import Engine
from sqlmodel import Session, select
from twilio.request_validator import RequestValidator

from service.store.db import transaction
from service.store.models import Identity, Outbox
from service.texts.grammar import fold


class Service(Protocol):
    """What a text from a phone is handed to: the application service (``service.game.app.Service``),
    named by what is used of it, so that the channel need not import the use cases above it."""

    db: Engine

    def handle_inbound(
        self,
        channel: str,
        address: str,
        external_id: str,
        text: str,
        display_name: str | None = None,
        *,
        chat: str | None = None,
        resubscribe: bool = True,
        stop: bool = False,
        overheard: bool = False,
    ) -> list[str]: ...


CHANNEL = "sms"
STOP_WORDS = frozenset({"stop", "stopall", "unsubscribe", "cancel", "end", "quit", "revoke", "optout"})
START_WORDS = frozenset({"start", "unstop", "yes"})
#: Delivery reports in the order they happen: a late "sent" must not overwrite "delivered".
STATUS_RANK = {
    "accepted": 0,
    "scheduled": 0,
    "queued": 1,
    "sending": 2,
    "sent": 3,
    "delivered": 4,
    "read": 5,
    "undelivered": 6,
    "failed": 6,
    "canceled": 6,
}
OPTED_OUT_ERRORS = frozenset({"21610"})


def signed(url: str, form: Mapping[str, str], signature: str, auth_token: str | None) -> bool:
    """Twilio signed this form posted to ``url`` (``X-Twilio-Signature``). Behind Heroku's or Fly's
    proxy the request's own URL says http and another host: ``url`` is the public one it called."""
    return bool(signature) and bool(RequestValidator(auth_token or "").validate(url, dict(form), signature))


def from_account(form: Mapping[str, str], account_sid: str | None) -> bool:
    """The form is about our Twilio account (``AccountSid``)."""
    return hmac.compare_digest(form.get("AccountSid", "").encode(), (account_sid or "").encode())


def cleaned(form: Mapping[str, str]) -> dict[str, str]:
    """The form without NUL bytes, which PostgreSQL refuses anywhere in a text (a MessageSid or a
    number with one was a 500)."""
    return {k.replace("\x00", ""): v.replace("\x00", "") for k, v in form.items()}


#: Longer than any MessageSid ("SM" and 32 hex digits) or sender ("whatsapp:+" and 15 digits)
#: Twilio sends, and well inside the columns that store them (a longer one was a 500).
LONGEST_FIELD = 64


def well_formed(form: Mapping[str, str], *fields: str) -> bool:
    """Each of ``fields`` is there and no longer than Twilio would send it."""
    return all(0 < len(form.get(name, "")) <= LONGEST_FIELD for name in fields)


def keyword(form: Mapping[str, str]) -> str | None:
    """ "stop", "start" or None: what Twilio says (Advanced Opt-Out), else a keyword alone in the body."""
    kind = form.get("OptOutType", "").strip().lower()
    if kind in ("stop", "start"):
        return kind
    word = fold(form.get("Body", "").strip())
    if word in STOP_WORDS:
        return "stop"
    if word in START_WORDS:
        return "start"
    return None


def opted_out(svc: Service, number: str) -> bool:
    with Session(svc.db) as s:
        person = s.exec(select(Identity).where(Identity.channel == CHANNEL, Identity.address == number)).first()
        return bool(person and person.opted_out)


def handle(svc: Service, form: Mapping[str, str]) -> None:
    """One incoming SMS, once (its MessageSid is the key)."""
    sid, number, body = form["MessageSid"], form["From"], form.get("Body", "")
    kind = keyword(form)
    if kind == "stop":
        svc.handle_inbound(CHANNEL, number, sid, body, stop=True)
    elif kind == "start" and opted_out(svc, number):
        svc.handle_inbound(CHANNEL, number, sid, "help", resubscribe=True)
    else:
        svc.handle_inbound(CHANNEL, number, sid, body, resubscribe=False)


def record_status(svc: Service, dedup_key: str, form: Mapping[str, str]) -> bool:
    """A delivery report for the outbox row ``dedup_key``; False if there is no such row. A number
    Twilio reports as opted out (21610) is marked so, as if it had texted STOP."""
    status = form.get("MessageStatus") or form.get("SmsStatus") or ""
    status = status.strip().lower()[:16]
    error = form.get("ErrorCode", "").strip()
    with transaction(svc.db) as s:
        row = s.exec(select(Outbox).where(Outbox.dedup_key == dedup_key)).first()
        if row is None:
            return False
        if STATUS_RANK.get(status, 0) >= STATUS_RANK.get(row.delivery or "", -1):
            row.delivery = status
        if error:
            row.last_error = f"twilio {error}"[:2000]
            if error in OPTED_OUT_ERRORS and (person := s.get(Identity, row.identity_id)) is not None:
                person.opted_out = True
                s.add(person)
        s.add(row)
    return True
