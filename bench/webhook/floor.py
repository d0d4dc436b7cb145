"""PostgreSQL's own floor for the moves the app just served: the transactions the web processes
sent (captured by ``server.py`` while the bench played the day's mix), replayed by pgbench on a
replica of the bench's database (``CREATE DATABASE ... TEMPLATE``, so built by the migrations and
holding the same games), with nothing but PostgreSQL and pgbench's C client on the machine.

Each captured transaction that logged a move (an ``INSERT INTO inbound``) and committed becomes one
pgbench script (``BEGIN``, its statements, ``COMMIT``). Each of the bench's clients is one pgbench
of its own, whose scripts share no game with another's (``buckets``); it picks one of its scripts
at random for each transaction it runs, with prepared statements (``-M prepared``: each statement
parsed and planned once per connection, as psycopg's cache does for the app). The floor in moves a
second is the sum over the clients of their transactions a second times the mean moves their
scripts carry (batches of several moves, when the app made them, are replayed as batches).

Replaying a transaction again must do the same work again, so four rewrites are made, each read
off the statement or the catalog, never off a list of the app's tables:

- a value the replay would repeat where the database wants it unique (the last column of each
  unique index of the table an INSERT writes: an inbound's ``external_id``, an event's ``seq``, an
  outbox row's ``dedup_key``) is made unique by a sequence of the replica's (``prepare``);
- an UPDATE's compare-and-set (``WHERE ... version = <old>`` on a column the same UPDATE sets) is
  compared with the column itself, so it still updates the row it found;
- a batch's ``SET LOCAL lock_timeout`` is left out: the app runs a batch that waited too long
  for a game again, command by command, which pgbench cannot do (a deadlock it retries:
  ``--max-tries``);
- string literals are written as ``E'...'`` with their colons escaped, since pgbench reads
  ``:word`` anywhere in a statement as one of its variables (JSON's ``"outcome":null``).
"""

from __future__ import annotations

import json
import random
import re
import subprocess
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_SCRIPTS = 100  # a client's; pgbench takes at most 128
SEQUENCE = "bench_floor_unique"
PARAM = re.compile(r"%\((\w+)\)s")
QUOTED = re.compile(r"(\bE)?'((?:[^'\\]|''|\\.)*)'")


@dataclass
class Captured:
    statements: list[tuple[str, dict[str, str], dict[str, int]]]
    """Each statement, its parameters as SQL literals, and the length of those that are arrays."""

    @property
    def moves(self) -> int:
        return sum(1 for sql, _, _ in self.statements if sql.startswith("INSERT INTO inbound "))


def transactions(folder: Path) -> list[Captured]:
    """The committed transactions that logged at least one move, from every web process's file."""
    out = []
    for path in sorted(folder.glob("statements-*.jsonl")):
        open_: dict[str, list[tuple[str, dict[str, str], dict[str, int]]]] = defaultdict(list)
        for line in path.read_text().splitlines():
            entry = json.loads(line)
            conn = entry["conn"]
            if "end" in entry:
                statements = open_.pop(conn, [])
                if entry["end"] == "commit" and statements:
                    out.append(Captured(statements))
            else:
                lengths = entry.get("lengths") or [{} for _ in entry["rows"]]
                for row, sizes in zip(entry["rows"] or [{}], lengths or [{}], strict=False):
                    open_[conn].append((entry["sql"], row, sizes))
    return [t for t in out if t.moves]


def unique_columns(db: Any) -> dict[str, set[str]]:
    """Each table's columns that end a unique index other than its primary key."""
    from sqlalchemy import text

    with db.connect() as c:
        rows = c.execute(
            text("""
            select t.relname, a.attname
            from pg_index i join pg_class t on t.oid = i.indrelid
                 join pg_attribute a on a.attrelid = t.oid and a.attnum = i.indkey[i.indnatts - 1]
            join pg_namespace n on n.oid = t.relnamespace
            where i.indisunique and not i.indisprimary and n.nspname = 'public'""")
        ).all()
    out: dict[str, set[str]] = defaultdict(set)
    for table, column in rows:
        out[table].add(column)
    return out


def _escaped(literal: str) -> str:
    """A SQL literal with each quoted part as an E'' string whose colons are escaped (psycopg writes a
    string with backslashes as E'' already, its backslashes escaped; the others get theirs)."""

    def one(m: re.Match[str]) -> str:
        body = m.group(2) if m.group(1) else m.group(2).replace("\\", "\\\\")
        return "E'" + body.replace(":", "\\x3a") + "'"

    return QUOTED.sub(one, literal)


