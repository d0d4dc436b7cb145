"""How the game looks on Telegram: choices as inline buttons bound to their phase, the keyboard
marked with the choice made, and the localized "/" menu.

A button carries the game, the phase it was made for and the move with seats for players
(``#ABCD/4 vote 3``, ``button_data``), read back by ``read_button`` when it is tapped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.texts import houses
from service.texts.choices import seat_number
from service.texts.grammar import ENGINE_VERBS
from service.texts.i18n import t
from service.texts.render import verb_word

#: Telegram's limit on a button's callback data, in bytes.
MAX_DATA = 64
#: What our buttons carry: ``#CODE/PHASE move`` (a button made before buttons carried their phase
#: reads ``#CODE move``: acted on as a tap from a phase that is over).
BUTTON = re.compile(r"^#([A-Za-z0-9]{3,8})(?:/(\d{1,9}))? ([a-z]+(?: \S+)?)$")


def button_data(code: str, phase: int, move: str) -> str:
    """A button's callback data: the game, the phase it is for, the move (``#ABCD/4 vote 3``)."""
    data = f"#{code}/{phase} {move}"
    if len(data.encode()) > MAX_DATA or BUTTON.match(data) is None:
        raise ValueError(f"no button can carry {data!r}")
    return data


def read_button(data: str) -> tuple[str, int | None] | None:
    """A button's data as the move typed with its game (``#ABCD vote 3``) and the phase the button
    was made for; None for data no button of ours carries."""
    m = BUTTON.match(data.strip())
    if m is None or m.group(3).split()[0] not in ENGINE_VERBS:
        return None
    return f"#{m.group(1)} {m.group(3)}", int(m.group(2)) if m.group(2) else None


CHOSEN = "\u2713 "
"""Marks the button of the choice made (Telegram only: SMS has no buttons)."""


def buttons(
    actions: Sequence[str],
    code: str,
    lang: str,
    *,
    phase: int,
    seats: Sequence[str],
    chosen: str | None = None,
    per_row: int = 3,
) -> list[list[dict[str, str]]]:
    """The same choices as inline buttons, each bound to its moment: a tap sends the game, the phase
    the button was made for and the move with seats for players (``#ABCD/4 vote 3``: short whatever
    the names, see ``button_data``), so a tap from a phase that is over changes
    nothing. One row of names per verb (wrapped), the verb shown when there are several; ``chosen``
    (a move) is marked, for the keyboard edited after a tap."""
    verbs = list(dict.fromkeys(a.partition(" ")[0] for a in actions))
    rows: list[list[dict[str, str]]] = []
    for verb in verbs:
        row: list[dict[str, str]] = []
        for a in actions:
            v, _, target = a.partition(" ")
            if v != verb:
                continue
            shown = houses.label(target, lang)  # a Lupusburg house in the reader's language
            label = shown or verb_word(lang, v)
            if target and len(verbs) > 1:
                label = f"{verb_word(lang, v)} {shown}"
            typed = f"{v} {seat_number(target, seats) or target}" if target else v
            row.append({"text": CHOSEN + label if a == chosen else label, "data": button_data(code, phase, typed)})
            if len(row) == per_row:
                rows.append(row)
                row = []
        if row:
            rows.append(row)
    return rows


#: What Telegram says when the bot may not restrict members of that chat (not an admin, no right
#: to restrict, or a basic group): muting Ghosts cannot work in that game (``service.game.ghosts``).
NO_RIGHTS = ("not enough rights", "supergroup", "not an administrator", "chat_admin_required")


def no_rights(error: str) -> bool:
    """Telegram refused an act on a group because of the bot's rights there."""
    return any(w in error.lower() for w in NO_RIGHTS)


#: Telegram's "/" menu (setMyCommands), by scope: what a player writes most to the bot privately,
#: and in a game's group (where everything is public: no night's verbs).
MENU = {
    "private": ("help", "status", "role", "players", "vote", "new", "games", "lang"),
    "group": ("help", "new", "join", "begin", "status", "players", "vote"),
}
#: Each command's word in each language: a word the grammar reads as that command (``begin`` is
#: ``start``, Telegram's own ``/start`` being "open the bot").
MENU_WORDS = {
    "en": {
        "help": "help",
        "status": "status",
        "role": "role",
        "players": "players",
        "vote": "vote",
        "new": "new",
        "games": "games",
        "lang": "lang",
        "join": "join",
        "begin": "begin",
    },
    "it": {
        "help": "aiuto",
        "status": "stato",
        "role": "ruolo",
        "players": "giocatori",
        "vote": "vota",
        "new": "nuova",
        "games": "partite",
        "lang": "lingua",
        "join": "entra",
        "begin": "inizia",
    },
    "es": {
        "help": "ayuda",
        "status": "estado",
        "role": "rol",
        "players": "jugadores",
        "vote": "votar",
        "new": "nueva",
        "games": "partidas",
        "lang": "idioma",
        "join": "unirse",
        "begin": "empezar",
    },
}


def menu(lang: str, scope: str) -> list[tuple[str, str]]:
    """The "/" menu of ``scope`` (``private``, ``group``) in ``lang``: (command, description)."""
    return [(MENU_WORDS[lang][c], t(lang, f"tg.menu.{c}")) for c in MENU[scope]]
