"""Talking: the square relays the living under game names; Ghosts are not relayed; the
pack talks privately at night; an SMS player may take the square as a digest."""

from __future__ import annotations

from engine import Phase

from .conftest import Harness
from .play import NAMES, open_game, start

PHONES = {n: f"+3933300000{i}" for i, n in enumerate(NAMES)}


def _game(h: Harness) -> None:
    h.say("host", "new")
    code = h.game().code
    for n in NAMES:
        h.say(PHONES[n], f"join {code} {n}")
    h.say("host", "start")


def _roles(h: Harness) -> dict[str, str]:
    return {p: r.value for p, r in h.state().roles.items()}  # type: ignore[attr-defined]


def _first_night_kills_a_villager(h: Harness, clear: bool = False) -> str:
    """The game of ``NAMES`` by SMS, its first night ending with the pack's kill of a villager
    (``clear``: the inboxes emptied before the dawn); returns the victim."""
    _game(h)
    roles = _roles(h)
    wolf = next(p for p in NAMES if roles[p] == "werewolf")
    villager = next(p for p in NAMES if roles[p] == "villager")
    h.say(PHONES[wolf], f"kill {villager}")
    if clear:
        h.clear()
    h.finish_phase()
    return villager


def test_the_square_by_day_under_game_names(h: Harness) -> None:
    villager = _first_night_kills_a_villager(h)
    assert h.state().phase is Phase.NOMINATIONS
    speaker = next(p for p in NAMES if p != villager)
    h.clear()
    assert h.say(PHONES[speaker], "I saw nothing last night") == []
    for n in NAMES:
        got = h.inbox(PHONES[n])
        if n == speaker:
            assert got == []
        else:
            assert got == [f"{speaker}: I saw nothing last night"]
    everything = "\n".join(m for msgs in h.channel.sent.values() for m in msgs)
    assert not any(phone in everything for phone in PHONES.values())
    # The Ghost may not speak.
    h.clear()
    assert "Ghosts may not speak" in h.say(PHONES[villager], "it was the baker!")[0]
    h.deliver()
    assert all("baker" not in m for msgs in h.channel.sent.values() for m in msgs)


def test_the_pack_talks_at_night_and_the_village_sleeps(h: Harness) -> None:
    _game(h)
    roles = _roles(h)
    a, b = [p for p in NAMES if roles[p] == "werewolf"]
    villager = next(p for p in NAMES if roles[p] == "villager")
    h.clear()
    assert h.say(PHONES[a], "let us take the baker") == []
    assert h.inbox(PHONES[b]) == [f"[pack] {a}: let us take the baker"]
    assert all("baker" not in m for n in NAMES if n not in (a, b) for m in h.inbox(PHONES[n]))
    assert "sleeps" in h.say(PHONES[villager], "anyone awake?")[0]
    assert all("awake" not in m for n in NAMES for m in h.inbox(PHONES[n]))


def test_the_square_as_a_digest(h: Harness) -> None:
    _game(h)
    h.finish_phase()  # to the day
    reader, a, b = NAMES[0], NAMES[1], NAMES[2]
    h.say(PHONES[reader], "digest on")
    h.clear()
    h.say(PHONES[a], "first")
    h.say(PHONES[b], "second")
    assert h.inbox(PHONES[reader]) == []
    assert f"{a}: first" in h.inbox(PHONES[NAMES[3]])
    h.finish_phase()
    digests = [m for m in h.inbox(PHONES[reader]) if m.startswith("Town square")]
    assert digests == [f"Town square (2 messages): {a}: first | {b}: second"]


def test_a_revealed_deadalive_talks_on(h: Harness) -> None:
    # The Deadalive, killed, is revealed and "goes on talking and voting as a living character".
    names = [f"p{i:02d}" for i in range(12)]
    open_game(h, names=names, extra="deck deadalive seer")
    start(h)
    roles = _roles(h)
    deadalive = next(p for p in names if roles[p] == "deadalive")
    for wolf in (p for p in names if roles[p] == "werewolf"):
        h.say(wolf, f"kill {deadalive}")
    h.clear()
    h.finish_phase()
    assert all("You are a Ghost" not in m for m in h.inbox(deadalive))  # he talks on: not told he may not
    state = h.state()
    assert state.phase is Phase.NOMINATIONS and deadalive not in state.living()  # type: ignore[attr-defined]
    h.clear()
    assert h.say(deadalive, "I am still here") == []
    listener = next(p for p in names if p != deadalive)
    assert h.inbox(listener) == [f"{deadalive}: I am still here"]


