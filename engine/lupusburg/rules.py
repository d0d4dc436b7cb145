"""The rule set ``lupusburg``: creating a game, what may be played, playing it, closing phases.

The phases (the night: the Thief, then the Werewolf; the nominations: the dawn's news, the
Burgomaster's privilege, bets, the public tokens; the ballot) are declared in ``phases.py``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from .. import phases
from ..errors import IllegalAction, InvalidSetup
from ..types import Action, Event, GameConfig, Outcome, Phase, RuleSet
from ..viewing import LupusburgPlayerView, LupusburgPublicView
from . import houses, setup, views
from .close import told
from .houses import houses_of
from .phases import PHASES, VERBS, end, not_now
from .state import LupusburgState, _frozen, _jsonable


class LupusburgRules:
    name = RuleSet.LUPUSBURG

    # -- creating ---------------------------------------------------------------------------------
    def new_game(self, config: GameConfig, seed: int) -> tuple[LupusburgState, list[Event]]:
        players = tuple(config.players)
        setup.check_names(players)
        setup.check_count(len(players))
        if config.deck or config.theme:
            raise InvalidSetup(
                "setup.fixed_deck", "Lupusburg's deck is fixed (1 Werewolf, 1 Thief, Townsfolk): no deck or theme"
            )
        options = _frozen(_jsonable(dict(config.options)))
        cards, chests = setup.deal(players, config.roles, options, seed)
        state = LupusburgState(
            rules=self.name,
            seed=seed,
            players=players,
            cards=cards,
            chests=chests,
            options=options,
            phase=Phase.NIGHT,
            phase_no=1,
            day=0,
            night=1,
            burgomaster=setup.first_burgomaster(players, options),
            alive=frozenset(cards),
            dead=(),
            lynched=(),
            choices={},
            votes=(),
            suspects=(),
            ballots={},
            privilege=None,
            bag=setup.COINS,
            draws={},
            bets={},
            knowledge={},
        )
        deck = dict(sorted(Counter(r.value for r in cards.values()).items()))
        events = [
            Event(
                "game.started",
                {
                    "rules": self.name.value,
                    "players": list(players),
                    "deck": deck,
                    "burgomaster": state.burgomaster,
                    "coins": list(setup.COINS),
                },
            )
        ]
        facts: dict[str, list[Mapping[str, Any]]] = {}
        for p in players:
            data = {
                "role": state.role_of(p).value,
                "left": cards[houses_of(p)[0]].value,
                "right": cards[houses_of(p)[1]].value,
                "chest": chests[p],
            }
            facts[p] = [{"key": "houses.dealt", **data}]
            events.append(Event("houses.dealt", data, (p,)))
        events.append(Event("phase.night", {"night": 1, "burgomaster": state.burgomaster}))
        return told(state, facts), events

    # -- asking -----------------------------------------------------------------------------------
    def legal_actions(self, state: LupusburgState, player: str) -> list[Action]:
        rule = PHASES.get(state.phase)
        if rule is None or player not in state.players:
            return []
        return [
            Action(player, verb, str(t))
            for verb, move in rule.moves.items()
            if move.targets is not None
            for t in move.targets(state, player)
        ]

    def actors(self, state: LupusburgState) -> tuple[str, ...]:
        return tuple(p for p in state.players if self.legal_actions(state, p))

    def outcome(self, state: LupusburgState) -> Outcome | None:
        return state.outcome

    # -- acting -----------------------------------------------------------------------------------
    def apply(self, state: LupusburgState, action: Action) -> tuple[LupusburgState, list[Event]]:
        actor, verb = action.actor, action.verb
        if state.phase is Phase.OVER:
            raise IllegalAction("game.over", "the game is over")
        if actor not in state.players:
            raise IllegalAction("actor.unknown", f"{actor} is not playing in this game", actor=actor)
        if verb not in VERBS:
            raise IllegalAction("power.none", f"there is no {verb.value!r} in Lupusburg", verb=verb.value)
        if action.target is None:
            raise IllegalAction("target.missing", f"say what: {verb.value} ...", verb=verb.value)
        move = PHASES[state.phase].moves.get(verb)
        target = houses.parse(state.players, action.target)
        if move is None:
            raise not_now(verb)
        return move.play(state, actor, target)

    # -- closing ----------------------------------------------------------------------------------
    def close_phase(self, state: LupusburgState) -> tuple[LupusburgState, list[Event]]:
        return phases.close_phase(PHASES, state, end)

    # -- telling ----------------------------------------------------------------------------------
    def view(self, state: LupusburgState, player: str) -> LupusburgPlayerView:
        return views.player_view(self, state, player)

    def public_view(self, state: LupusburgState) -> LupusburgPublicView:
        return views.public_view(state)

    def moderator_view(self, state: LupusburgState) -> dict[str, Any]:
        return views.moderator_view(state)

    def summary(self, state: LupusburgState) -> dict[str, Any]:
        return views.summary(state)

    def from_dict(self, raw: Mapping[str, Any]) -> LupusburgState:
        return LupusburgState.from_dict(raw)

    def parse_target(self, state: LupusburgState, text: str) -> str:
        return houses.parse(state.players, text)


RULES = LupusburgRules()
