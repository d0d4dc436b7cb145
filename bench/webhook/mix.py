"""The games the webhook bench plays in, and the moves of a real game day among them.

A day of a game of twelve, played by Telegram in private chats (each player writes to the bot, the
bot relays the town square), is, per game (``DAY``, which ``--mix`` overrides):

- **talk**: 36 lines said to the town (three a player), each relayed to the eleven others;
- **nominate**: 12 public votes of the nominations, each final and announced to everyone;
- **ballot**: 14 secret ballot votes (twelve, and two voters who change their mind);
- **night**: 6 night choices (the Werewolves' victim, the Seer's look, the Bodyguard's guard; some
  changed before the close);
- **command**: 6 questions and host commands (status, players, role; the host moving the deadline
  by ten minutes, which is announced to everyone, and back).

The phases stand still while the bench runs (no deadline passes), so each kind of move is played
in games parked in the phase it belongs to: ``pools`` sets up games in the night, the nominations
and the ballot through the application service (as players and the worker would: the same rows the
webhook then finds), and ``Moves`` draws each move from a game of the right phase. A nomination is
final, so each player of a nominations game nominates once (the pool is sized for the run); a ballot
vote or a night choice that is changed changes to another target, so every move writes a new state.
"""

from __future__ import annotations

import itertools
import json
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

NAMES = ["ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal", "ivy", "jon", "kim", "lou"]
DAY = {"talk": 36, "nominate": 12, "ballot": 14, "night": 6, "command": 6}
LINES = [
    "i do not trust {x} at all",
    "{x} was very quiet last night, why?",
    "we should look at {x} today",
    "honestly {x} sounds like a villager to me",
    "who did {x} defend yesterday?",
    "ok but what about {x}",
]


def parse_mix(text: str | None) -> dict[str, int]:
    if not text:
        return dict(DAY)
    mix = {k: 0 for k in DAY}
    for part in text.split(","):
        kind, n = part.split("=")
        if kind not in DAY:
            raise SystemExit(f"--mix: {kind} is not one of {', '.join(DAY)}")
        mix[kind] = int(n)
    return mix


@dataclass
class Table:
    """One game set up for the bench: its code, its players' Telegram ids, its engine state."""

    code: str
    uids: dict[str, int]
    state: object
    host: str = NAMES[0]
    nominated: set[str] = field(default_factory=set)
    chosen: dict[str, str] = field(default_factory=dict)


class Updates:
    """Telegram updates, each with its own update_id and message_id (Telegram's dedup keys)."""

    def __init__(self) -> None:
        self.next_id = 1

    def text(self, user_id: int, name: str, text: str) -> bytes:
        self.next_id += 1
        user = {"id": user_id, "is_bot": False, "first_name": name}
        msg = {
            "message_id": self.next_id,
            "from": user,
            "chat": {"id": user_id, "first_name": name, "type": "private"},
            "date": int(time.time()),
            "text": text,
        }
        return json.dumps({"update_id": self.next_id, "message": msg}).encode()


def pools(db: str, night: int, nominations: int, ballot: int, processes: int = 2) -> dict[str, list[Table]]:
    """Games of 12 opened, joined and started through the application service, and each moved on
    to its pool's phase by closing the phases before it (as the worker does, its clock at the
    deadline): the first night, the first day's nominations, its ballot. ``processes`` set them up
    side by side (each game has players of its own)."""
    import multiprocessing

    jobs = []
    first = 0
    for pool, n in (("night", night), ("nominate", nominations), ("ballot", ballot)):
        for k in range(processes):
            share = n // processes + (k < n % processes)
            if share:
                jobs.append((db, pool, share, first))
                first += share
    started = time.perf_counter()
    with multiprocessing.get_context("spawn").Pool(processes) as workers:
        made = workers.starmap(_setup, jobs)
    import engine

    out: dict[str, list[Table]] = {"night": [], "nominate": [], "ballot": []}
    for (_, pool, _, _), games in zip(jobs, made, strict=True):
        out[pool] += [Table(code, uids, engine.from_json(state)) for code, uids, state in games]
    print(
        f"set up {sum(map(len, out.values()))} games in {time.perf_counter() - started:.0f} s: "
        + ", ".join(f"{len(v)} in {k}" for k, v in out.items()),
        flush=True,
    )
    return out


