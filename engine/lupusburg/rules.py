"""The rule set ``lupusburg``: creating a game, what may be played, playing it, closing phases.

Phases: the night (the Thief, then the Werewolf), the nominations (the day: the dawn's news,
the Burgomaster's privilege, bets, the public tokens), the ballot, and so on until the end.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from ..errors import IllegalAction, InvalidSetup
from ..rng import rng
from ..types import Action, Event, GameConfig, Outcome, Phase, RuleSet, Verb
from . import bets, burgomaster, houses, night, scoring, setup, thief, views, voting, werewolf
from .close import Close, told
from .houses import SIDE_WORDS, SIDES, houses_of, owner, side_of
from .state import LupusburgState, _frozen, _jsonable

DAY_VERBS = {Verb.PRIVILEGE, Verb.SHOW, Verb.BET, Verb.COIN}
NIGHT_VERBS = {Verb.PEEK, Verb.KILL}


class LupusburgRules:
    name = RuleSet.LUPUSBURG

    # -- creating ---------------------------------------------------------------------------------
    def new_game(self, config: GameConfig, seed: int) -> tuple[LupusburgState, list[Event]]:
        players = tuple(config.players)
        setup.check_names(players)
        setup.check_count(len(players))
        if config.deck or config.theme:
            raise InvalidSetup("setup.fixed_deck",
                               "Lupusburg's deck is fixed (1 Werewolf, 1 Thief, Townsfolk): no deck or theme")
        options = _frozen(_jsonable(dict(config.options)))
        cards, chests = setup.deal(players, config.roles, options, seed)
        state = LupusburgState(
            rules=self.name, seed=seed, players=players, cards=cards, chests=chests, options=options,
            phase=Phase.NIGHT, phase_no=1, day=0, night=1,
            burgomaster=setup.first_burgomaster(players, options), alive=frozenset(cards), dead=(),
            lynched=(), choices={}, votes=(), suspects=(), ballots={}, privilege=None, bag=setup.COINS,
            draws={}, bets={}, knowledge={},
        )
        deck = dict(sorted(Counter(r.value for r in cards.values()).items()))
        events = [Event("game.started", {"rules": self.name.value, "players": list(players), "deck": deck,
                                         "burgomaster": state.burgomaster, "coins": list(setup.COINS)})]
        facts: dict[str, list[Mapping[str, Any]]] = {}
        for p in players:
            data = {"role": state.role_of(p).value, "left": cards[houses_of(p)[0]].value,
                    "right": cards[houses_of(p)[1]].value, "chest": chests[p]}
            facts[p] = [{"key": "houses.dealt", **data}]
            events.append(Event("houses.dealt", data, (p,)))
        events.append(Event("phase.night", {"night": 1, "burgomaster": state.burgomaster}))
        return told(state, facts), events

    # -- asking -----------------------------------------------------------------------------------
    def legal_actions(self, state: LupusburgState, player: str) -> list[Action]:
        if state.phase is Phase.OVER or player not in state.players:
            return []
        out: list[Action] = []

        def add(verb: Verb, targets: Any) -> None:
            out.extend(Action(player, verb, str(t)) for t in targets)

        if state.phase is Phase.NIGHT:
            if thief.can_peek(state, player):
                add(Verb.PEEK, thief.targets(state, player))
            if werewolf.can_kill(state, player):
                add(Verb.KILL, werewolf.targets(state, player))
        elif state.phase is Phase.NOMINATIONS:
            if voting.tokens_left(state, player) > 0:
                add(Verb.VOTE, state.living())
            if burgomaster.may_use_privilege(state, player):
                add(Verb.PRIVILEGE, burgomaster.privilege_targets(state, player))
            if player == state.burgomaster and burgomaster.pending_show(state):
                add(Verb.SHOW, SIDES)
            if bets.may_bet(state, player):
                add(Verb.BET, bets.bet_targets(state, player))
            add(Verb.COIN, bets.coin_choices(state, player))
        elif state.phase is Phase.BALLOT and voting.ballot_votes(state, player) > 0:
            add(Verb.VOTE, state.suspects)
        return out

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
        if verb not in NIGHT_VERBS | DAY_VERBS | {Verb.VOTE}:
            raise IllegalAction("power.none", f"there is no {verb.value!r} in Lupusburg", verb=verb.value)
        if action.target is None:
            raise IllegalAction("target.missing", f"say what: {verb.value} ...", verb=verb.value)
        target = houses.parse(state.players, action.target)
        phase = state.phase
        if verb in NIGHT_VERBS:
            if phase is not Phase.NIGHT:
                raise IllegalAction("power.wrong_phase", f"you can {verb.value} only at night",
                                    verb=verb.value)
            h = self._house(state, target)
            return thief.choose(state, actor, h) if verb is Verb.PEEK else werewolf.choose(state, actor, h)
        if verb is Verb.VOTE:
            if phase is Phase.NOMINATIONS:
                return voting.nominate(state, actor, self._house(state, target))
            if phase is Phase.BALLOT:
                return voting.ballot(state, actor, self._house(state, target))
            raise IllegalAction("vote.not_now", "votes are cast by day: wait for the morning")
        if phase is not Phase.NOMINATIONS:
            raise IllegalAction("day.only", f"you can {verb.value} only by day, before the nominations close",
                                verb=verb.value)
        if verb is Verb.PRIVILEGE:
            return burgomaster.use_privilege(state, actor, self._house(state, target))
        if verb is Verb.SHOW:
            if houses.is_house(state.players, target):
                if owner(target) != actor:
                    raise IllegalAction("show.not_yours",
                                        "show one of your own characters: show left or show right")
                target = side_of(target)
            return burgomaster.show(state, actor, SIDE_WORDS.get(target.casefold(), target))
        if verb is Verb.BET:
            if houses.is_house(state.players, target):
                raise IllegalAction("bet.not_player",
                                    f"bet on a player, not on a character: bet {owner(target)}",
                                    target=target)
            if target not in state.players:
                raise IllegalAction("target.unknown", f"there is no player called {target}", target=target)
            return bets.bet(state, actor, target)
        return bets.coin(state, actor, target)

    def _house(self, state: LupusburgState, target: str) -> str:
        if houses.is_house(state.players, target):
            return target
        if target in state.players:
            raise IllegalAction("target.not_house", f"say which house: {target}:left or {target}:right",
                                target=target)
        raise IllegalAction("target.unknown",
                            f"there is no house called {target} (try NAME:left or NAME:right)", target=target)

    # -- closing ----------------------------------------------------------------------------------
    def close_phase(self, state: LupusburgState) -> tuple[LupusburgState, list[Event]]:
        if state.phase is Phase.NIGHT:
            return self._after_deaths(night.resolve(state), Phase.NOMINATIONS)
        if state.phase is Phase.NOMINATIONS:
            return self._close_nominations(state)
        if state.phase is Phase.BALLOT:
            close = Close(state)
            voting.lynch(close)
            return self._after_deaths(close, Phase.NIGHT)
        return state, []

    def _close_nominations(self, state: LupusburgState) -> tuple[LupusburgState, list[Event]]:
        rand = rng(state.seed, state.phase_no, "day")
        state, events = burgomaster.close_day(state, rand)
        state, more = bets.close_day(state, rand)
        events += more
        suspects = voting.choose_suspects(state)
        new = state.evolve(phase=Phase.BALLOT, phase_no=state.phase_no + 1, suspects=suspects, ballots={})
        events.append(Event("day.suspects", {"suspects": list(suspects),
                                             "tally": voting.tally(state, [t for _, t in state.votes])}))
        events.append(Event("phase.ballot", {"day": state.day, "suspects": list(suspects)}))
        return new, events

    def _after_deaths(self, close: Close, nxt: Phase) -> tuple[LupusburgState, list[Event]]:
        s = close.start
        state = close.freeze()
        events = close.events
        result = scoring.check(state)
        if result is not None:
            done, more = scoring.finish(state.evolve(phase_no=s.phase_no + 1), result)
            return done, events + more
        fresh: dict[str, Any] = {"phase": nxt, "phase_no": s.phase_no + 1, "choices": {}, "votes": (),
                                 "suspects": (), "ballots": {}, "privilege": None}
        if nxt is Phase.NOMINATIONS:
            state = state.evolve(day=s.day + 1, **fresh)
            events.append(Event("phase.nominations", {"day": s.day + 1, "burgomaster": s.burgomaster}))
        else:
            mayor = burgomaster.next_burgomaster(s)
            state = state.evolve(night=s.night + 1, burgomaster=mayor, **fresh)
            events.append(Event("burgomaster.passed", {"burgomaster": mayor, "from": s.burgomaster}))
            events.append(Event("phase.night", {"night": s.night + 1, "burgomaster": mayor}))
        return state, events

    # -- telling ----------------------------------------------------------------------------------
    def view(self, state: LupusburgState, player: str) -> dict[str, Any]:
        return views.player_view(self, state, player)

    def public_view(self, state: LupusburgState) -> dict[str, Any]:
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
