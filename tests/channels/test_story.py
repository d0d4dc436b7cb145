"""Whole games over HTTP, read on each phone: what a close tells comes in the rulebook's dawn order,
a tie says from whom the order around the table is counted, every player learns whether he won, and
the end tells what happened (each death and who caused it, a changed choice once, whom a revival
brought back). The base game in English in a Telegram group, the expansion in Italian in private
chats; SMS players in both."""

from __future__ import annotations

import re
from typing import Any

import engine
from engine import Phase
from service.channels.sms.gsm7 import fold as gsm7
from service.texts.i18n import t

from .conftest import SmsPlayer, Stack, TgPlayer, sms_player, tg_player
from .test_games import GROUP, GROUP_ID

Person = TgPlayer | SmsPlayer


def _state(stack: Stack) -> Any:
    return engine.from_json(stack.game().state or "")


def _close(stack: Stack) -> None:
    stack.deliver()
    stack.finish_phase()
    stack.deliver()


def _texts(p: Person) -> list[str]:
    return p.texts()


def _after(p: Person, n: int) -> str:
    """Everything the player received since his ``n``-th text, as one string in order."""
    return "\n".join(_texts(p)[n:])


def _play_to_end(stack: Stack, people: dict[str, Person], words: dict[str, str]) -> None:
    """Sensible moves to the end, typed: the pack kills the last human, the nominations and the ballot
    go to the first Werewolf."""
    for _ in range(30):
        s = _state(stack)
        if s.phase is Phase.OVER:
            return
        alive = [p for p in s.players if p in s.alive]
        wolves = [p for p in alive if s.roles[p].value == "werewolf"]
        humans = [p for p in alive if p not in wolves]
        if s.phase is Phase.NIGHT:
            for w in wolves:
                people[w].say(f"{words['kill']} {humans[-1]}")
        elif s.phase is Phase.NOMINATIONS:
            for p in alive:
                people[p].say(f"{words['vote']} {wolves[0] if p != wolves[0] else humans[0]}")
        else:
            target = wolves[0] if wolves[0] in s.suspects else s.suspects[0]
            for p in alive:
                if p not in s.suspects:
                    people[p].say(f"{words['vote']} {target}")
        _close(stack)
    raise AssertionError("the game did not end")


def _won_lines(stack: Stack, people: dict[str, Person], lang: str, private: str) -> None:
    """Every player was told whether he won: an SMS player in his end text, a Telegram player in his
    (or, reading the game in its group, privately: ``private`` is that text's key)."""
    winners = set(_state(stack).outcome.winners)
    code = stack.game().code
    for name, p in people.items():
        won = name in winners
        if isinstance(p, SmsPlayer):
            said = gsm7(t(lang, "game.won" if won else "game.lost"))
        elif private:
            said = t(lang, f"{private}.{'won' if won else 'lost'}", code=code)
        else:
            said = t(lang, "game.won" if won else "game.lost")
        assert any(line.startswith(said) for text in _texts(p) for line in text.split("\n")), (name, said)


