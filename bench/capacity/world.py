"""The games of the capacity bench: one real game started through the service, then cloned.

The template is a table of eight hosted from a Telegram group (as `bench/fanout`'s tables are: the
host moderates from the group, the players join there and read it, and act from their private
chats), its phases made a minute long (`night_minutes`, `nominations_minutes`, `ballot_minutes`:
the compressed day; the product's shortest phase is a minute). Each clone gets its own identities
(host, group, eight players: distinct Telegram chats, so that each chat's limits are its own), its
own seats pointing at them, and a deadline: `due` of them spread over the next `window` seconds,
the rest days away.

Addresses: clone k's players are Telegram users 10^7 + 100 k + 1..8, its host 10^7 + 100 k + 9, its
group -(10^7 + 100 k + 9); the template is k = 0.
"""

from __future__ import annotations

import json
from datetime import datetime

from sqlalchemy import Engine, text

from service.game.app import Service
from service.settings import Settings

NAMES = ("ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal")
BASE = 10**7
# The clones (codes K00001...; a code the service makes has four characters), with their number k.
CLONES = (
    "(select id, ('x' || lpad(substr(code, 2), 8, '0'))::bit(32)::int as k from games "
    "where code like 'K%' and length(code) = 6 and id > :t)"
)
PHASE_MINUTES = {"night_minutes": 1, "nominations_minutes": 1, "ballot_minutes": 1}


def address(k: int, pos: int) -> str:
    """Clone k's Telegram user at `pos` (1..8 players, 9 the host)."""
    return str(BASE + 100 * k + pos)


def group(k: int) -> str:
    return str(-(BASE + 100 * k + 9))


def template_game(url: str) -> int:
    """One game of eight started through the service, hosted from its group; returns its id."""
    svc = Service(Settings(_env_file=None, DATABASE_URL=url))  # type: ignore[call-arg]
    n = iter(range(10**6))

    def say(addr: str, line: str, in_group: bool = False) -> None:
        svc.handle_inbound("telegram", addr, f"tpl{next(n)}", line, chat=group(0) if in_group else None)

    host = address(0, 9)
    say(host, "/start")
    say(host, "new", in_group=True)
    with svc.db.connect() as c:
        gid, code = c.execute(text("select id, code from games order by id desc limit 1")).one()
    for i, name in enumerate(NAMES, start=1):
        say(address(0, i), "/start")
        say(address(0, i), f"join {code} {name}", in_group=True)
    with svc.db.begin() as c:
        opts = json.loads(c.execute(text("select options::text from games where id = :g"), {"g": gid}).scalar_one())
        opts.update(PHASE_MINUTES)
        c.execute(text("update games set options = cast(:o as json) where id = :g"), {"g": gid, "o": json.dumps(opts)})
    say(host, "start", in_group=True)
    with svc.db.begin() as c:
        status = c.execute(text("select status from games where id = :g"), {"g": gid}).scalar_one()
        assert status == "running", status
        # What starting the template wrote is not the run's: taken as delivered.
        c.execute(text("update outbox set status = 'sent', sent_at = now() where status in ('pending','sending')"))
    svc.db.dispose()
    return int(gid)


def _columns(c: object, table: str) -> list[str]:
    return [
        str(r[0])
        for r in c.execute(
            text(  # type: ignore[attr-defined]
                "select column_name from information_schema.columns where table_name = :t and table_schema = 'public' "
                "order by ordinal_position"
            ),
            {"t": table},
        )
    ]


def clone(db: Engine, template: int, first: int, n: int, deadline_sql: str) -> None:
    """Clones `first` .. `first + n - 1` of the template (k in the addresses), each with its own
    identities and seats; `deadline_sql` gives clone k's deadline (an expression of `g`, 0..n-1)."""
    with db.begin() as c:
        gcols = [x for x in _columns(c, "games") if x not in ("id", "code", "deadline", "host_id", "group_id")]
        icols = [x for x in _columns(c, "identities") if x not in ("id", "address", "current_game_id")]
        scols = [x for x in _columns(c, "seats") if x not in ("id", "game_id", "identity_id")]
        c.execute(
            text(f"""
            insert into games (code, deadline, {", ".join(gcols)})
            select 'K' || lpad(upper(to_hex(:first + g)), 5, '0'), {deadline_sql}, {", ".join(gcols)}
            from games, generate_series(0, :n - 1) g where games.id = :t"""),
            {"n": n, "t": template, "first": first},
        )
        c.execute(text("analyze games"))
        # The template's identities (host, group, players), each once per clone, at that clone's address.
        c.execute(
            text(f"""
            insert into identities (address, current_game_id, {", ".join(icols)})
            select case when i.address like '-%' then (i.address::bigint - 100 * k.k)::text
                        else (i.address::bigint + 100 * k.k)::text end,
                   k.id, {", ".join("i." + x for x in icols)}
            from identities i
            join {CLONES} k on k.k between :first and :first + :n - 1
            where i.id in (select identity_id from seats where game_id = :t
                           union select host_id from games where id = :t
                           union select group_id from games where id = :t)"""),
            {"n": n, "t": template, "first": first},
        )
        c.execute(text("analyze identities"))  # else the planner takes the new rows for none, and loops
        c.execute(
            text(f"""
            insert into seats (game_id, identity_id, {", ".join(scols)})
            select k.id, ni.id, {", ".join("s." + x for x in scols)}
            from seats s join identities ti on ti.id = s.identity_id
            join {CLONES} k on k.k between :first and :first + :n - 1
            join identities ni on ni.channel = ti.channel
                 and ni.address = (ti.address::bigint + 100 * k.k)::text
            where s.game_id = :t"""),
            {"n": n, "t": template, "first": first},
        )
        c.execute(
            text(f"""
            update games g set
              host_id = (select ni.id from identities ti, identities ni where ti.id = t.host_id
                         and ni.channel = ti.channel and ni.address = (ti.address::bigint + 100 * k.k)::text),
              group_id = (select ni.id from identities ti, identities ni where ti.id = t.group_id
                          and ni.channel = ti.channel and ni.address = (ti.address::bigint - 100 * k.k)::text)
            from games t, {CLONES} k
            where t.id = :t and k.id = g.id and k.k between :first and :first + :n - 1"""),
            {"n": n, "t": template, "first": first},
        )
        c.execute(text("analyze"))


def deadlines(db: Engine, ids: list[int]) -> dict[int, tuple[int, datetime | None, str]]:
    """game -> (phase_no, deadline, status)."""
    with db.connect() as c:
        return {
            int(g): (int(p), d, str(s))
            for g, p, d, s in c.execute(
                text("select id, phase_no, deadline, status from games where id = any(:ids)"), {"ids": ids}
            )
        }
