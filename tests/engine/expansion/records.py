"""Play a scenario record and check its ``expect:`` block.

A scenario is a game record (``engine.record``) with one more key the engine ignores::

    expect:
      error: {move: 7, key: power.not_now}        # the replay must stop there, with that error
                                                  # (move 0: the game cannot be set up)
      summary: {alive: [ann, bob], winners: []}   # keys of engine.summary, each equal
      events:                                     # each must have happened (data: a subset)
        - {key: seer.result, to: [cat], data: {target: ann, were: true}}
        - {key: night.dawn, after: 4, data: {dead: [dan]}}   # after: caused by a later move than 4
      absent:                                     # none of these may have happened
        - {key: dorian_wolf.revealed}
      views:                                      # engine.view(state, player), dotted paths
        ann: {role: lara, public.revealed: {}}
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from engine import public_view, summary, view
from engine.errors import LupusError
from engine.record import ReplayError, parse_record, replay
from engine.types import Event

RECORDS = Path(__file__).resolve().parents[2] / "records" / "expansion"


def plain(value: Any) -> Any:
    return json.loads(json.dumps(value))


def _matches(event: Event, pos: int, want: dict[str, Any]) -> bool:
    if event.key != want["key"]:
        return False
    if "to" in want and (list(event.to) if event.to is not None else None) != want["to"]:
        return False
    if "after" in want and pos <= want["after"]:
        return False
    if "at" in want and pos != want["at"]:
        return False
    data = plain(dict(event.data))
    return all(k in data and data[k] == plain(v) for k, v in (want.get("data") or {}).items())


def _dig(obj: Any, path: str) -> Any:
    for part in path.split("."):
        obj = obj[part]
    return obj


def check(path: Path) -> None:
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    expect = raw.pop("expect")
    record = parse_record(raw)
    if "error" in expect:
        err = expect["error"]
        try:
            replay(record)
        except LupusError as e:  # the game could not even be set up
            assert (0, e.key) == (err["move"], err["key"]), f"{path.name}: {e}"
            if "reason" in err:
                assert err["reason"] in e.reason, e.reason
            return
        except ReplayError as e:
            assert (e.position, e.error.key) == (err["move"], err["key"]), f"{path.name}: {e}"
            if "reason" in err:
                assert err["reason"] in e.error.reason, e.error.reason
            return
        raise AssertionError(f"{path.name}: expected an error at move {err['move']}")
    result = replay(record)
    state = result.state
    got = plain(summary(state))
    for k, v in (expect.get("summary") or {}).items():
        assert got.get(k) == plain(v), f"{path.name}: summary[{k}] is {got.get(k)!r}, not {v!r}"
    for want in expect.get("events") or []:
        assert any(_matches(e, pos, want) for pos, e in result.events), (
            f"{path.name}: no event like {want}; got " + "\n".join(str(e.to_json()) for _, e in result.events))
    for want in expect.get("absent") or []:
        hits = [e.to_json() for pos, e in result.events if _matches(e, pos, want)]
        assert not hits, f"{path.name}: unexpected {hits}"
    for player, fields in (expect.get("views") or {}).items():
        v = plain(public_view(state) if player == "public" else view(state, player))
        for k, want_v in fields.items():
            assert _dig(v, k) == plain(want_v), f"{path.name}: view of {player}: {k} is {_dig(v, k)!r}"
