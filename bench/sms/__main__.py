"""What SMS players cost: segments per SMS player per game day, played through the real service.

    .venv/bin/python bench/sms [--games 100] [--players 12] [--rules tabula] [--db URL] [--seed 9]

Each game is opened, joined and started by text messages on the ``sms`` channel, played by robots
who send one random legal move each per phase (``engine.playout.random_moves``, typed as a player
would: ``#CODE vote bob``), and its deadlines pass by ``Service.close_phase`` under a clock the
bench moves. Every text to an SMS identity (each outbox row that was not merged into another) is
then priced with ``service.channels.sms.gsm7``; the rows merged into a text are listed by key, and each
kind of merged text is broken down by the keys of its parts (characters each part adds), so a change
to one catalog entry shows where its characters went. The games' seeds come from ``--seed``: two
runs on the same code play the same games, so a before/after is the texts' doing, not the dice's.

A *game day* is one night and the day after it (nominations and ballot): about a day and a half
of real time with the default phase lengths. Figures are also given per 24 hours of clock time.

Targets (issue 9): at most 4 segments per SMS player per game day; and no text forced into UCS-2
by a character its language did not need (a text that is UCS-2 although its ``to_gsm7``
normalisation is GSM-7). The catalogs are checked for the same, and for letters the service's
SMS normaliser would replace with "?".
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from babel.messages.pofile import read_po
from sqlmodel import Session, col, select

import engine
from engine import Phase
from engine.playout import random_moves
from service.channels.sms import MERGED as SMS_MERGED
from service.channels.sms.gsm7 import fold as gsm7
from service.channels.sms.gsm7 import is_gsm7, sms_size, to_gsm7
from service.game.app import Service
from service.settings import Settings
from service.store.db import make_engine, upgrade
from service.store.models import Game, Identity, Outbox
from service.texts.i18n import LANGUAGES, LOCALE_DIR

NAMES = [
    "ann",
    "bob",
    "cat",
    "dan",
    "eve",
    "fay",
    "gus",
    "hal",
    "ivy",
    "jon",
    "kim",
    "lou",
    "max",
    "ned",
    "oli",
    "pam",
    "quin",
    "rob",
    "sue",
    "tom",
    "uma",
    "vic",
    "wes",
    "zoe",
]
TARGET = 4.0
#: What a merged text opens, named by the first of these keys among its parts.
MOMENTS = [
    ("game.over", "the end"),
    ("game.started", "the start"),
    ("phase.ballot", "the ballot"),
    ("phase.nominations", "the dawn"),
    ("phase.night", "the nightfall"),
]


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
        self.closing = False

    def __call__(self) -> datetime:
        return self.now


def play_game(
    svc: Service, clock: Clock, g: int, n: int, rules: str, lang: str, rnd: random.Random
) -> tuple[int, int, float]:
    """One whole game by SMS; returns (game id, game days played, hours of clock time)."""
    ids = iter(range(10**9))
    phones = {name: f"+39333{g:04d}{i:03d}" for i, name in enumerate(NAMES[:n])}

    def say(name: str, text: str) -> None:
        svc.handle_inbound("sms", phones[name], f"g{g}m{next(ids)}", text)

    host = NAMES[0]
    say(host, f"new {rules} lang {lang}")
    with Session(svc.db) as s:
        game = s.exec(select(Game).order_by(col(Game.id).desc())).first()
        assert game is not None and game.id is not None
        code, gid = game.code, game.id
    for name in NAMES[:n]:
        say(name, f"join {code} {name}")
    say(host, f"#{code} start")
    started = clock.now
    for _ in range(200):
        with Session(svc.db) as s:
            game = s.get(Game, gid)
            assert game is not None
        if game.status != "running" or game.state is None:
            break
        state = engine.from_json(game.state)
        for action in random_moves(state, rnd):
            say(action.actor, f"#{code} {action.text()}")
        with Session(svc.db) as s:
            game = s.get(Game, gid)
            assert game is not None
        if game.deadline is None:
            break
        clock.now = max(clock.now, game.deadline)
        clock.closing = True
        svc.close_phase(gid, game.phase_no)
        clock.closing = False
    assert game.state is not None
    final = engine.from_json(game.state)
    assert final.phase is Phase.OVER, f"game {g} did not end"
    days = int(engine.public_view(final).get("night") or 1)
    return gid, days, (clock.now - started).total_seconds() / 3600


def catalog_problems() -> list[str]:
    """Catalog texts that an SMS would send as UCS-2 for nothing, or with a letter turned into '?'."""
    out = []
    for lang in LANGUAGES:
        with (LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
            catalog = read_po(f, locale=lang)
        for msg in catalog:
            text = msg.string if isinstance(msg.string, str) else " ".join(msg.string or ())
            if not msg.id or not text:
                continue
            sent = gsm7(text)
            if not is_gsm7(sent) and is_gsm7(to_gsm7(sent)):
                out.append(f"{lang} {msg.id}: forced into UCS-2")
            lost = [c for c, d in zip(text, sent, strict=False) if d == "?" and c != "?"]
            if len(sent) == len(text) and lost:
                out.append(f"{lang} {msg.id}: {''.join(sorted(set(lost)))} sent as '?'")
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--players", type=int, default=12)
    ap.add_argument("--rules", default="tabula", choices=["tabula", "aura", "lupusburg"])
    ap.add_argument("--db", help="database URL (default: a fresh SQLite file)")
    ap.add_argument("--top", type=int, default=8)
    ap.add_argument("--seed", type=int, default=9, help="the moves' and the games' seeds")
    args = ap.parse_args()
    tmp = tempfile.TemporaryDirectory()
    url = args.db or f"sqlite:///{tmp.name}/sms.db"
    upgrade(url)
    db = make_engine(url)
    clock = Clock()
    seeds = random.Random(args.seed * 7919 + 1)
    svc = Service(Settings(DATABASE_URL=url), db, clock=clock, random_bits=seeds.getrandbits)
    rnd = random.Random(args.seed)
    t0 = time.perf_counter()
    days_by_game: dict[int, int] = {}
    langs: dict[int, str] = {}
    hours = 0.0
    for g in range(args.games):
        lang = LANGUAGES[g % len(LANGUAGES)]
        gid, days, h = play_game(svc, clock, g, args.players, args.rules, lang, rnd)
        days_by_game[gid], langs[gid] = days, lang
        hours += h
    wall = time.perf_counter() - t0

    per_key: Counter[str] = Counter()
    rows_per_key: Counter[str] = Counter()
    per_lang: Counter[str] = Counter()
    forced: list[str] = []
    # What the merged texts carry: the rows folded into them (a held row is folded into a summary).
    parts: Counter[str] = Counter()
    # The merged texts by the moment they were written for (a part's key names it): their segments,
    # their count, and how many took more than one segment.
    keys_of: dict[tuple[int, datetime], set[str]] = {}
    # The rows merged at a moment, to find each merged text's parts: those whose text is one or more
    # whole lines of it (rows held earlier and summarised are merged too, but their text is not there).
    chars_of: dict[tuple[int, datetime], list[tuple[str, str]]] = {}
    merged_rows: list[tuple[Outbox, int]] = []
    with Session(db) as s:
        rows = s.exec(
            select(Outbox, Identity)
            .join(Identity, col(Identity.id) == col(Outbox.identity_id))
            .where(col(Outbox.channel) == "sms")
        ).all()
        for row, person in rows:
            if row.status == "merged":
                parts[row.key] += 1
                keys_of.setdefault((row.identity_id, row.created_at), set()).add(row.key)
                chars_of.setdefault((row.identity_id, row.created_at), []).append((row.key, row.text))
                continue
            size = sms_size(row.text)
            if row.key == SMS_MERGED:
                merged_rows.append((row, size.segments))
            per_key[row.key] += size.segments
            rows_per_key[row.key] += 1
            per_lang[person.language] += size.segments
            if size.encoding == "UCS-2" and is_gsm7(to_gsm7(row.text)):
                forced.append(f"{person.language} {row.key}: {row.text[:80]!r}")
    segs_total, rows_total = sum(per_key.values()), sum(rows_per_key.values())
    player_days = sum(days * args.players for days in days_by_game.values())
    lang_days = Counter(
        {lang: sum(d * args.players for gid, d in days_by_game.items() if langs[gid] == lang) for lang in LANGUAGES}
    )
    per_day = segs_total / player_days
    per_24h = segs_total / (args.players * hours / 24)
    print(
        f"games: {args.games} {args.rules} games of {args.players} SMS players, "
        f"{player_days / args.players / args.games:.1f} game days each, {wall:.0f} s"
    )
    print(f"sms: {rows_total} texts, {segs_total} segments ({segs_total / rows_total:.2f} per text)")
    print(
        f"sms: {per_day:.2f} segments per SMS player per game day (target <= {TARGET:g}); "
        f"{per_24h:.2f} per player per 24 h of clock time"
    )
    print(
        "sms: by language: "
        + ", ".join(f"{lang} {per_lang[lang] / lang_days[lang]:.2f}" for lang in LANGUAGES if lang_days[lang])
    )
    print(f"sms: {len(forced)} texts forced into UCS-2 by a character the language did not need (target 0)")
    for f in forced[:10]:
        print("   ", f)
    problems = catalog_problems()
    print(f"catalogs: {len(problems)} texts that would be sent as UCS-2 for nothing or with a letter lost")
    for p in problems[:20]:
        print("   ", p)
    print(f"costliest texts (segments per SMS player per game day; top {args.top}):")
    for key, segs in per_key.most_common(args.top):
        n = rows_per_key[key]
        print(f"    {key:28s} {segs / player_days:5.2f}  ({n} texts, {segs / n:.2f} segments each)")
    print("merged texts by what they open (segments per SMS player per game day; texts; over one segment):")
    by_moment: dict[str, list[int]] = {}
    lengths: dict[str, list[int]] = {}
    made_of: dict[str, Counter[str]] = {}
    for row, segs in merged_rows:
        at = (row.identity_id, row.created_at)
        keys = keys_of.get(at, set())
        label = next((name for key, name in MOMENTS if key in keys), "other")
        by_moment.setdefault(label, []).append(segs)
        lengths.setdefault(label, []).append(len(row.text))
        for key, text in chars_of.get(at, []):
            if f"\n{text}\n" in f"\n{row.text}\n":
                made_of.setdefault(label, Counter())[key] += len(text) + 1
    for label, segs in sorted(by_moment.items(), key=lambda kv: -sum(kv[1])):
        print(
            f"    {label:28s} {sum(segs) / player_days:5.2f}  ({len(segs)} texts, {sum(segs) / len(segs):.2f} "
            f"segments each, {sum(x > 1 for x in segs) / len(segs):.0%} over one)"
        )
    print(
        "the same texts by the keys of their parts (characters a part adds to each text of that kind, "
        "line break included; the text's mean and longest length):"
    )
    for label, segs in sorted(by_moment.items(), key=lambda kv: -sum(kv[1])):
        n, chars = len(segs), lengths[label]
        print(f"    {label}: {sum(chars) / n:.0f} characters on average, longest {max(chars)}")
        for key, total in made_of[label].most_common():
            print(f"        {key:26s} {total / n:6.1f}")
    print(
        f"rows merged into those texts, or held and summarised in them (per SMS player per game day; top {args.top}):"
    )
    for key, n in parts.most_common(args.top):
        print(f"    {key:28s} {n / player_days:5.2f}")


if __name__ == "__main__":
    main()
