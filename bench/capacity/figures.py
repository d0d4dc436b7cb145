"""The capacity bench's figures, read from the database and the stand-in Telegram once the run is over."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, text

DAY = 86_400.0
BOT_PER_SECOND = 30.0
GROUP_PER_MINUTE = 20.0
PHASE_NEWS = ("phase.night", "phase.nominations", "phase.ballot")  # a close's news of the phase it opens


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


@dataclass
class Closes:
    due: int = 0  # phases whose deadline fell inside the run
    late: list[float] = field(default_factory=list)  # deadline -> commit of the close's texts, s
    early: int = 0  # closed before their deadline (every player had acted)
    open_: int = 0  # due in the run and not closed by its end


def closes(db: Engine, seen: dict[tuple[int, int], datetime], end: datetime) -> Closes:
    """`seen`: (game, phase_no) -> that phase's deadline, as the bench saw it. A close's commit is
    the `created_at` of the texts it wrote (the close's clock, taken in its transaction; the rows
    of phase p + 1 keyed `g<game>:p<p + 1>:`: its prompts), the earliest of the next phase's rows
    (a move of the next phase comes later); a game that ended is closed by its `game.over` rows."""
    ids = sorted({g for g, _ in seen})
    with db.connect() as c:
        at = {
            (int(g), int(p)): t
            for g, p, t in c.execute(
                text(
                    r"""select game_id, (regexp_match(dedup_key, '^g\d+\:p(\d+)\:'))[1]::int, min(created_at)
                from outbox where game_id = any(:ids) and dedup_key ~ '^g\d+\:p\d+\:' group by 1, 2"""
                ),
                {"ids": ids},
            )
        }
        over = {
            int(g): t
            for g, t in c.execute(
                text(
                    "select game_id, min(created_at) from outbox where game_id = any(:ids) and key like 'game.over%' "
                    "group by 1"
                ),
                {"ids": ids},
            )
        }
    out = Closes()
    for (g, p), deadline in seen.items():
        if deadline > end:
            continue
        out.due += 1
        done = at.get((g, p + 1))
        if done is None and g in over and over[g] >= deadline:
            done = over[g]
        if done is None:
            out.open_ += 1
        elif done < deadline:
            out.early += 1
        else:
            out.late.append((done - deadline).total_seconds())
    return out


@dataclass
class Day:
    games: int = 0  # due games with at least one phase seen whole (opened and closed in the run)
    phases: dict[str, list[int]] = field(default_factory=dict)  # kind -> texts of each whole phase
    group: dict[str, list[int]] = field(default_factory=dict)  # kind -> of which to the group
    burst: int = 0  # most group texts one close wrote
    first: list[tuple[int, int]] = field(default_factory=list)  # a clone's first night until its close
    opening: dict[str, list[tuple[int, int]]] = field(default_factory=dict)  # kind -> each close's own texts

    def night_estimated(self) -> bool:
        """No night seen whole: a night is then the texts of a close that opened one plus those of
        a clone's first night (its moves, reminders, warnings) until it closed."""
        return not self.phases.get("night") and bool(self.opening.get("night")) and bool(self.first)

    def per_day(self, group: bool = False) -> float:
        """Texts of one game-day: a night and the day phases after it, each kind's mean texts a
        phase once (the bench's players always nominate, so every day has its ballot). Not weighted
        by how many of each kind the run saw whole: a run of a few minutes sees more of one kind
        than of another (60 ballots to 18 nights counted the ballot three times a day), and a
        ballot still open at the end is no day without one."""
        which = self.group if group else self.phases
        total = sum(sum(xs) / len(xs) for xs in which.values() if xs)
        if self.night_estimated():
            i = int(group)
            total += sum(x[i] for x in self.opening["night"]) / len(self.opening["night"]) + sum(
                x[i] for x in self.first
            ) / len(self.first)
        return total


def game_day(db: Engine, due: list[int], only: set[int] | None = None) -> Day:
    """The texts of each whole phase (from the close that opened it, its own texts included, to the
    close that ended it) of the due games (or of `only`), by the phase's kind. A close's texts share
    its clock (`created_at`) and one of them is the phase's news to the group (`phase.<kind>`); what
    comes between two closes (moves' replies and notices, reminders, warnings) is the phase's."""
    ids = sorted(only) if only is not None else due
    with db.connect() as c:
        rows = c.execute(
            text("""
            select o.game_id, o.created_at, o.key, i.address like '-%' from outbox o
            join identities i on i.id = o.identity_id where o.game_id = any(:ids)
            order by o.game_id, o.created_at, o.id"""),
            {"ids": ids},
        ).all()
    d = Day()
    by_game: dict[int, list[Any]] = {}
    for r in rows:
        by_game.setdefault(int(r[0]), []).append(r)
    for rs in by_game.values():
        opens = {r[1]: r[2].split(".", 1)[1] for r in rs if r[2] in PHASE_NEWS}
        kind, count, group, whole, at = None, 0, 0, False, None
        for r in rs:
            if r[1] in opens and r[1] != at:
                if kind is not None:  # the phase open since the last close is whole
                    d.phases.setdefault(kind, []).append(count)
                    d.group.setdefault(kind, []).append(group)
                    whole = True
                else:
                    d.first.append((count, group))
                kind, at, count, group = opens[r[1]], r[1], 0, 0
                own = [x for x in rs if x[1] == at]
                d.opening.setdefault(kind, []).append((len(own), sum(int(x[3]) for x in own)))
            count += 1
            group += int(r[3])
        d.games += int(whole)
    with db.connect() as c:
        d.burst = int(
            c.execute(
                text("""
            select coalesce(max(n), 0) from (select count(*) n from outbox o join identities i on i.id = o.identity_id
            where o.game_id = any(:ids) and i.address like '-%' group by o.game_id, o.created_at) x"""),
                {"ids": ids},
            ).scalar_one()
        )
    return d


