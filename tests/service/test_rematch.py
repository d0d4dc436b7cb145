"""``again``: a host chains the next game with the same table. In Lupusburg the games make a
series: the seating stays, the first Burgomaster passes clockwise, and after each game from the
second on everyone is told the totals (a winning Werewolf scores the number of players)."""

from __future__ import annotations

from engine import Phase, Role
from engine.lupusburg.bets import coin_choices
from engine.lupusburg.houses import houses_of
from engine.lupusburg.state import LupusburgState
from engine.record import load_record, replay
from service.store.models import Seat
from service.texts.i18n import t

from .conftest import Harness
from .play import NAMES, open_game, play_phase, play_to_end, start

FOUR = ["ann", "bob", "cat", "dan"]


def lupusburg(h: Harness) -> LupusburgState:
    state = h.state()
    assert isinstance(state, LupusburgState)
    return state


def seats(h: Harness, code: str) -> dict[str, int | None]:
    from sqlmodel import Session, select

    game = h.game(code)
    with Session(h.db) as s:
        return {x.name: x.identity_id for x in s.exec(select(Seat).where(Seat.game_id == game.id))}


def nominate(h: Harness, first: str, second: str) -> None:
    for p in lupusburg(h).players:
        h.say(p, f"vote {first}")
        h.say(p, f"vote {second}")


def lynch(h: Harness, target: str) -> None:
    """The ballot: everyone who has a vote puts it on ``target``."""
    state = lupusburg(h)
    assert state.phase is Phase.BALLOT and target in state.suspects, (state.phase, state.suspects)
    for p in state.players:
        for _ in range(sum(1 for house in state.living_of(p) if house not in state.suspects)):
            h.say(p, f"vote {target}")
    h.finish_phase()


