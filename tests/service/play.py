"""A table of scripted players who play a whole game through the service, in one language."""

from __future__ import annotations

import threading

from engine import Phase

from .conftest import Harness

NAMES = ["ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal"]
WORDS = {
    "en": {
        "new": "new",
        "join": "join",
        "start": "start",
        "kill": "kill",
        "see": "see",
        "vote": "vote",
        "lang": "lang",
    },
    "it": {
        "new": "nuova",
        "join": "entra",
        "start": "inizia",
        "kill": "sbrana",
        "see": "vedi",
        "vote": "vota",
        "lang": "lingua",
    },
    "es": {
        "new": "nueva",
        "join": "unirse",
        "start": "empezar",
        "kill": "matar",
        "see": "ver",
        "vote": "votar",
        "lang": "idioma",
    },
}


def open_game(h: Harness, lang: str = "en", names: list[str] = NAMES, extra: str = "") -> str:
    w = WORDS[lang]
    h.say("host", f"{w['new']} {w['lang']} {lang} {extra}".strip())
    code = h.game().code
    for n in names:
        h.say(n, f"{w['join']} {code} {n}")
    return code


def start(h: Harness, lang: str = "en") -> None:
    h.say("host", WORDS[lang]["start"])
    assert h.game().status == "running"


def play_phase(h: Harness, lang: str = "en") -> None:
    """Everyone does something sensible for the phase, then the deadline passes."""
    w = WORDS[lang]
    state = h.state()
    roles = state.roles  # type: ignore[attr-defined]
    alive = [p for p in state.players if p in state.alive]  # type: ignore[attr-defined]
    wolves = [p for p in alive if roles[p].value == "werewolf"]
    humans = [p for p in alive if p not in wolves]
    if state.phase is Phase.NIGHT:
        for wolf in wolves:
            h.say(wolf, f"{w['kill']} {humans[-1]}")
        seers = [p for p in alive if roles[p].value == "seer"]
        for s in seers:
            target = wolves[0] if wolves else humans[0]
            h.say(s, f"{w['see']} {target[:2].upper()}")  # a prefix, in capitals
    elif state.phase is Phase.NOMINATIONS:
        target = wolves[0]
        for p in state.players:
            h.say(p, f"{w['vote']} {target}")
    elif state.phase is Phase.BALLOT:
        suspects = list(state.suspects)  # type: ignore[attr-defined]
        target = wolves[0] if wolves[0] in suspects else suspects[0]
        for p in alive:
            if p not in suspects:
                h.say(p, f"{w['vote']} {target}")
    h.finish_phase()


def play_to_end(h: Harness, lang: str = "en", limit: int = 40) -> None:
    for _ in range(limit):
        if h.game().status != "running":
            return
        play_phase(h, lang)
    raise AssertionError("the game did not end")


def all_at_once(h: Harness, says: list[tuple[str, str, str | None]]) -> None:
    """Each (who, text, external id) said from its own thread, all released together."""
    barrier = threading.Barrier(len(says))
    errors: list[BaseException] = []

    def say(who: str, text: str, external_id: str | None) -> None:
        try:
            barrier.wait()
            h.say(who, text, external_id=external_id)
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=say, args=one) for one in says]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