def worker_busy(log: str) -> dict[str, tuple[int, float]]:
    """Task name -> (runs, seconds), from the worker's log lines `Task lupus.x[...] succeeded in S s`."""
    out: dict[str, tuple[int, float]] = {}
    for m in re.finditer(r"Task (lupus\.[a-z_]+)\[[^]]*\] succeeded in ([0-9.]+)s", log):
        n, s = out.get(m[1], (0, 0.0))
        out[m[1]] = (n + 1, s + float(m[2]))
    return out


@dataclass
class Texts:
    delivered: int = 0
    rate: float = float("nan")  # first to last delivery
    busiest: int = 0  # most in any one second
    r429: int = 0
    errors: int = 0
    rows_written: int = 0
    rows_sent: int = 0
    backlog: int = 0  # rows pending at the end
    backlog_seconds: float = float("nan")  # that backlog at 30 a second
    span: float = float("nan")
    waiting_rate: float = float("nan")  # delivered a second in the seconds that began with texts waiting
    waiting_s: int = 0  # how many such seconds


WAITING = 60  # texts pending (two seconds' worth at 30 a second) for a second to count as one with texts waiting


def _waiting(db: Engine, stamps: list[float], since: float) -> tuple[float, int]:
    """Messages delivered a second over the whole seconds that began with at least WAITING Telegram
    texts pending (written and not yet sent): what the workers deliver when texts wait for them."""
    with db.connect() as c:
        spans = c.execute(
            text(
                "select extract(epoch from created_at), extract(epoch from sent_at) from outbox "
                "where channel = 'telegram' and created_at >= to_timestamp(:s)"
            ),
            {"s": since},
        ).all()
    made = sorted(float(a) for a, _ in spans)
    gone = sorted(float(b) for _, b in spans if b is not None)
    busy, n = 0, 0
    for second in range(int(stamps[0]), int(stamps[-1])):
        if bisect.bisect_right(made, second) - bisect.bisect_right(gone, second) >= WAITING:
            busy += 1
            n += bisect.bisect_left(stamps, second + 1) - bisect.bisect_left(stamps, second)
    return (n / busy if busy else float("nan")), busy


def texts(db: Engine, stats: dict[str, Any], since: float) -> Texts:
    stamps = sorted(at for at, _ in stats["sent"] if at >= since)
    t = Texts(delivered=len(stamps), r429=int(stats["r429"]), errors=int(stats["errors"]))
    if len(stamps) > 1:
        t.span = stamps[-1] - stamps[0]
        t.rate = (len(stamps) - 1) / t.span if t.span > 0 else float("nan")
        t.busiest = max(bisect.bisect_left(stamps, s + 1.0) - i for i, s in enumerate(stamps))
        t.waiting_rate, t.waiting_s = _waiting(db, stamps, since)
    with db.connect() as c:
        t.rows_written, t.rows_sent, t.backlog = (
            int(x)
            for x in c.execute(
                text(
                    "select count(*), count(*) filter (where status = 'sent'), "
                    "count(*) filter (where status in ('pending', 'sending')) from outbox "
                    "where channel = 'telegram' and created_at >= to_timestamp(:s)"
                ),
                {"s": since},
            ).one()
        )
    t.backlog_seconds = t.backlog / BOT_PER_SECOND
    return t


