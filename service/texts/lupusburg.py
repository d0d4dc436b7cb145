"""Lupusburg explained as a moderator at the table would: which of its events' sentences a reader
gets (``VARIANTS``, merged into ``render.VARIANTS``) and what they need (``FILLS``), the seating with
each player's houses and the Burgomaster, what a player may do now in the game's own words (his
tokens, his privilege, the show he owes, his bet), and the scores at the end, each explained.
Built, like every text, from events their reader may read and from views (``engine.lupusburg.views``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from service.texts.houses import SIDES, side_word
from service.texts.i18n import t

#: A variant's rule (``render.Variant``): the event's data and its reader to a variant, or None.
Variant = Callable[[Mapping[str, Any], Any], "str | None"]

#: Public news of a move whose players were told it in their own words (the bettor his bet, the
#: Burgomaster what he saw, the shown player what he was shown): only the others read it.
TOLD_OTHERWISE: dict[str, tuple[str, ...]] = {
    "bet.sealed": ("player",),
    "privilege.used": ("burgomaster",),
    "privilege.answered": ("burgomaster", "player"),
}


def told_otherwise(key: str, data: Mapping[str, Any]) -> set[str]:
    """The players who do not read this public event, having been told it otherwise."""
    return {str(data.get(field)) for field in TOLD_OTHERWISE.get(key, ())}


def ballot_variant(data: Mapping[str, Any], reader: Any) -> str | None:
    """The ballot's opening: Lupusburg's (each living character that is no suspect gives a vote),
    for a reader who votes the one his options follow, and for a suspect why he has none."""
    lupusburg = "lupusburg" if data.get("burgomaster") else None
    if not lupusburg and reader.name in data.get("suspects", ()):  # told why he has no vote
        return "suspect"
    voter = "voter" if reader.acts else None
    return ".".join(x for x in (lupusburg, voter) if x) or None


def _random(data: Mapping[str, Any], _reader: Any) -> str | None:
    return "random" if data.get("random") else None


VARIANTS: dict[str, Variant] = {
    "game.started": lambda d, _r: "lupusburg" if d.get("burgomaster") else None,
    "phase.nominations": lambda d, _r: "lupusburg" if d.get("burgomaster") else None,
    "burgomaster.passed": lambda d, r: "self" if d.get("burgomaster") == r.name else None,
    "privilege.used": lambda d, r: "yours" if d.get("player") == r.name else None,
    # A fact remembered from before the shown player was told which house was looked at has no ``seen``.
    "privilege.shown": lambda d, r: _random(d, r) or ("seen" if d.get("seen") else None),
    "privilege.showed": _random,
    "bet.placed": _random,
    "day.ballot_taken": lambda d, _r: "two" if int(d.get("of") or 1) > 1 else None,
}


def _coins(data: Mapping[str, Any], _reader: Any) -> dict[str, Any]:
    coins = [str(c) for c in data.get("coins", ())]
    return {"coins": ", ".join(coins), "count": len(coins)}


def won_on_points(data: Mapping[str, Any]) -> bool:
    """Lupusburg's Townsfolk win as one player, the best scorer (RULINGS: one winner), not as a side."""
    return bool(data.get("score_table") or data.get("scores")) and data.get("team") == "townsfolk"


def _dealt(data: Mapping[str, Any], reader: Any) -> dict[str, Any]:
    """What his pair of cards makes him do, in a sentence (Lupusburg's Werewolf is not the base game's)."""
    role = str(data.get("role"))
    return {"role_help": t(reader.lang, "rolehelp.werewolf.lupusburg" if role == "werewolf" else f"rolehelp.{role}")}


FILLS: dict[str, Callable[[Mapping[str, Any], Any], dict[str, Any]]] = {
    "houses.dealt": _dealt,
    "bet.drawn": _coins,
    "privilege.seen": lambda d, _r: {"player": d.get("player") or str(d.get("house", "")).rpartition(":")[0]},
    "day.ballot_taken": lambda d, _r: {
        "votes": " + ".join(str(v) for v in d.get("votes", ())),
        "used": len(d.get("votes", ())),
    },
}


# -- the seating -------------------------------------------------------------------------------------
def seating(names: Sequence[str], pv: Mapping[str, Any], lang: str) -> str:
    """``players``: the seats, each player with what stands of his houses (both, one of them, none:
    Lupusburg's Ghost, who still votes and bets), and the Burgomaster."""
    alive = set(pv.get("alive", ()))
    items = []
    for i, name in enumerate(names, start=1):
        standing = [side for side in SIDES if f"{name}:{side}" in alive]
        mark = (
            ""
            if len(standing) == 2
            else (
                t(lang, "svc.players.one_house", side=side_word(standing[0], lang))
                if standing
                else t(lang, "svc.players.no_house")
            )
        )
        items.append(f"{i} {name}" + (f" ({mark})" if mark else ""))
    return t(lang, "svc.players.lupusburg", players=", ".join(items), burgomaster=pv.get("burgomaster"))