def script(t: Captured, unique: dict[str, set[str]]) -> str:
    """One pgbench script replaying ``t`` (on a database ``prepare`` made ready)."""
    lines = ["BEGIN;"]
    for sql, params, sizes in t.statements:
        if sql.startswith("SET LOCAL lock_timeout"):
            continue  # the app runs a batch that waited too long again, alone; pgbench cannot: it waits
        table = re.match(r"INSERT INTO (\w+)", sql)
        keep_unique = unique.get(table.group(1), set()) if table else set()
        if sql.startswith("UPDATE "):
            head, _, where = sql.partition(" WHERE ")
            set_cols = set(re.findall(r"(\w+)=%\(\w+\)s", head))
            for col in set_cols:
                where = re.sub(rf"(\w+\.{col}) = %\(\w+\)s(::\w+)?", r"\1 = \1", where)
            sql = head + " WHERE " + where

        parts = PARAM.split(sql)  # text, name, text, name, ..., text
        for k in range(1, len(parts), 2):
            name = parts[k]
            if name.split("__")[0] in keep_unique:
                text_ = params[name].startswith("'") and not params[name].endswith(("int2[]", "int4[]", "int8[]"))
                n = f"('u' || nextval('{SEQUENCE}'))" if text_ else f"nextval('{SEQUENCE}')"
                # A column of rows inserted at once (unnest of an array): as many new values.
                parts[k] = f"ARRAY(SELECT {n} FROM generate_series(1, {sizes[name]}))" if name in sizes else n
            else:
                parts[k] = _escaped(params[name])
        lines.append("".join(parts) + ";")
    lines.append("COMMIT;")
    return "\n".join(lines) + "\n"


@dataclass
class Floor:
    tps: float
    """Transactions a second, every client's together."""
    moves: float
    """Moves a second: each client's transactions a second times the mean moves its scripts carry."""
    pg_cpu: float = 0.0
    """CPU seconds of every PostgreSQL process (backends, WAL writer, checkpointer...) in the run."""
    client_cpu: float = 0.0
    seconds: float = 0.0


def games_of(t: Captured) -> set[str]:
    """The games a transaction loads or writes: those whose seats it read (every command loads its
    game's table) and those it updated."""
    out = set()
    for sql, params, _ in t.statements:
        if "FROM seats" in sql and "game" in params:
            out.add(params["game"])
        elif sql.startswith("UPDATE games ") and "_id" in params:
            out.add(params["_id"])
    return out


def buckets(captured: list[Captured], clients: int, seed: int = 7) -> list[list[Captured]]:
    """The transactions dealt to ``clients`` clients so that no two clients share a game, each at
    most ``MAX_SCRIPTS``: in a random order, each goes to the client that already has its games,
    or, when none has any, to the client with the fewest; one whose games two clients have is left
    out. The app's moves come from many games, a few at a time in each; replayed by every client at
    random, a hundred scripts would make sixteen clients queue on the same rows, and PostgreSQL's
    floor would be the lock's, not its own."""
    rnd = random.Random(seed)
    owner: dict[str, int] = {}
    out: list[list[Captured]] = [[] for _ in range(clients)]
    for t in rnd.sample(captured, len(captured)):
        games = games_of(t)
        owners = {owner[g] for g in games if g in owner}
        if len(owners) > 1:
            continue
        c = owners.pop() if owners else min(range(clients), key=lambda k: len(out[k]))
        if len(out[c]) >= MAX_SCRIPTS:
            continue
        out[c].append(t)
        owner.update(dict.fromkeys(games, c))
    return [b for b in out if b]


def write_scripts(dealt: list[list[Captured]], unique: dict[str, set[str]], into: Path) -> None:
    """Each client's scripts in a folder of its own under ``into`` (``client-00``, ...)."""
    for c, scripts in enumerate(dealt):
        folder = into / f"client-{c:02}"
        folder.mkdir(parents=True, exist_ok=True)
        for i, t in enumerate(scripts):
            (folder / f"tx{i:03}.sql").write_text(script(t, unique))


def prepare(replica: Any) -> None:
    """What the scripts need of the replica: the sequence their unique values come from."""
    from sqlalchemy import text

    with replica.begin() as c:
        c.execute(text(f"CREATE SEQUENCE {SEQUENCE} START 1000000000"))  # above every value in use


def pgbench(database: str, dealt: list[list[Captured]], scripts: Path, seconds: float) -> Floor:
    """One pgbench a client, all at once, each replaying its own scripts on ``database``."""
    runs = []
    for c in range(len(dealt)):
        cmd = [
            "pgbench",
            "-n",
            "-M",
            "prepared",
            "-c",
            "1",
            "-T",
            str(max(1, round(seconds))),
            "--max-tries",
            "20",
            "-h",
            "127.0.0.1",
            "-U",
            "postgres",
        ]
        for f in sorted((scripts / f"client-{c:02}").glob("tx*.sql")):
            cmd += ["-f", str(f)]
        runs.append(
            subprocess.Popen(
                ["/usr/bin/time", "-f", "CPU %U %S", *cmd, database],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    tps = moves = cpu = 0.0
    for run, mine in zip(runs, dealt, strict=True):
        out, err = run.communicate()
        m = re.search(r"tps = ([\d.]+) \(without initial connection time\)", out)
        if run.returncode != 0 or m is None:
            raise SystemExit(f"pgbench failed:\n{out[-2000:]}{err[:3000]}")
        tps += float(m.group(1))
        moves += float(m.group(1)) * sum(t.moves for t in mine) / len(mine)
        used = re.search(r"CPU ([\d.]+) ([\d.]+)", err)
        cpu += (float(used.group(1)) + float(used.group(2))) if used else 0.0
    return Floor(tps, moves, client_cpu=cpu, seconds=seconds)