# -- the base game, in English, in a Telegram group ----------------------------------------------------
def test_the_base_game_in_english_tells_the_dawn_first_the_tie_and_what_happened(stack: Stack) -> None:
    hana = tg_player(stack, "Hana")
    hana.say("/start")
    hana.say("/new@lupus_sandbox_bot", chat=GROUP)
    code = stack.game().code
    tg = [hana] + [tg_player(stack, n) for n in ("Ann", "Bob", "Cat")]
    sms = [sms_player(stack) for _ in range(4)]
    for player in tg:
        player.say(f"/start {code}")
    for phone, name in zip(sms, ("Dan", "Eve", "Fay", "Gus"), strict=True):
        phone.say(f"JOIN {code} {name}")
    people: dict[str, Person] = {p.first_name: p for p in tg}
    people.update(zip(("Dan", "Eve", "Fay", "Gus"), sms, strict=True))
    hana.say("/begin", chat=GROUP)
    stack.deliver()
    s = _state(stack)
    seats = list(s.players)
    wolves = [p for p in seats if s.roles[p].value == "werewolf"]
    seer = next(p for p in seats if s.roles[p].value == "seer")
    villagers = [p for p in seats if s.roles[p].value == "villager"]
    first_pick, victim = villagers[0], villagers[1]

    # Night 1: one Werewolf changes his choice; the Seer looks at a Werewolf.
    seen = len(_texts(people[seer]))
    people[wolves[0]].say(f"kill {first_pick}")
    people[wolves[0]].say(f"kill {victim}")
    people[wolves[1]].say(f"kill {victim}")
    people[seer].say(f"see {wolves[0]}")
    _close(stack)
    # The dawn first, then the night's answers, then the day: where one phone reads them all (a Telegram
    # player of the group reads the dawn in the group, his answer in private).
    for name, p in people.items():
        told = _after(p, seen if name == seer else 0)
        sms_reader = isinstance(p, SmsPlayer)
        if not sms_reader and name != seer:
            continue
        dawn = t("en", "sms.night.dawn.some" if sms_reader else "night.dawn.some", dead=victim, count=1)
        look = t("en", "seer.result.were", target=wolves[0])
        if sms_reader:
            assert dawn in told and told.index(dawn) < told.index(
                t("en", "sms.phase.nominations", day=1, deadline="").split(":")[0]
            ), told
        if name == seer:
            assert look in told and (not sms_reader or told.index(dawn) < told.index(look)), told

    # Day 1: everyone nominates a villager but one; nobody casts a ballot: a 0-0 tie, broken by the
    # order counted after the "Welcome!" holder (the night's victim).
    heard = {n: len(_texts(p)) for n, p in people.items()}
    group_heard = len(stack.tg.sent(GROUP_ID))
    target = villagers[2]
    for p in [x for x in seats if x in _state(stack).alive]:
        people[p].say(f"vote {target if p != target else villagers[3]}")
    _close(stack)
    _close(stack)
    after = seats[(seats.index(victim) + 1) % len(seats)]
    group = "\n".join(m["text"] for m in stack.tg.sent(GROUP_ID)[group_heard:])
    assert f'A tie goes to whoever sits closest clockwise after {victim}, who holds "Welcome!":' in group, group
    for name, p in people.items():
        if isinstance(p, SmsPlayer):
            assert f"Tie (clockwise from {after}):" in _after(p, heard[name]), name

    _play_to_end(stack, people, {"kill": "kill", "vote": "vote"})
    stack.deliver()
    _won_lines(stack, people, "en", "svc.end")
    # What happened, in the group: the kill that counted, the look, the lynching; the changed choice once.
    history = next(m["text"] for m in stack.tg.sent(GROUP_ID) if m["text"].startswith("What happened"))
    night1 = next(line for line in history.split("\n") if line.startswith("Night 1:"))
    assert f"the Werewolves ({', '.join(w for w in seats if w in wolves)}) killed {victim}" in night1, night1
    assert f"the Seer ({seer}) looked at {wolves[0]}: a Werewolf" in night1, night1
    assert first_pick not in night1, night1  # the first choice, changed, is not told as what happened
    assert f"Day 1: the village lynched {target}" in history or "Day 1: the village lynched" in history
    # By SMS, on request: the same account, short.
    sms[0].say("status")
    stack.deliver()
    status = sms[0].texts()[-1]
    assert (
        f"What happened: Night 1: the Werewolves ({','.join(w for w in seats if w in wolves)}) killed {victim}"
        in status
    ), status


# -- the expansion, in Italian, in private chats -------------------------------------------------------
IT = {"kill": "sbrana", "vote": "vota"}