# -- what he may do now --------------------------------------------------------------------------------
def now_lines(view: Mapping[str, Any], actions: Sequence[str], lang: str) -> list[str]:
    """What a Lupusburg player may do now, in the game's words (``help``): from his own view and
    his legal moves, never from anyone else's secrets."""
    verbs = {a.partition(" ")[0] for a in actions}
    pv = view.get("public", {})
    lines = []
    if "kill" in verbs:
        lines.append(t(lang, "svc.help.lupusburg.kill"))
    if "peek" in verbs:
        lines.append(t(lang, "svc.help.lupusburg.peek"))
    if pv.get("phase") == "nominations" and view.get("tokens_left"):
        lines.append(t(lang, "svc.help.lupusburg.tokens", count=int(view["tokens_left"])))
    if "privilege" in verbs:
        lines.append(t(lang, "svc.help.lupusburg.privilege"))
    if "show" in verbs:
        player = str(pv.get("privilege") or "").rpartition(":")[0]
        lines.append(t(lang, "svc.help.lupusburg.show", player=player))
    if "bet" in verbs:
        lines.append(t(lang, "svc.help.lupusburg.bet"))
    if "coin" in verbs and view.get("draw"):
        draw = view["draw"]
        lines.append(
            t(lang, "svc.help.lupusburg.coin", target=draw["target"], coins=", ".join(str(c) for c in draw["coins"]))
        )
    if pv.get("phase") == "ballot" and view.get("ballot_votes"):
        lines.append(t(lang, "svc.help.lupusburg.ballot", count=int(view["ballot_votes"])))
    return lines


# -- the end -------------------------------------------------------------------------------------------
def scores_text(data: Mapping[str, Any], lang: str, sms: bool = False) -> str:
    """The end's scores, each explained (the rulebook's victory points): by SMS in a line, each total
    as characters + chest + seal; otherwise with the rule and each player's points by source."""
    table: Mapping[str, Mapping[str, int]] = data.get("score_table") or {}
    scores: Mapping[str, int] = data.get("scores") or {}
    if not table:
        return t(lang, "svc.scores", scores=", ".join(f"{p} {n}" for p, n in scores.items()))
    order = sorted(table, key=lambda p: -table[p]["total"])  # stable: the seating among equals
    if data.get("team") == "werewolf":
        wolf = next(p for p in order if table[p]["werewolf"])
        return t(
            lang,
            "sms.svc.scores.werewolf" if sms else "svc.scores.werewolf",
            werewolf=wolf,
            points=table[wolf]["werewolf"],
        )
    if sms:
        return t(lang, "sms.svc.scores.explained", scores=", ".join(_short(p, table[p], data, lang) for p in order))
    lines = [f"{p} {table[p]['total']}: {', '.join(_parts(p, table[p], data, lang))}" for p in order]
    return "\n".join([t(lang, "svc.scores.explained"), *lines])


def _is_wolf(player: str, data: Mapping[str, Any]) -> bool:
    return "werewolf" in data.get("roles", {}).get(player, ())


def _short(player: str, row: Mapping[str, int], data: Mapping[str, Any], lang: str) -> str:
    if _is_wolf(player, data):
        return t(lang, "sms.svc.scores.wolf", name=player, points=row["total"])
    return f"{player} {row['total']} ({row['characters']}+{row['chest']}+{row['seal']})"


def _parts(player: str, row: Mapping[str, int], data: Mapping[str, Any], lang: str) -> list[str]:
    """Where a player's points came from, each with its reason."""
    if _is_wolf(player, data):
        return [t(lang, "svc.scores.wolf_lost")]
    parts = []
    if row["characters"]:
        parts.append(t(lang, "svc.scores.characters", count=row["characters"] // 2, points=row["characters"]))
    if row["chest"]:
        parts.append(t(lang, "svc.scores.chest", points=row["chest"]))
    bet = data.get("bets", {}).get(player)
    if bet is None:
        parts.append(t(lang, "svc.scores.seal", points=row["seal"]))
    elif row["seal"]:
        parts.append(t(lang, "svc.scores.bet_right", target=bet["target"], points=row["seal"]))
    else:
        parts.append(t(lang, "svc.scores.bet_wrong", target=bet["target"]))
    return parts
