"""The README's "Try it" walk-through, followed step by step through the page's API, for deals that
give Ann and Bob each card of the game of eight (Villager, Werewolf, Seer): every step it tells a
reader to take works whatever he was dealt, and nothing he does is refused.

(Its example once was `kill 2`, which a Villager is refused.)"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlmodel import Session, col, select

import engine
from service.sandbox.world import Sandbox
from service.store.models import Game, GameEvent, Identity, Outbox

README = Path(__file__).resolve().parents[2] / "README.md"
REPLY = re.compile(r"Reply: (\w+) (\d+) ")  # an SMS's choices: "Reply: vote 1 Fay 2 Cat"
# What the bot says to a move it refuses, besides its error.* keys.
REFUSED = {
    "svc.not_understood",
    "svc.no_match",
    "svc.ambiguous",
    "svc.not_in_game",
    "svc.not_seated",
    "svc.not_member",
    "svc.which_game",
    "svc.not_running",
    "svc.is_paused",
}


def _try_it() -> str:
    text = README.read_text(encoding="utf-8")
    return text[text.index("## Try it") : text.index("\n## ", text.index("## Try it") + 1)]


def test_the_walk_through_quotes_only_commands_anyone_may_write() -> None:
    steps = _try_it()
    anytime = re.search(r"Anyone may write (.*?) at any time", steps, re.S)
    assert anytime and re.findall(r"`([^`]+)`", anytime.group(1)) == ["help", "status", "role"]
    # A command naming a target works for some cards only: a step quotes one only as an example of
    # what the phone's own text offers.
    assert "`kill" not in steps and "`see" not in steps


# (game seed, Ann's card, Bob's card): every card of the game of eight, for each channel.
DEALS = [(3, "villager", "werewolf"), (12, "werewolf", "villager"), (5, "seer", "villager"), (10, "villager", "seer")]


@pytest.mark.parametrize(("seed", "ann", "bob"), DEALS, ids=[f"ann-{a}-bob-{b}" for _, a, b in DEALS])
def test_the_walk_through_works_whatever_cards_are_dealt(tmp_path: Path, seed: int, ann: str, bob: str) -> None:
    with Sandbox(tmp_path, seed=1) as sb:
        assert sb.service is not None
        sb.service.random_bits = lambda _bits: seed
        with httpx.Client(base_url=sb.url, timeout=60) as page:
            # 1. Game of eight with robots.
            code = page.post("/api/quick-game", json={"size": 8}).json()["code"]
            assert _cards(sb, code) == {"Ann": ann, "Bob": bob}  # the deal this case is about
            # 2. Each phone was dealt its card in private, with what it does.
            assert _bot_said(page, "Ann", f"Your character: {ann.title()}.")
            assert _bot_said(page, "Bob", f"Your card: {bob.title()} (text guide {bob.title()}).")
            for command in ("help", "status", "role"):
                for phone in ("Ann", "Bob"):
                    assert page.post("/api/say", json={"phone": phone, "text": command}).status_code == 200
            # 2 and 3, night 1 and day 1: answer what each phone offers, then Next deadline.
            answered = {"Ann": set[int](), "Bob": set[int]()}
            offers = 0
            for _ in range(3):
                offers += _answer_ann(page, answered["Ann"]) + _answer_bob(page, answered["Bob"])
                assert page.post("/api/next-deadline", json={"code": code}).json()["deadline"] is not None
        assert _refusals(sb, ("Ann", "Bob")) == []
        assert offers >= 2  # at least the day's vote, on each phone
        assert _moves(sb, code) >= {"Ann", "Bob"}


def _phone(page: httpx.Client, name: str) -> dict[str, Any]:
    return next(p for p in page.get("/api/state").json()["phones"] if p["name"] == name)


def _bot_said(page: httpx.Client, name: str, text: str) -> bool:
    return any(text in m["text"] for m in _phone(page, name)["messages"] if m["from"] == "bot")


def _answer_ann(page: httpx.Client, done: set[int]) -> int:
    """On Ann's phone, tap a button under the bot's newest message that has some."""
    offered = [m for m in _phone(page, "Ann")["messages"] if m["from"] == "bot" and m["buttons"]]
    if not offered or offered[-1]["id"] in done:
        return 0
    last = offered[-1]
    done.add(last["id"])
    tap = {"phone": "Ann", "message_id": last["id"], "data": last["buttons"][0][0]["data"]}
    assert page.post("/api/tap", json=tap).status_code == 200
    return 1


def _answer_bob(page: httpx.Client, done: set[int]) -> int:
    """On Bob's phone, type a choice his last text lists after "Reply:": its word and a number."""
    texts = [(i, m["text"]) for i, m in enumerate(_phone(page, "Bob")["messages"]) if m["from"] == "bot"]
    offered = [(i, REPLY.search(text)) for i, text in texts if REPLY.search(text)]
    if not offered or offered[-1][0] in done:
        return 0
    i, match = offered[-1]
    done.add(i)
    assert match is not None
    move = {"phone": "Bob", "text": f"{match.group(1)} {match.group(2)}"}
    assert page.post("/api/say", json=move).status_code == 200
    return 1


def _cards(sb: Sandbox, code: str) -> dict[str, str]:
    assert sb.service is not None
    with Session(sb.service.db) as s:
        game = s.exec(select(Game).where(col(Game.code) == code)).one()
    assert game.state is not None
    roles = engine.moderator_view(engine.from_json(game.state))["roles"]
    return {name: roles[name] for name in ("Ann", "Bob")}


def _refusals(sb: Sandbox, names: tuple[str, ...]) -> list[tuple[str, str]]:
    """Every refusal the bot sent these phones: (phone, text)."""
    assert sb.service is not None
    addresses = {sb.phones[n].address: n for n in names}
    with Session(sb.service.db) as s:
        rows = s.exec(
            select(Outbox, Identity)
            .join(Identity, col(Identity.id) == col(Outbox.identity_id))
            .where(col(Identity.address).in_(list(addresses)))
        ).all()
    return [
        (addresses[who.address], row.text) for row, who in rows if row.key.startswith("error.") or row.key in REFUSED
    ]


def _moves(sb: Sandbox, code: str) -> set[str]:
    """Who moved in game ``code``."""
    assert sb.service is not None
    with Session(sb.service.db) as s:
        game = s.exec(select(Game).where(col(Game.code) == code)).one()
        moves = s.exec(select(GameEvent).where(col(GameEvent.game_id) == game.id, col(GameEvent.kind) == "move"))
        return {str(m.data.get("actor")) for m in moves}