def test_a_lupusburg_series_of_two_games_adds_the_scores(h: Harness) -> None:
    code1 = open_game(h, names=FOUR, extra="lupusburg night 2h day 3h ballot 1h tz Europe/London")
    start(h)
    first = lupusburg(h)
    seating = list(first.players)
    assert first.burgomaster == seating[0], "a series starts with the first seat"
    wolf = first.holder(Role.WEREWOLF)
    w1, w2 = houses_of(wolf)
    p, q, r = (x for x in seating if x != wolf)

    # Game 1, the Werewolf lynched on days 1 and 2; by hand:
    #   p: the Claw took his chest's house on night 1: 2 (one character) + 0 + 1 (seal) = 3
    #   q: 2 + 2 + 1 (chest) + 0 (bet on r, wrong)                                       = 5
    #   r: 2 + 2 + 1 (chest) + 1 (seal)                                                  = 6
    #   the Werewolf: 0
    h.say(wolf, f"kill {first.chest_house(p)}")
    h.finish_phase()
    h.say(q, f"bet {r}")
    h.say(q, f"coin {coin_choices(lupusburg(h), q)[0]}")
    nominate(h, w1, w2)
    h.finish_phase()
    lynch(h, w1)
    h.finish_phase()  # night 2: the Claw rests
    nominate(h, w2, w2)
    h.finish_phase()
    h.clear()
    lynch(h, w2)
    assert h.game(code1).status == "over"
    assert lupusburg(h).outcome.scores == {wolf: 0, p: 3, q: 5, r: 6}  # type: ignore[union-attr]
    assert not any("series" in m.casefold() for m in h.inbox(p)), "one game is no series yet"

    # Game 2: again, same table, same seats; the first Burgomaster is the second seat.
    h.clear()
    assert h.say(p, "again") == [t("en", "svc.not_host")]
    assert h.say("host", "again") == []
    game2 = h.game()
    code2 = game2.code
    assert code2 != code1 and game2.status == "running" and game2.seed != h.game(code1).seed
    assert game2.options == {"night_minutes": 120, "nominations_minutes": 180, "ballot_minutes": 60}
    assert h.game(code1).options == {**game2.options, "rematch": code2} and game2.timezone == "Europe/London"
    assert seats(h, code2) == seats(h, code1)
    second = lupusburg(h)
    assert list(second.players) == seating and second.burgomaster == seating[1]
    assert f"Game 2 of the series: {code2}, same players and seats." in h.inbox(p)
    assert f"Game 2 of the series: {code2}, same players and seats." in h.inbox("host")

    # Game 2, the Werewolf wins at parity: 2 of his against 2 others after day 2. He scores 4
    # (the number of players), everyone else 0.
    wolf2 = second.holder(Role.WEREWOLF)
    others = [x for x in seating if x != wolf2]
    a, b, c, d = [house for x in others for house in houses_of(x)][:4]
    h.say(wolf2, f"kill {a}")
    h.finish_phase()
    nominate(h, b, b)
    h.finish_phase()
    lynch(h, b)
    h.say(wolf2, f"kill {c}")
    h.finish_phase()
    nominate(h, d, d)
    h.finish_phase()
    h.clear()
    lynch(h, d)
    assert h.game(code2).status == "over"
    assert lupusburg(h).outcome.scores == {x: 4 if x == wolf2 else 0 for x in seating}  # type: ignore[union-attr]

    # Game 2's record names its first Burgomaster, so that it replays to the same scores.
    record = load_record(h.say(p, "record")[0])
    assert record.options == {"burgomaster": seating[1]} and record.players == seating
    assert replay(record).state.outcome == lupusburg(h).outcome  # type: ignore[attr-defined]

    # The totals, by hand: game 1 plus game 2, in the seating order.
    game1 = {wolf: 0, p: 3, q: 5, r: 6}
    totals = {x: game1[x] + (4 if x == wolf2 else 0) for x in seating}
    best = max(totals.values())
    # Each game's points added up, and why a winning Werewolf has as many as there are players.
    told = t(
        "en",
        "svc.series.totals",
        count=2,
        totals=", ".join(f"{x} {totals[x]}" for x in seating),
        leaders=", ".join(x for x in seating if totals[x] == best),
    )
    assert told.startswith(
        "The series after 2 games, each game's points added up (a winning Werewolf scores one point for each player): "
    )
    for reader in [*seating, "host"]:
        assert told in h.inbox(reader), (reader, h.inbox(reader))

    # A third game: the third seat is the first Burgomaster, and the series goes on.
    h.say("host", "again")
    third = lupusburg(h)
    assert list(third.players) == seating and third.burgomaster == seating[2]
    assert h.game().setup["series"]["games"] == [game1, {x: 4 if x == wolf2 else 0 for x in seating}]


def test_a_tabula_rematch_reseats_the_same_players_with_the_same_options(h: Harness) -> None:
    code1 = open_game(h, extra="deck seer medium night 2h")
    start(h)
    play_to_end(h)
    old = h.game(code1)
    h.clear()
    over = t("en", "svc.help.over", code=code1)
    assert h.say("ann", "help") == [over]
    assert h.say("host", "help") == [over, t("en", "svc.help.host_over")]
    assert h.say("host", "again") == []
    new = h.game()
    assert new.code != code1 and new.status == "running" and new.rules == "tabula"
    assert new.options == {"night_minutes": 120} and new.setup["specials"] == ["seer", "medium"]
    assert new.setup["rematch_of"] == code1 and h.game(code1).options["rematch"] == new.code
    assert (new.timezone, new.language, new.host_id) == (old.timezone, old.language, old.host_id)
    assert seats(h, new.code) == seats(h, code1)
    assert sorted(h.state().players) == sorted(NAMES)
    assert list(h.state().players) != list(old.setup["players"]), "seated again from the new seed"
    assert f"Rematch: game {new.code}, same players and options." in h.inbox("ann")
    assert not any("Series" in m or "Scores" in m for m in h.inbox("ann"))
    # The next command without a code is about the new game; the old one has had its rematch.
    listed = ", ".join(f"{i} {n}" for i, n in enumerate(h.state().players, start=1))
    assert h.say("ann", "players") == [t("en", "svc.players.seating", players=listed)]
    assert h.say("host", f"#{code1} again") == [t("en", "svc.again.done", code=code1, new=new.code)]
    play_to_end(h)
    assert h.game(new.code).status == "over"