def print_report(
    args: Any,
    c: Closes,
    t: Texts,
    d: Day,
    played: Day,
    busy: dict[str, tuple[int, float]],
    memory: Any,
    client: dict[str, Any],
    run_s: float,
    setup_s: float,
    load: str,
) -> None:
    target_mb = 200.0
    late = c.late
    p = lambda q: pct(late, q)  # noqa: E731
    print(
        f"setup                {args.games} running games of 8 (clones of one real game hosted from its group, "
        f"each with its own 10 Telegram chats), {args.due} due over {args.window:.0f} s, phases of a minute; "
        f"{setup_s:.0f} s"
    )
    pool = f"{args.pool_processes} pool process{'es' if args.pool_processes > 1 else ''}"
    workers = f"{args.workers} worker{'s' * (args.workers > 1)}"
    print(
        f"run                  {run_s:.0f} s: 1 web process (lupus web), {workers} "
        f"({pool} each), Telegram answering in {args.telegram_latency * 1000:.0f} ms, beat's sweeps "
        f"every {args.sweep:g} s; load average {load}"
    )
    sent = client.get("sent", 0)
    print(
        f"players              {sent} updates POSTed ({sent / max(1e-9, client.get('seconds', 1)):.1f}/s, "
        f"{args.played} games played move by move, {args.talk:g} talk/s), answers {client.get('status')}, "
        f"latency from due p50 {client.get('p50', float('nan')) * 1000:.0f} ms, p99 "
        f"{client.get('p99', float('nan')) * 1000:.0f} ms, {client.get('late', 0)} sent over 1 s after due"
    )
    ok = "yes" if late and p(0.99) < args.sweep + 2 and not c.open_ else "no"
    print(
        f"deadlines met        {len(late) + c.early} of {c.due} phases due in the run closed "
        f"({c.early} early, every player having acted; {c.open_} still open at the end); lateness p50 "
        f"{p(0.5):.2f} s, p99 {p(0.99):.2f} s, max {max(late, default=float('nan')):.2f} s "
        f"(target p99 < {args.sweep + 2:g} s: {ok})"
    )
    print(
        f"telegram delivered   {t.delivered} messages in {t.span:.0f} s = {t.rate:.1f}/s, busiest second {t.busiest} "
        f"(limit 30/s: {'yes' if t.busiest <= 30 else 'no'})"
    )
    print(
        f"delivered a second   {args.workers} worker process{'es' * (args.workers > 1)}: {t.waiting_rate:.1f}/s "
        f"while texts waited ({t.waiting_s:.0f} s), ceiling {BOT_PER_SECOND:.0f}/s (Telegram's limit for one bot): "
        f"{t.waiting_rate / BOT_PER_SECOND:.0%}"
    )
    print(f"telegram 429s        {t.r429} (target 0: {'yes' if t.r429 == 0 else 'no'}); other errors {t.errors}")
    print(
        f"telegram backlog     {t.backlog} of {t.rows_written} texts written in the run still pending at the end "
        f"({t.rows_sent} sent); {t.backlog_seconds / 60:.1f} min more at 30/s"
    )
    for name in memory.peak:
        ok = "yes" if memory.peak[name] < target_mb else "no"
        print(
            f"memory {name:<13} {memory.end.get(name, float('nan')):.1f} MB resident at the end, peak "
            f"{memory.peak[name]:.1f} MB (target < {target_mb:.0f} MB: {ok})"
        )
    busy_s = sum(x for _, x in busy.values())
    print(
        f"worker pool busy     {busy_s:.0f} s of {run_s:.0f} s: "
        + ", ".join(
            f"{k.removeprefix('lupus.')} {n} x {x:.0f} s"
            for k, (n, x) in sorted(busy.items(), key=lambda kv: -kv[1][1])
        )
    )
    if d.games or d.night_estimated():
        per_msg = t.delivered / t.rows_sent if t.rows_sent else 1.0
        kinds = ", ".join(f"{k} {sum(v) / len(v):.1f} ({len(v)})" for k, v in sorted(d.phases.items()))
        rows_day, group_day = d.per_day(), d.per_day(group=True)
        busy_day = played.per_day() if played.games else float("nan")
        m_msgs = (busy_day if busy_day == busy_day else rows_day) * per_msg
        print(
            f"game-day texts       {rows_day:.1f} texts a game-day ({group_day:.1f} to the group), from the "
            f"whole phases of {d.games} games (texts a phase: {kinds}); the {played.games} played move by move: "
            f"{busy_day:.1f}; {per_msg:.2f} Telegram messages a text sent (merged texts) -> "
            f"{m_msgs:.1f} messages a game-day"
            + (
                " (no night was seen whole: a night counted as a close that opened one plus a clone's first night)"
                if d.night_estimated()
                else ""
                if d.phases.get("night")
                else " (no night at all: missing)"
            )
        )
        computed = BOT_PER_SECOND * DAY / m_msgs
        group_cap = GROUP_PER_MINUTE * 60 * 24
        print(
            f"capacity computed    {computed:,.0f} games (30/s x 86,400 s / {m_msgs:.1f} messages a game-day); the "
            f"group's 20/min ({group_cap:,.0f} a day against {group_day * per_msg:.1f}) does not bind over a day, "
            f"but a close's burst of up to {d.burst} group texts takes up to "
            f"{60 * max(0, d.burst - 1) / GROUP_PER_MINUTE:.0f} s more"
        )
        measured = t.rate * DAY / m_msgs if t.rate == t.rate else float("nan")
        print(
            f"capacity measured    {measured:,.0f} games (the {t.rate:.1f} messages/s delivered x 86,400 s / "
            f"{m_msgs:.1f}): {t.delivered / m_msgs:.0f} game-days' messages delivered in {run_s:.0f} s"
        )
    else:
        print("game-day texts       no phase was seen whole (opened and closed) in the run: a longer --max-run?")