def _italian_table(stack: Stack) -> tuple[str, dict[str, Person]]:
    host = tg_player(stack, "Lia")
    tg = [host] + [tg_player(stack, n) for n in ("Ada", "Bea", "Cris")]
    for player in tg:  # their Telegram speaks English: each says he reads Italian
        player.say("/start")
        player.say("lingua it")
    host.say("nuova lingua it mazzo veggente barone_samedi")
    code = stack.game().code
    for player in tg:
        player.say(f"entra {code} {player.first_name}")
    sms = [sms_player(stack) for _ in range(4)]
    for phone, name in zip(sms, ("Dino", "Elio", "Fabio", "Gino"), strict=True):
        phone.say(f"ENTRA {code} {name}")
    people: dict[str, Person] = {player.first_name: player for player in tg}
    people.update(zip(("Dino", "Elio", "Fabio", "Gino"), sms, strict=True))
    host.say("inizia")
    stack.deliver()
    assert stack.game().status == "running"
    return code, people


def test_the_expansion_in_italian_tells_the_revival_after_the_dawn_and_whom(stack: Stack) -> None:
    _, people = _italian_table(stack)
    s = _state(stack)
    seats = list(s.players)
    wolves = [p for p in seats if s.roles[p].value == "werewolf"]
    baron = next(p for p in seats if s.roles[p].value == "baron_samedi")
    villagers = [p for p in seats if s.roles[p].value == "villager"]
    first, lynched, second = villagers[0], villagers[1], villagers[2]

    # Night 1: the pack kills a villager, who takes "Welcome!". Day 1: another villager is lynched.
    for w in wolves:
        people[w].say(f"sbrana {first}")
    _close(stack)
    for p in [x for x in seats if x in _state(stack).alive]:
        people[p].say(f"vota {lynched if p != lynched else second}")
    _close(stack)
    for p in [x for x in seats if x in _state(stack).alive and x not in _state(stack).suspects]:
        people[p].say(f"vota {lynched}")
    _close(stack)
    assert lynched in _state(stack).lynched

    # Night 2: Baron Samedi brings the "Welcome!" holder back; the pack kills another villager.
    heard = {n: len(_texts(p)) for n, p in people.items()}
    people[baron].say("resuscita")
    for w in wolves:
        people[w].say(f"sbrana {second}")
    _close(stack)
    for name, p in people.items():
        told = _after(p, heard[name])
        sms = isinstance(p, SmsPlayer)
        dawn = t("it", "sms.night.dawn.some" if sms else "night.dawn.some", dead=second, count=1)
        back = t("it", "baron_samedi.revived", player=first)
        dawn, back = (gsm7(dawn), gsm7(back)) if sms else (dawn, back)
        assert dawn in told and back in told, (name, told)
        assert told.index(dawn) < told.index(back), (name, told)  # the deaths, then what the cards did
    assert first in _state(stack).alive

    # Day 2: nobody casts a ballot: a tie, counted from the new "Welcome!" holder.
    heard = {n: len(_texts(p)) for n, p in people.items()}
    alive = [x for x in seats if x in _state(stack).alive]
    for p in alive:
        people[p].say(f"vota {alive[0] if p != alive[0] else alive[1]}")
    _close(stack)
    _close(stack)
    after = seats[(seats.index(second) + 1) % len(seats)]
    for name, p in people.items():
        told = _after(p, heard[name])
        if isinstance(p, SmsPlayer):
            assert f"Parita (senso orario da {after}):" in told or f"Parità (senso orario da {after}):" in told, told
        else:
            assert f'In parità conta chi è più vicino a {second}, che ha il "Benvenuto!", in senso orario:' in told, (
                name,
                told,
            )

    if _state(stack).phase is not Phase.OVER:
        _play_to_end(stack, people, IT)
    stack.deliver()
    _won_lines(stack, people, "it", "")
    # What happened: every Telegram player reads it, the revival naming whom.
    for p in people.values():
        if isinstance(p, TgPlayer):
            history = next(x for x in _texts(p) if x.startswith("Com'è andata, notte per notte:"))
            assert (
                f"Notte 1: i Lupi Mannari ({', '.join(w for w in seats if w in wolves)}) hanno sbranato {first}"
                in history
            ), history
            night2 = next(line for line in history.split("\n") if line.startswith("Notte 2:"))
            assert f"il Barone Samedi ({baron}) ha riportato in vita {first}" in night2, night2
            assert re.search(rf"Giorno 1: il villaggio ha linciato {lynched}\.", history), history
