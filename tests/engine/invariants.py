"""Invariants checked on every step of random playouts (shared by the rule sets' property tests)."""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

import engine
from engine import Action, Event, GameConfig, Phase, Role, Verb
from engine.playout import play_out

ROLE_NAMES = {r.value for r in Role}

#: Public events allowed to name characters before the end (the deck's make-up at the start;
#: rule sets add their public reveals, such as the Deadalive's).
PUBLIC_ROLE_KEYS = {"game.started", "game.over"}

#: Private answers to a look, which may name the card looked at.
LOOKS = {"seer.result", "fortune_teller.result", "darius.result", "hamlet.peek"}


def strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from strings(k)
            yield from strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from strings(v)


def channel_members(state: Any, channel: str) -> set[str]:
    from engine.tabula.character import CHARACTERS, became, is_wolf

    out = set()
    for p in state.players:
        own = CHARACTERS[state.roles[p]].channel
        b = became(state, p)
        if own == channel or (b is not None and CHARACTERS[b].channel == channel):
            out.add(p)
        if channel == "werewolves" and is_wolf(state, p):
            out.add(p)
    return out


def check_event_audience(before: Any, after: Any, event: Event) -> None:
    """No event tells a player a character he may not know."""
    if event.key == "game.over":
        return
    if event.to is None:
        named = ROLE_NAMES & set(strings(dict(event.data)))
        assert not named or event.key in PUBLIC_ROLE_KEYS, f"public {event.key} names {named}"
        return
    if event.channel is None:
        assert len(event.to) == 1, f"{event.key} to several players without a channel: {event.to}"
    else:
        members = channel_members(before, event.channel) | channel_members(after, event.channel)
        assert set(event.to) <= members, f"{event.key} on {event.channel} reached {set(event.to) - members}"
    for p in event.to:
        allowed = {after.roles[p].value}
        b = after.marks.get("became", {}).get(p)
        if b:
            allowed.add(b)
        if event.channel:
            allowed.add(event.channel)
        target = event.data.get("target")
        if event.key in LOOKS and isinstance(target, str) and target in after.roles:
            allowed.add(after.roles[target].value)  # a look may show the card itself (the Aura variant)
        named = (ROLE_NAMES & set(strings(dict(event.data)))) - allowed
        assert not named, f"{event.key} tells {p} ({after.roles[p].value}) of {named}"


class Checker:
    """Plays one random game, asserting the invariants at every step."""

    def __init__(self, config: GameConfig, seed: int) -> None:
        self.config = config
        self.seed = seed
        self.prev: Any = None
        self.events: list[Event] = []
        n = len(config.players)
        self.max_phases = 3 * (n + 3)

    def step(self, action: Action | None, state: Any, events: list[Event]) -> None:
        prev = self.prev
        if prev is not None:
            if action is not None:
                self.check_actor(prev, action)
            revived = any(e.key.endswith("revived") for e in events)
            if not revived:
                assert set(state.alive) <= set(prev.alive), "a dead player came back"
            for e in events:
                check_event_audience(prev, state, e)
            if action is None and state.phase is not Phase.OVER:
                assert engine.from_json(engine.to_json(state)) == state
        assert state.phase_no <= self.max_phases, "the game does not end"
        self.events.extend(events)
        self.prev = state

    def check_actor(self, prev: Any, action: Action) -> None:
        if action.actor in prev.alive:
            return
        if action.verb is Verb.VOTE and prev.phase is Phase.NOMINATIONS:
            return  # Ghosts vote in the nominations
        if prev.actor_is_walking(action.actor) if hasattr(prev, "actor_is_walking") else False:
            return
        if action.actor in prev.marks.get("walking", ()):
            return
        from engine.tabula.character import powers_of

        assert any(pw.as_ghost and pw.verb is action.verb for pw in powers_of(prev, action.actor)), \
            f"dead {action.actor} played {action.text()}"

    def run(self) -> Any:
        final = play_out(self.config, self.seed, random.Random(self.seed), max_phases=self.max_phases + 1,
                         on_step=self.step)
        assert final.phase is Phase.OVER, "the game did not end"
        return final