def test_refusals(h: Harness) -> None:
    assert h.say("zed", "again") == [t("en", "svc.again.none")]
    code = open_game(h)
    assert h.say("host", "again") == [t("en", "svc.again.not_over", code=code)]
    start(h)
    play_phase(h)
    assert h.say("host", "again") == [t("en", "svc.again.not_over", code=code)]
    assert h.say("ann", "again") == [t("en", "svc.not_host")]
    h.say("host", "end yes")
    assert h.say("ann", "again") == [t("en", "svc.not_host")]
    # Ended by the host: that is over too, and the table may play again.
    assert h.say("host", "again") == []
    assert h.game().status == "running"
    # A game ended in the lobby dealt nothing: nothing to rematch.
    h.say("solo", "new")
    lobby = h.game().code
    h.say("solo", "end yes")
    assert h.say("solo", "again") == [t("en", "svc.again.none")]
    assert h.say("solo", f"#{lobby} again") == [t("en", "svc.again.none")]


def test_someone_left_the_rematch_waits_in_the_lobby(h: Harness) -> None:
    code1 = open_game(h)
    start(h)
    h.say("host", "remove gus")
    play_to_end(h)
    h.clear()
    assert h.say("host", "again") == []
    new = h.game()
    assert new.status == "lobby" and sorted(seats(h, new.code)) == sorted(n for n in NAMES if n != "gus")
    text = t("en", "svc.again.lobby", new=new.code, missing="gus")
    assert text in h.inbox("ann") and text in h.inbox("host") and text not in h.inbox("gus")
    h.say("ivy", f"join {new.code} ivy")
    start(h)
    assert sorted(h.state().players) == sorted([*(n for n in NAMES if n != "gus"), "ivy"])
    assert h.game(code1).options["rematch"] == new.code


def test_a_lupusburg_rematch_with_other_players_starts_a_new_series(h: Harness) -> None:
    h.say("host", "new lupusburg")
    code1 = h.game().code
    for n in [*FOUR, "eve"]:
        h.say(n, f"join {code1} {n}")
    h.say("host", "start")
    h.say("host", "remove eve")
    h.clear()
    h.say("host", "end yes")
    # Every card revealed, two a player (this used to fail: Lupusburg's moderator view had no roles).
    assert any("Werewolf + " in m or "+ Werewolf" in m for m in h.inbox("ann")), h.inbox("ann")
    h.say("host", "again")
    new = h.game()
    assert new.status == "lobby" and new.setup["series"] == {"players": list(lupusburg_players(h, code1)), "games": []}
    h.say("host", "start")
    # Four of the five: not the series's players, so a new series (and the first seat first).
    state = lupusburg(h)
    assert sorted(state.players) == FOUR and state.burgomaster == state.players[0]


def lupusburg_players(h: Harness, code: str) -> list[str]:
    return list(h.game(code).setup["players"])


def test_italian_and_spanish_verbs(h: Harness) -> None:
    code = open_game(h, "it")
    start(h, "it")
    play_to_end(h, "it")
    h.clear()
    assert h.say("host", "ancora") == []
    new = h.game()
    assert new.language == "it" and new.status == "running"
    assert f"Rivincita: partita {new.code}, stessi giocatori e opzioni." in h.inbox("ann")
    assert h.say("host", f"#{code} ancora") == [t("it", "svc.again.done", code=code, new=new.code)]
    assert h.say("host", "ancora") == [t("it", "svc.again.not_over", code=new.code)]
    assert h.say("host", "lingua es") and h.say("host", "otra") == [t("es", "svc.again.not_over", code=new.code)]
    assert h.say("ann", "REVANCHA") == [t("it", "svc.not_host")]
