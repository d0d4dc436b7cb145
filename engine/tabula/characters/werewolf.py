"""Werewolf: hunts with the pack at night.

The pack learns its members when the cards are dealt. Each night every living Werewolf
names a victim (``kill X``; in ``tabula`` never a Werewolf); at close the target named by
most living Werewolves dies, a tie broken at random. A Bodyguard's protection, a
Werewolf-proof target or a Zombie means nobody dies. Another character may override the
pack's choice by setting ``table.scratch['pack_victim']`` before this step (Lara).
"""

from __future__ import annotations

from collections.abc import Iterable

from ...types import Event, Role, RuleSet, Team, Verb
from ..auras import AURA
from ..character import Character, Power, card, is_wolf, night_step, pack, register, wolves
from ..state import TabulaState
from ..table import Table

ORDER = 70
CHANNEL = "werewolves"


def pack_targets(state: TabulaState, actor: str) -> Iterable[str]:
    """Another living player who is not a Werewolf. The Aura variant lets them claw their own
    cards, a lone Werewolf his own, to discard an Aura and divert suspicion: only while that card
    still has its Aura ("they can choose to slaughter their own Aura cards")."""
    members = wolves(state)
    if state.rules is RuleSet.AURA:
        auras = state.marks.get(AURA, {})
        return [p for p in state.living() if p not in members or p in auras]
    return [p for p in state.living() if p != actor and p not in members]


HUNT = Power(Verb.KILL, "pack:{actor}", targets=pack_targets)


def _deal(table: Table) -> None:
    members = pack(table.start, living_only=False)
    table.tell(members, "werewolf.pack", channel=CHANNEL, members=list(members))


WEREWOLF = register(
    Character(
        Role.WEREWOLF,
        Team.WEREWOLVES,
        reads_as_were=True,
        wicked=True,
        wolf=True,
        powers=(HUNT,),
        on_deal=_deal,
        unique=False,
        channel=CHANNEL,
    )
)


def _named(state: TabulaState) -> dict[str, str]:
    """Each living Werewolf's victim so far, in seating order."""
    found = [
        (slot[5:], c[1])
        for slot, c in state.choices.items()
        if slot.startswith("pack:") and c[1] is not None and slot[5:] in state.alive
    ]
    return dict(sorted(found, key=lambda pc: state.players.index(pc[0])))


def split(before: TabulaState, after: TabulaState, actor: str) -> list[Event]:
    """The pack told at once when a choice leaves its choices differing, with how the bot settles
    it at dawn (the rulings: the target named by most living Werewolves, a tie drawn by the game's
    generator; Lara's choice of another Werewolf overrides, ``overridden``). Only the pack reads it:
    it says nothing the pack's own choices did not show it."""
    now = _named(after)
    if len(set(now.values())) < 2 or _named(before).get(actor) == now.get(actor):
        return []
    overridden = any(after.roles[p] is Role.LARA and is_wolf(after, t) for p, t in now.items() if t in after.alive)
    return [Event("werewolf.split", {"choices": now, "overridden": overridden}, pack(after), CHANNEL)]


def pack_victim(table: Table) -> str | None:
    """The target named by most living Werewolves; a tie is broken by the game's generator."""
    start = table.start
    named = [t for actor, t in table.choices_with_prefix("pack:") if actor in start.alive and t is not None]
    if not named:
        return None
    counts: dict[str, int] = {}
    for t in named:
        counts[t] = counts.get(t, 0) + 1
    top = max(counts.values())
    tied = sorted(t for t, n in counts.items() if n == top)
    if len(tied) == 1:
        return tied[0]
    return table.rng.choice(tied)


@night_step(ORDER, "werewolves")
def slaughter(table: Table) -> None:
    victim = table.scratch.get("pack_victim") or pack_victim(table)
    if victim is None or victim not in table.alive:
        return
    start = table.start
    # Who named him (Lara alone, when she turned on one of the pack): the notebook's killers.
    named = [a for a, t in table.choices_with_prefix("pack:") if t == victim and a in start.alive]
    if victim in table.protected:
        guards = [a for a, t in table.choices_with_prefix("protect:") if t == victim and a in start.alive]
        if guards:  # else a tile kept the Claw off him (``auras.place_claw``): his Potion tells it
            table.note("saved", player=victim, cause=CAUSE, by=named, why="protected", savers=guards)
    elif card(start, victim).wolf_proof:
        table.note("saved", player=victim, cause=CAUSE, by=named, why="wolf_proof")
    else:
        table.kill(victim, CAUSE, by=named)


#: How the notebook (``Table.note``) and the death hooks name the pack's kill.
CAUSE = "werewolves"