def test_in_lupusburg_everybody_talks(h: Harness) -> None:
    # "Even players who have no living characters may take part in the discussions."
    open_game(h, names=["ann", "bob", "cat", "dan"], extra="lupusburg")
    start(h)
    h.finish_phase()
    assert h.state().phase is not Phase.NIGHT
    h.clear()
    assert h.say("ann", "who has the chest?") == []
    assert h.inbox("bob") == ["ann: who has the chest?"]


def test_the_freemasons_talk_in_their_lodge_at_night_and_the_moderator_reads_it(h: Harness) -> None:
    h.say("host", "new deck seer freemason freemason")
    code = h.game().code
    for n in NAMES:
        h.say(PHONES[n], f"join {code} {n}")
    h.say("host", "lang it")  # the moderator reads Italian: the lodge is his "loggia"
    h.say("host", "start")
    roles = _roles(h)
    a, b = [p for p in NAMES if roles[p] == "freemason"]
    h.clear()
    assert h.say(PHONES[a], "the seer is on our side") == []
    assert h.inbox(PHONES[b]) == [f"[lodge] {a}: the seer is on our side"]
    assert h.inbox("host") == [f"[loggia] {a}: the seer is on our side"]
    assert all("seer is on" not in m for n in NAMES if n not in (a, b) for m in h.inbox(PHONES[n]))
    # By day the lodge's members talk in the square like everyone else.
    h.finish_phase()
    h.clear()
    h.say(PHONES[b], "good morning")
    assert all(h.inbox(PHONES[n]) == [f"{b}: good morning"] for n in NAMES if n != b and n in h.state().alive)  # type: ignore[attr-defined]


def test_the_moderator_talks_to_everyone_as_moderator_in_each_language(h: Harness) -> None:
    _game(h)
    h.say(PHONES[NAMES[0]], "lang it")
    h.say(PHONES[NAMES[1]], "lang es")
    h.clear()
    assert h.say("host", "the night is long") == []  # at night too: the moderator is no player
    assert h.inbox(PHONES[NAMES[0]]) == ["Moderatore: the night is long"]
    assert h.inbox(PHONES[NAMES[1]]) == ["Moderador: the night is long"]
    assert h.inbox(PHONES[NAMES[2]]) == ["Moderator: the night is long"]
    assert h.inbox("host") == []
    # A player whose seat went to a substitute is nobody's voice after the end.
    h.say("host", f"replace {NAMES[3]}")
    h.say("newbie", f"join {h.game().code}")
    h.say("host", "end yes")
    h.clear()
    assert h.say(PHONES[NAMES[3]], "I was robbed") == ["Your seat has no character to play."]
    h.deliver()
    assert all("robbed" not in m for msgs in h.channel.sent.values() for m in msgs)


def test_a_player_killed_at_night_is_told_he_is_a_ghost_and_what_is_left_to_him(h: Harness) -> None:
    victim = _first_night_kills_a_villager(h, clear=True)
    told = h.inbox(PHONES[victim])
    ghost = "You are a Ghost: you may not speak, but you vote in the nominations."
    assert any(ghost in m for m in told), told
    at = next(i for i, m in enumerate(told) if ghost in m)
    # After the news of his death, before his nomination choices.
    assert "Dawn" in "\n".join(told[: at + 1]) and "vote" in "\n".join(told[at:]), told
    assert all(ghost not in m for n in NAMES if n != victim for m in h.inbox(PHONES[n]))
    h.clear()
    h.finish_phase()  # the nominations close: nobody new is a Ghost, nobody is told again
    assert all(ghost not in m for n in NAMES for m in h.inbox(PHONES[n]))
