"""The rule set ``tabula``: creating a game, what may be played, playing it, closing phases."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from .. import phases
from ..errors import IllegalAction, InvalidSetup
from ..types import Action, Event, GameConfig, Outcome, Phase, Role, RuleSet, Verb
from ..viewing import TabulaPlayerView, TabulaPublicView
from . import characters as _characters
from . import day, deck, themes, views
from .character import CHARACTERS, Power, extra_holders, pack, powers_of, slot_holders
from .characters import werewolf
from .phases import PHASES, finish
from .state import TabulaState
from .table import Table

_ = _characters, themes

#: The order of the cards as ``Role`` declares them (deal hooks run in it).
ROLE_ORDER = {r: i for i, r in enumerate(Role)}

#: A player's choices: each verb with its targets (``(None,)`` for a verb that names nobody).
Choices = tuple[tuple[Verb, tuple[str | None, ...]], ...]


def check_names(players: tuple[str, ...]) -> None:
    """Refuse names that cannot be typed as targets."""
    if len({p.casefold() for p in players}) != len(players):
        raise InvalidSetup("setup.duplicate_name", "two players have the same name")
    for p in players:
        if p.split() != [p] or ":" in p or p.startswith("#"):  # one word, no space around it
            raise InvalidSetup("setup.bad_name", f"{p!r} cannot be a player's name (one word, no ':' or '#')", name=p)


class TabulaRules:
    name = RuleSet.TABULA
    phases = PHASES
    """The night, the nominations and the ballot (``phases.py``); ``aura`` plays the same ones,
    its differences being in its cards and tiles."""

    # -- creating ---------------------------------------------------------------------------------
    def deal(self, config: GameConfig, seed: int) -> dict[str, Role]:
        players = config.players
        if config.roles:
            return deck.fixed(players, {p: str(r) for p, r in config.roles.items()}, config.theme)
        cards = deck.build(len(players), config.deck, config.theme, seed)
        return deck.deal(players, cards, seed)

    def new_game(self, config: GameConfig, seed: int) -> tuple[TabulaState, list[Event]]:
        players = tuple(config.players)
        check_names(players)
        roles = self.deal(config, seed)
        options = dict(config.options)
        if config.theme:
            options.setdefault("theme", config.theme)
            for key, value in deck.theme_options(config.theme, len(players)).items():
                options.setdefault(key, value)
        state = TabulaState(
            rules=self.name,
            seed=seed,
            players=players,
            roles=roles,
            options=options,
            phase=Phase.NIGHT,
            phase_no=1,
            day=0,
            night=1,
            alive=frozenset(players),
            dead=(),
            lynched=(),
            welcome=None,
            choices={},
            votes=(),
            ballots={},
            suspects=(),
            marks={},
            knowledge={},
        )
        return self.start(state)

    def public_deck(self, state: TabulaState) -> dict[str, Any]:
        """What everyone is told of the deck when the game starts."""
        deck_counts = Counter(r.value for r in state.roles.values())
        return {"deck": dict(sorted(deck_counts.items()))}

    def start(self, state: TabulaState) -> tuple[TabulaState, list[Event]]:
        table = Table(state, "deal")
        table.announce("game.started", rules=state.rules.value, players=list(state.players), **self.public_deck(state))
        for p in state.players:
            table.tell(p, "role.dealt", role=state.roles[p].value)
        for role in sorted(set(state.roles.values()), key=ROLE_ORDER.__getitem__):
            hook = CHARACTERS[role].on_deal
            if hook is not None:
                hook(table)
        table.announce("phase.night", night=1)
        return table.freeze(), table.events

    # -- asking -----------------------------------------------------------------------------------
    def _offers(self, state: TabulaState, player: str, powers: tuple[Power, ...]) -> Choices:
        """What the player's ``powers`` let him do now, each verb with its targets."""
        out: list[tuple[Verb, tuple[str | None, ...]]] = []
        for power in powers:
            if power.usable(state, player):
                targets: tuple[str | None, ...] = (None,) if power.no_target else tuple(power.targets(state, player))
                if targets:
                    out.append((power.verb, targets))
        return tuple(out)

    def legal_choices(self, state: TabulaState, player: str) -> list[tuple[Verb, tuple[str | None, ...]]]:
        """What the player may do now: each verb with its legal targets (``(None,)`` for none)."""
        if state.phase is Phase.OVER or player not in state.roles:
            return []
        return list(dict(self.choices(state, (player,))).get(player, ()))

    def legal_actions(self, state: TabulaState, player: str) -> list[Action]:
        return [Action(player, verb, t) for verb, targets in self.legal_choices(state, player) for t in targets]

    def choices(self, state: TabulaState, players: tuple[str, ...] | None = None) -> tuple[tuple[str, Choices], ...]:
        """Every actor with his legal choices (``engine.choices``), in seating order: his day
        vote first (a nomination until he has cast it, a ballot vote if he may cast one), then
        what his powers offer (``players``: ask only these)."""
        phase = state.phase
        if phase is Phase.OVER:
            return ()
        asked = state.players if players is None else players
        vote: tuple[Verb, tuple[str | None, ...]] | None = None
        voters: set[str] = set()
        if phase is Phase.NOMINATIONS:
            vote, voters = (Verb.VOTE, state.living()), set(asked) - day.voted(state)
        elif phase is Phase.BALLOT:
            vote, voters = (Verb.VOTE, state.suspects), set(day.ballot_voters(state))
        extra, roles = extra_holders(state), state.roles
        out = []
        for p in asked:
            powers = CHARACTERS[roles[p]].powers + extra.get(p, ())  # powers_of, for each player
            found = self._offers(state, p, powers) if powers else ()  # most players hold none
            if vote is not None and p in voters:
                found = (vote, *found)
            if found:
                out.append((p, found))
        return tuple(out)

    def actors(self, state: TabulaState) -> tuple[str, ...]:
        return tuple(p for p, _ in self.choices(state))

    def outcome(self, state: TabulaState) -> Outcome | None:
        return state.outcome

    # -- acting -----------------------------------------------------------------------------------
    def apply(self, state: TabulaState, action: Action) -> tuple[TabulaState, list[Event]]:
        actor, verb, _ = action
        phase = state.phase
        rule = self.phases.get(phase)
        move = rule.moves.get(verb) if rule is not None else None
        if move is not None and actor in state.roles:
            return move.play(state, actor, action.target)  # the phase's own moves (the day's votes)
        if phase is Phase.OVER:
            raise IllegalAction("game.over", "the game is over")
        if actor not in state.roles:
            raise IllegalAction("actor.unknown", f"{actor} is not playing in this game", actor=actor)
        power = next((pw for pw in powers_of(state, actor) if pw.verb is verb and pw.usable(state, actor)), None)
        if power is None:  # no usable power of that verb
            raise self._why_not(state, action)
        target = action.target
        if power.no_target:
            target = None
        elif target is None:
            raise IllegalAction("target.missing", f"say whom: {action.verb.value} NAME", verb=action.verb.value)
        elif target not in power.targets(state, actor):
            if power.target_hint is not None:
                raise IllegalAction("target.not_allowed", power.target_hint, target=target)
            raise self._bad_target(state, actor, target)
        if power.immediate is not None:
            return power.immediate(state, actor, target)
        slot = power.slot_for(actor)
        choices = dict(state.choices)
        changed = slot in choices
        choices[slot] = (action.verb, target)
        new = state.evolve(choices=choices)
        channel, to = self._audience(new, actor, power, slot)
        data = {"actor": actor, "verb": action.verb.value, "target": target, "changed": changed}
        events = [Event("night.choice" if state.phase is Phase.NIGHT else "day.choice", data, to, channel)]
        if slot.startswith("pack:"):  # the pack told at once when its choices differ
            events += werewolf.split(state, new, actor)
        return new, events

    def _audience(self, state: TabulaState, actor: str, power: Power, slot: str) -> tuple[str | None, tuple[str, ...]]:
        """Who sees a choice: the actor alone, or the channel sharing its slot (the pack, a copied Seer)."""
        if slot.startswith("pack:"):
            return "werewolves", pack(state)
        if "{actor}" in power.slot:
            return None, (actor,)
        sharers = slot_holders(state, slot)
        return (slot, sharers) if len(sharers) > 1 else (None, (actor,))

    def _why_not(self, state: TabulaState, action: Action) -> IllegalAction:
        """Why the player holds no usable power of the action's verb."""
        mine = [p for p in powers_of(state, action.actor) if p.verb is action.verb]
        if action.verb is Verb.VOTE:
            return IllegalAction("vote.not_now", "votes are cast by day: wait for the morning")
        if not mine:
            return IllegalAction(
                "power.none",
                f"you cannot {action.verb.value}: your character has no such power",
                verb=action.verb.value,
            )
        p = mine[0]
        if action.actor not in state.alive and not p.as_ghost:
            return IllegalAction("actor.dead", "Ghosts cannot act")
        if state.phase not in p.phases:
            when = "at night" if Phase.NIGHT in p.phases else "by day"
            return IllegalAction(
                "power.wrong_phase", f"you can {action.verb.value} only {when}", verb=action.verb.value
            )
        return IllegalAction("power.not_now", p.why_not, verb=action.verb.value)

    def _bad_target(self, state: TabulaState, actor: str, target: str) -> IllegalAction:
        if target not in state.roles:
            return IllegalAction("target.unknown", f"there is no player called {target}", target=target)
        if target == actor:
            return IllegalAction("target.self", "you cannot choose yourself")
        if target not in state.alive:
            return IllegalAction("target.dead", f"{target} is dead", target=target)
        return IllegalAction("target.not_allowed", f"you cannot choose {target}", target=target)

    # -- closing ----------------------------------------------------------------------------------
    def close_phase(self, state: TabulaState) -> tuple[TabulaState, list[Event]]:
        return phases.close_phase(self.phases, state, finish)

    # -- telling ----------------------------------------------------------------------------------
    def view(self, state: TabulaState, player: str) -> TabulaPlayerView:
        return views.player_view(self, state, player)

    def public_view(self, state: TabulaState) -> TabulaPublicView:
        return views.public_view(state)

    def moderator_view(self, state: TabulaState) -> dict[str, Any]:
        return views.moderator_view(state)

    def summary(self, state: TabulaState) -> dict[str, Any]:
        return views.summary(state)

    def from_dict(self, raw: Mapping[str, Any]) -> TabulaState:
        return TabulaState.from_dict(raw)

    def parse_target(self, state: TabulaState, text: str) -> str:
        for p in state.players:
            if p.casefold() == text.casefold():
                return p
        return text


RULES = TabulaRules()
