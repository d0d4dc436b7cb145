"""The texts a player asks for about where he stands: ``status`` (the phase, who lives, the tally, his
own choices; the moderator's whole table) and ``role`` (his card and all it has told him). Built, like
every text, from his own view and the public one (``service.texts.render``), never from the state."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from engine import Phase
from engine.viewing import PlayerView, PublicView, TabulaPlayerView
from service.texts import houses, lupusburg
from service.texts.history import history_text
from service.texts.i18n import deadline_text, has, role_name, t
from service.texts.render import (
    Info,
    Reader,
    counts,
    event_text,
    names,
    role_help,
    roles_by_card,
    roles_line,
    side_count,
    sms_key,
    verb_word,
)


def seating(names: Sequence[str], pv: PublicView | None, lang: str) -> tuple[str, str]:
    """``players``: the table numbered by seat (the numbers every list of the game uses, ``vote 3``),
    ``+`` marking a Ghost; in the lobby, who is in. Lupusburg's says what stands of each player's
    houses, and who holds the Burgomaster (``lupusburg.seating``). Returns the key and the text."""
    if pv is not None and "burgomaster" in pv:
        return "svc.players.seating", lupusburg.seating(names, pv, lang)
    alive = set(pv["alive"]) if pv is not None else set(names)
    listed = ", ".join(f"{i} {n}" + ("" if n in alive else " +") for i, n in enumerate(names, start=1))
    # Once the game runs, the list is the seating (an SMS player's start text sends him here for it).
    key = "svc.players" if pv is None else "svc.players.seating"
    return key, t(lang, key, players=listed)


def phase_label(pv: PublicView, lang: str) -> tuple[str, str]:
    phase = pv["phase"]
    n = pv["night"] if phase == "night" else pv["day"]
    number = t(lang, "svc.night_n", n=n) if phase in ("night", "nominations", "ballot") else ""
    return t(lang, f"phase.name.{phase}"), number


def status_text(
    pv: PublicView,
    reader: Reader,
    info: Info,
    paused: bool,
    moderator_view: Mapping[str, Any] | None = None,
    history: tuple[Sequence[Mapping[str, Any]], int] | None = None,
) -> str:
    """The game now (a game begun: its view has every key up to ``winners``); once it is over, the
    winners, every card and (``history``: the notebook and how many nights were played) what
    happened, which an SMS reader's end text leaves to this answer."""
    lang = reader.lang
    if pv["status"] == Phase.OVER:
        line = roles_by_card if reader.sms else roles_line
        key = "svc.status.over.points" if lupusburg.won_on_points(pv) else "svc.status.over"
        lines = [
            t(
                lang,
                key,
                code=info.code,
                team=t(lang, f"team.{pv.get('team')}"),
                count=side_count(pv.get("team")),
                winners=names(pv["winners"], lang),
            ),
            t(lang, sms_key("svc.status.roles", reader.sms), roles=line(pv.get("roles", {}), {}, lang)),
        ]
        if history:
            lines.append(history_text(history[0], history[1], lang, reader.sms))
        if pv.get("score_table"):  # Lupusburg's scores, each explained (an SMS end text has them short)
            lines.append(lupusburg.scores_text(pv, lang))
        return "\n".join(lines)
    phase, number = phase_label(pv, lang)
    shown = houses.localize(dict(pv), lang, reader.sms)  # a Lupusburg house in his language
    # Paused, the phase has no deadline to be "until": the line says it is paused instead.
    lines = [
        t(
            lang,
            "svc.status.paused" if paused else "svc.status",
            code=info.code,
            phase=phase,
            number=number,
            deadline=deadline_text(info.deadline, info.tz, lang),
            alive=names(shown["alive"], lang),
            dead=names(shown["dead"], lang),
        )
    ]
    if pv.get("burgomaster"):
        lines.append(t(lang, "svc.status.burgomaster", burgomaster=pv.get("burgomaster")))
    if pv.get("tally"):
        lines.append(t(lang, "svc.status.tally", tally=counts(shown["tally"])))
    if pv.get("suspects"):
        lines.append(t(lang, "svc.status.suspects", suspects=names(shown["suspects"], lang)))
    if moderator_view is not None:
        lines.append(t(lang, "svc.status.roles", roles=roles_line(moderator_view.get("roles", {}), {}, lang)))
        chosen = "; ".join(
            f"{_chooser(slot, lang)}: {verb_word(lang, v)} {houses.label(tg or '', lang)}".strip()
            for slot, (v, tg) in moderator_view.get("choices", {}).items()
        )
        if chosen:
            lines.append(t(lang, "svc.status.choices", choices=chosen))
    return "\n".join(lines)


def _chooser(slot: str, lang: str) -> str:
    """Who made a night choice, for the moderator: ``pack:ann`` is ann's; ``seer`` is the card's."""
    if ":" in slot:
        return slot.split(":", 1)[1]
    return role_name(lang, slot) if has("en", f"role.{slot}") else slot


def role_text(view: PlayerView, reader: Reader, info: Info) -> str:
    """His card, what became of it, and every fact he was told (a Lupusburg player's view has no
    ``alive`` of its own: he is never a Ghost)."""
    lang = reader.lang
    role = view["role"]
    lines = [t(lang, "svc.role", role=role_name(lang, role), role_help=role_help(lang, role))]
    mine = cast("TabulaPlayerView", view)
    if "became" in mine:
        lines.append(role_name(lang, role) + " -> " + role_name(lang, mine["became"]))
    if not mine.get("alive", True):
        lines.append(t(lang, sms_key("svc.role.ghost", reader.sms)))
    facts = [f for f in view["knowledge"] if f.get("key") != "role.dealt"]
    if facts:
        lines.append(t(lang, "svc.role.learned"))
        for f in facts:
            data = {k: v for k, v in f.items() if k != "key"}
            lines.append("- " + event_text(str(f["key"]), data, reader, info))
    return "\n".join(lines)
