"""Invariants checked on every step of random playouts (shared by the rule sets' property tests)."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import Any

import engine
from engine import Action, Event, GameConfig, Phase, Role, RuleSet, Verb
from engine.playout import OnStep, play_out
from engine.tabula.character import CHARACTERS, is_wolf

ROLE_NAMES = {r.value for r in Role}

#: Public events allowed to name characters before the end (the deck's make-up at the start;
#: rule sets add their public reveals, such as the Deadalive's).
PUBLIC_ROLE_KEYS = {"game.started", "game.over"}

#: Private answers to a look, which may name the card looked at.
LOOKS = {"seer.result", "fortune_teller.result", "darius.result", "hamlet.peek"}

#: Night answers the rulebook's order gives before the Werewolves' phase: a Seer slaughtered that
#: same night has had his answer, in the channel he shares with a Mythomaniac too.
BEFORE_THE_PACK = {"seer.result", "fortune_teller.result", "darius.result"}


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
    from engine.tabula.character import became

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


def to_a_team(event: Event) -> bool:
    """Addressed to a team: a channel's members, or several players at once."""
    return event.to is not None and (event.channel is not None or len(event.to) > 1)


def check_team_audience(before: Any, after: Any, event: Event) -> None:
    """No event addressed to a team reaches a dead player: a dead player's card stays secret
    and a Ghost "no longer plays as a character". Not a Ghost of an earlier phase (one revived
    in this step is alive again), nor one who died in this step, but for the night's answers
    given before the Werewolves' phase. What the rulebooks give Ghosts (Baron Samedi's
    revival) is their own choice, told to them alone."""
    if not to_a_team(event) or after.rules is RuleSet.LUPUSBURG:  # Lupusburg tells one player at a time
        return
    for p in event.to or ():
        assert p in before.alive or p in after.alive, f"{event.key} on {event.channel} reached the Ghost {p}"
        assert p in after.alive or event.key in BEFORE_THE_PACK, (
            f"{event.key} on {event.channel} reached {p}, who died as it happened"
        )


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
                check_team_audience(prev, state, e)
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

        assert any(pw.as_ghost and pw.verb is action.verb for pw in powers_of(prev, action.actor)), (
            f"dead {action.actor} played {action.text()}"
        )

    def run(self) -> Any:
        final = play_out(
            self.config, self.seed, random.Random(self.seed), max_phases=self.max_phases + 1, on_step=self.step
        )
        assert final.phase is Phase.OVER, "the game did not end"
        return final


def swap_secrets(state: Any, viewer: str, rnd: random.Random) -> Any:
    """Another state that differs only in secrets the viewer does not know."""
    known = {viewer}
    for fact in state.knowledge.get(viewer, ()):
        for v in fact.values():
            if isinstance(v, str):
                known.add(v)
            elif isinstance(v, tuple):
                known.update(x for x in v if isinstance(x, str))
    others = [p for p in state.players if p not in known]
    if len(others) < 2:
        return None
    a, b = rnd.sample(others, 2)
    roles = dict(state.roles)
    roles[a], roles[b] = roles[b], roles[a]
    # Wolves know one another: a swap must not change who is a wolf in the viewer's eyes.
    if is_wolf(state, viewer) and (CHARACTERS[roles[a]].wolf != CHARACTERS[state.roles[a]].wolf):
        return None
    knowledge = dict(state.knowledge)
    knowledge[a], knowledge[b] = state.knowledge.get(b, ()), state.knowledge.get(a, ())
    choices = {k: v for k, v in state.choices.items() if not (k.endswith(":" + a) or k.endswith(":" + b))}
    ballots = dict(state.ballots)
    for voter in (a, b):  # how they voted is secret, that they voted is not
        if voter in ballots and len(state.suspects) == 2:
            ballots[voter] = next(s for s in state.suspects if s != ballots[voter])
    return state.evolve(roles=roles, knowledge=knowledge, choices=choices, ballots=ballots)


def _collect(into: list[Any]) -> OnStep:
    """An ``on_step`` that keeps every state the game passes through."""
    return lambda _action, state, _events: into.append(state)


def views_private(config_for: Callable[[int, random.Random], GameConfig], seeds: Iterable[int]) -> int:
    """Play a game per seed; at sampled states, swap two other players' secrets and check that a
    player's view and the public view stay identical. Returns how many pairs were compared."""
    compared = 0
    for seed in seeds:
        rnd = random.Random(seed)
        states: list[Any] = []
        play_out(config_for(seed, rnd), seed, random.Random(seed), on_step=_collect(states))
        for state in rnd.sample(states, min(6, len(states))):
            if state.phase is Phase.OVER:
                continue
            for viewer in rnd.sample(list(state.players), 3):
                other = swap_secrets(state, viewer, rnd)
                if other is None or other == state:
                    continue
                assert engine.view(state, viewer) == engine.view(other, viewer)
                assert engine.public_view(state) == engine.public_view(other)
                compared += 1
    return compared