def _setup(db: str, pool: str, n: int, first: int) -> list[tuple[str, dict[str, int], str]]:
    """``n`` games parked in ``pool``'s phase, their players numbered from game ``first``."""
    from sqlmodel import Session, select

    import engine
    from engine import Phase
    from service.game.app import Service
    from service.settings import Settings
    from service.store.db import make_engine
    from service.store.models import Game, Identity

    phase = {"night": Phase.NIGHT, "nominate": Phase.NOMINATIONS, "ballot": Phase.BALLOT}[pool]
    eng = make_engine(db)
    clock = [datetime.now(UTC)]
    svc = Service(Settings(DATABASE_URL=db), eng, clock=lambda: clock[0])
    rnd = random.Random(first)
    ids = itertools.count(1)
    out: list[tuple[str, dict[str, int], str]] = []
    g = first
    while len(out) < n:
        g += 1
        base = 20_000_000 + g * 100  # each game its own players: no row shared between games
        uids = {name: base + i for i, name in enumerate(NAMES)}

        def say(name: str, text: str, uids: dict[str, int] = uids, base: int = base) -> None:
            svc.handle_inbound("telegram", str(uids[name]), f"setup{base}-{next(ids)}", text, name)

        say(NAMES[0], "new")
        with Session(eng) as s:
            host = s.exec(select(Identity).where(Identity.address == str(uids[NAMES[0]]))).one()
            game = s.exec(select(Game).where(Game.host_id == host.id)).one()
            code, gid = game.code, game.id
        assert gid is not None
        for name in NAMES:
            say(name, f"join {code} {name}")
        say(NAMES[0], f"#{code} start")
        while True:
            with Session(eng) as s:
                game = s.get(Game, gid)
                assert game is not None and game.state is not None
            state = engine.from_json(game.state)
            if state.phase is phase or state.phase is Phase.OVER:
                break
            if state.phase is Phase.NOMINATIONS:  # on to the ballot: everyone nominates
                for name in NAMES:
                    targets = [a.target for a in engine.legal_actions(state, name) if a.target]
                    if targets:
                        say(name, f"#{code} vote {rnd.choice(targets)}")
            assert game.deadline is not None
            clock[0] = max(clock[0], game.deadline)
            svc.close_phase(gid, game.phase_no)
        if state.phase is phase:
            out.append((code, uids, game.state))
    eng.dispose()
    return out


class Moves:
    """The day's moves, drawn at random in the proportions of ``mix``, each from a game parked in
    the phase it belongs to."""

    def __init__(self, tables: dict[str, list[Table]], mix: dict[str, int], seed: int = 300) -> None:
        import engine

        self.engine = engine
        self.tables = tables
        self.rnd = random.Random(seed)
        self.kinds = [k for k, n in mix.items() if n]
        self.weights = [mix[k] for k in self.kinds]
        self.updates = Updates()
        self.drawn = dict.fromkeys(mix, 0)
        # Each nominations game's players, each to nominate once, in a random order of games.
        self._nominations: Iterator[tuple[Table, str]] = iter(
            self.rnd.sample(
                [(t, n) for t in tables["nominate"] for n in NAMES if self._targets(t, n)],
                k=sum(1 for t in tables["nominate"] for n in NAMES if self._targets(t, n)),
            )
        )
        self._extended: dict[str, bool] = {}

    def _targets(self, t: Table, name: str) -> list[str]:
        return [a.target for a in self.engine.legal_actions(t.state, name) if a.target]

    def nominations_left(self) -> int:
        return sum(1 for t in self.tables["nominate"] for n in NAMES if n not in t.nominated and self._targets(t, n))

    def body(self) -> bytes:
        kind = self.rnd.choices(self.kinds, self.weights)[0]
        self.drawn[kind] += 1
        return getattr(self, "_" + kind)()

    def bodies(self, n: int) -> list[bytes]:
        return [self.body() for _ in range(n)]

    def _send(self, t: Table, name: str, text: str) -> bytes:
        return self.updates.text(t.uids[name], name, text)

    def _talk(self) -> bytes:
        t = self.rnd.choice(self.tables["nominate"] + self.tables["ballot"])
        living = list(t.state.living())  # type: ignore[attr-defined]
        me = self.rnd.choice(living)
        other = self.rnd.choice([p for p in living if p != me])
        return self._send(t, me, self.rnd.choice(LINES).format(x=other))

    def _nominate(self) -> bytes:
        t, name = next(self._nominations)
        t.nominated.add(name)
        return self._send(t, name, f"#{t.code} vote {self.rnd.choice(self._targets(t, name))}")

    def _changing(self, pool: str) -> bytes:
        """A move of a player with a choice in this phase; when he has chosen, another target."""
        t = self.rnd.choice(self.tables[pool])
        acting = [n for n in NAMES if self._targets(t, n)]
        name = self.rnd.choice(acting)
        actions = [a for a in self.engine.legal_actions(t.state, name) if a.target]
        verb = actions[0].verb.value
        targets = [a.target for a in actions if a.verb.value == verb and a.target != t.chosen.get(name)]
        target = self.rnd.choice(targets)
        t.chosen[name] = target
        return self._send(t, name, f"#{t.code} {verb} {target}")

    def _ballot(self) -> bytes:
        return self._changing("ballot")

    def _night(self) -> bytes:
        return self._changing("night")

    def _command(self) -> bytes:
        t = self.rnd.choice(self.tables["nominate"] + self.tables["ballot"] + self.tables["night"])
        if self.rnd.random() < 1 / 3:  # the host moves the deadline, and back the next time
            back = self._extended.get(t.code, False)
            self._extended[t.code] = not back
            return self._send(t, t.host, f"#{t.code} {'shorten' if back else 'extend'} 10m")
        return self._send(t, self.rnd.choice(NAMES), f"#{t.code} {self.rnd.choice(['status', 'players', 'role'])}")
