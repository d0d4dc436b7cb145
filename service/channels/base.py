"""What the core and a channel say to each other: one message in (``Incoming``), one notice out
(``Notice``), and the small ``Channel`` protocol the core asks how a notice looks on its way to
one reader of that channel (held or sent now, folded, merged, numbered, given buttons), and the
deployment what the channel makes of its settings (its sender, its rate limits, its webhook:
``Hub`` is what the web app lends a channel's routes, ``Webhook`` what it mounts of them).

The game's use cases decide what each reader must learn; the reader's channel decides how it looks.
Nothing here imports the rest of the service but for its types, so every layer may import it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from fastapi import APIRouter

    from service.delivery.limiter import Rule
    from service.delivery.senders import Sender
    from service.settings import Settings
    from service.store.models import Identity

Buttons = list[list[dict[str, str]]]


@dataclass(frozen=True)
class Tap:
    """The command came from a tap on an inline button: the phase the button was made for (None:
    a button that does not say), and the chat and message it sits under (None: Telegram did not
    send the message, as for a very old one)."""

    phase: int | None
    chat: str | None = None
    message_id: int | None = None


@dataclass(frozen=True)
class Incoming:
    """One message to act on. ``chat``: the group it was written in (a Telegram group's chat id),
    None for a private message, which also proves we may write to him privately. ``resubscribe``:
    whether the message lifts an opt-out (an SMS number that texted STOP stays opted out until
    START, but what it texts meanwhile still counts in the game). ``stop``: the message is an
    opt-out (SMS STOP): logged once like any message, the identity opted out, nothing else done.
    ``overheard``: plain talk typed in the group ``chat`` (see ``service.game.inbound``). ``tap``: the
    command came from a tap on a button (``Tap``). ``language``: the language the channel says the
    writer reads (Telegram's ``language_code``), taken by someone who writes for the first time.
    ``callback_id``: the platform's id of a tap, which the webhook answers (Telegram's callback
    query)."""

    channel: str
    address: str
    external_id: str
    text: str
    display_name: str | None = None
    chat: str | None = None
    resubscribe: bool = True
    stop: bool = False
    overheard: bool = False
    tap: Tap | None = None
    language: str | None = None
    callback_id: str | None = None

    @property
    def unusable(self) -> bool:
        """A tap whose data is empty or no button of ours: answered, and nothing else done."""
        return self.callback_id is not None and not self.text


@dataclass(frozen=True)
class Notice:
    """One thing one reader must learn: the catalog ``key`` and its ``data``, and who may read it
    (``audience``: None for everyone). How it looks is his channel's business."""

    reader: Identity
    key: str
    data: Mapping[str, Any]
    audience: Sequence[str] | None = None


OK, FAIL, SKIP = "ok", "FAIL", "-"


@dataclass(frozen=True)
class Check:
    """One line of ``lupus doctor`` or ``lupus setup``: what was checked (or done), and what it found,
    in plain words an operator can act on."""

    name: str
    status: str  # OK, FAIL or SKIP (not applicable, or not checkable from here)
    says: str

    def line(self) -> str:
        return f"{self.status:<4} {self.name}: {self.says}"


@dataclass(frozen=True)
class Credentials:
    """The settings a channel needs to work, as one process has them (``Channel.credentials``):
    ``given``, those set; ``missing``, those it needs and lacks. A channel none of whose settings is
    given is off; one with all of them is on; one with some is half set up, which cannot work."""

    given: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()

    @property
    def on(self) -> bool:
        return bool(self.given) and not self.missing

    @property
    def half(self) -> bool:
        return bool(self.given) and bool(self.missing)

    @property
    def off(self) -> str | None:
        """Why the channel is off, or None: it is on."""
        return " and ".join(self.missing) + " not set" if self.missing else None


def credentials(settings: Settings, *needs: str) -> Credentials:
    """What ``settings`` give of ``needs``, each a setting's name or ``"A or B"`` (either will do)."""
    given: list[str] = []
    missing: list[str] = []
    for need in needs:
        found = [name for name in need.split(" or ") if getattr(settings, name)]
        given += found
        if not found:
            missing.append(need)
    return Credentials(tuple(given), tuple(missing))


@dataclass(frozen=True)
class Outbound:
    """What a deployment's settings make of one channel's sending (``Channel.outbound``): its sender,
    and whose channel-wide rate budget its sends spend (``budget``: the bot, the sender number; two
    deployments that share a Redis with different bots must not share one). Without a sender the
    channel is off in this process, and ``off`` says why (its credentials are not set)."""

    sender: Sender | None
    budget: str = "default"
    off: str = ""


class Hub(Protocol):
    """What the web app lends a channel's webhook routes (``service.web.Web``)."""

    @property
    def settings(self) -> Settings: ...

    @property
    def service(self) -> Any:
        """The application service, made on first use. A channel names what it uses of it by a
        protocol of its own, so that it need not import the use cases above it."""
        ...

    @property
    def inbound(self) -> Callable[[Incoming], Awaitable[list[str]]]:
        """Hand one message to the service, committed with those that come at the same moment; its
        replies."""
        ...

    def first_command_done(self) -> None:
        """A command ran, in this thread (the web process settles its heap after the first)."""
        ...


class Webhook(Protocol):
    """A channel's webhook routes, as the web app mounts them."""

    @property
    def router(self) -> APIRouter: ...

    @property
    def updates(self) -> Collection[str]:
        """The paths whose calls bring messages (counted per channel: ``lupus_updates_received_total``)."""
        ...

    async def close(self) -> None:
        """At shutdown: what the routes hold (a connection pool)."""
        ...


class Channel(Protocol):
    """What the core asks of a channel. Each attribute is a question the core used to answer with
    ``if channel == ...``."""

    name: str
    """The name identities, outbox rows and senders carry (``telegram``, ``sms``)."""
    short: bool
    """Its readers pay and wait per text: they get the short ``sms.`` variants of the catalog, the
    numbered lists without commas, the public commentary held for a summary with the next phase,
    their moves answered with the next phase's text, the end's cards and nights on request."""
    buttons: bool
    """Texts may carry inline buttons (and a tap's keyboard may be edited)."""
    acts: bool
    """Acts on a group chat (muting a Ghost) are possible."""
    max_len: int | None
    """The most characters one message may carry (None: no limit of ours)."""
    writes_first: bool
    """A reader must write to us privately before we may write to him (Telegram: a bot may not
    start a conversation), which ``Identity.direct`` records."""

    def fold(self, text: str) -> str:
        """``text`` as this channel carries it best (GSM-7 by SMS)."""
        ...

    def shows(self, name: str) -> str | None:
        """A player's name as this channel's readers see it, and so type it (``Zoe`` for ``Zoë`` by
        SMS), or None: some of its signs they could neither see nor type (an emoji by SMS)."""
        ...

    def cannot_act(self, error: str) -> bool:
        """The platform's ``error`` for a refused act says acts cannot work in that chat at all (the
        bot lacks the rights there), so the game stops trying."""
        ...

    def group(self, address: str) -> bool:
        """Whether ``address`` is a group chat (read by many, limited as a group) and not one person."""
        ...

    def pack(self, texts: Sequence[str]) -> list[list[int]] | None:
        """One command's texts to one reader merged into as few messages as fit (groups of indices,
        in order), or None: each goes alone."""
        ...

    def cost(self, text: str) -> int:
        """What sending ``text`` spends of the rate limit (1 message, or SMS segments)."""
        ...

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
        """The choices ``actions`` as buttons under a text, or None where the channel has none."""
        ...

    def holds(self, notice: Notice, own: bool, first: bool) -> bool:
        """Whether ``notice`` waits for the summary that comes with the next phase instead of going
        now. ``own``: it answers the reader's own command; ``first``: it is of a kind
        ``answered_first`` says is answered at once, in the game's first night or day."""
        ...

    def answered_first(self, notice: Notice) -> str | None:
        """For an answer to his own move that this channel holds: in which of the game's first
        ``night`` or ``day`` it is answered at once all the same (with a word on why the next are not)."""
        ...

    def said_next(self, notice: Notice) -> bool:
        """At a phase change, ``notice`` goes without saying: the same command's next text says it."""
        ...

    def held_line(self, notice: Notice) -> str | None:
        """A held notice as one short item of the summary, or None: the item is its whole text."""
        ...

    # What a deployment makes of the channel, from the one settings object (each channel reads the
    # settings it needs): ``service.delivery.wiring`` loops over the registered channels.

    def rules(self, settings: Settings) -> Mapping[str, Sequence[Rule]]:
        """The rate limits its sends keep, for each kind of chat (``private``, ``group``: ``group``
        above), each inside what its platform enforces."""
        ...

    def outbound(self, settings: Settings) -> Outbound:
        """Its sender as ``settings`` configure it, or why it is off (its credentials are not set).
        Called once per process: the sender holds the process's connections."""
        ...

    def credentials(self, settings: Settings) -> Credentials:
        """The settings it needs to work both ways (take players' messages, send them texts), as
        ``settings`` give them: what a process refuses to start half set up, and what its heartbeat
        says it carries (``service.ops.preflight``)."""
        ...

    def webhook_off(self, settings: Settings) -> str | None:
        """Why its webhook takes nothing as ``settings`` configure it (its routes answer 404), or
        None: it is on. ``/healthz`` says it for every registered channel."""
        ...

    def webhook(self, hub: Hub) -> Webhook | None:
        """Its webhook routes, for the web app to mount (None: nothing comes to it over HTTP)."""
        ...

    # What the operator runs (``lupus setup``, ``lupus doctor``): each channel speaks to its own
    # platform, so neither command names one.

    def setup(self, settings: Settings, *, fresh: bool = False) -> list[Check]:
        """Tell its platform where the webhook is (``PUBLIC_URL``) and what else the platform keeps
        for the bot (Telegram's "/" menu); ``fresh``: forget what the platform still holds for us.
        Nothing (``[]``) when the channel is off."""
        ...

    def doctor(self, settings: Settings) -> list[Check]:
        """Its platform's side of the deployment, read from the platform (where it posts, what it
        holds back), each problem with what fixes it; one SKIP line when the channel is off."""
        ...

    def private_link(self, handle: str | None, start: str | None = None) -> str | None:
        """The link that opens a private chat with the bot (joining game ``start``), from what the
        platform calls the bot (``handle``: Telegram's username, which its webhook learns), or None."""
        ...


class Plain:
    """A channel of plain texts: no buttons, no holding, no merging, every text as written. What an
    unregistered channel name (the tests' recording channel ``test``) gets."""

    short = False
    buttons = False
    acts = False
    max_len: int | None = None
    writes_first = False

    def __init__(self, name: str) -> None:
        self.name = name

    def fold(self, text: str) -> str:
        return text

    def shows(self, name: str) -> str | None:
        return name

    def cannot_act(self, error: str) -> bool:
        return False

    def group(self, address: str) -> bool:
        return False

    def pack(self, texts: Sequence[str]) -> list[list[int]] | None:
        return None

    def cost(self, text: str) -> int:
        return 1

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
        return None

    def holds(self, notice: Notice, own: bool, first: bool) -> bool:
        return False

    def answered_first(self, notice: Notice) -> str | None:
        return None

    def said_next(self, notice: Notice) -> bool:
        return False

    def held_line(self, notice: Notice) -> str | None:
        return None

    def rules(self, settings: Settings) -> Mapping[str, Sequence[Rule]]:
        return {}  # a test brings its own policy

    def outbound(self, settings: Settings) -> Outbound:
        return Outbound(None, off=f"{self.name} has no sender of its own")

    def credentials(self, settings: Settings) -> Credentials:
        return Credentials()  # nothing to set: never half set up, never carried by a process's settings

    def webhook_off(self, settings: Settings) -> str | None:
        return None

    def webhook(self, hub: Hub) -> Webhook | None:
        return None

    def setup(self, settings: Settings, *, fresh: bool = False) -> list[Check]:
        return []

    def doctor(self, settings: Settings) -> list[Check]:
        return []

    def private_link(self, handle: str | None, start: str | None = None) -> str | None:
        return None
