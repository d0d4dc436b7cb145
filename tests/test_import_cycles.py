"""The import knots among service/'s modules (``tests.import_cycles``): what the script counts, and
that no cycle of three or more modules forms again."""

from __future__ import annotations

from pathlib import Path

from tests.import_cycles import graph, knots, report


def test_no_three_modules_of_the_service_import_one_another_in_a_cycle() -> None:
    """The use cases were one knot of 14 modules (app, context, room, routing, the commands, ...):
    each command imported the context, which imported the application service back. A command sees
    the service only through ``context.Serving`` now; ghosts and series see the room they are
    called from through protocols of their own; and what the worker reports of refused mutes is
    told to the hosts from ``service.game.failures``, above the use cases."""
    assert not [k for k in knots(graph()) if len(k) >= 3], report()


def test_imports_in_functions_and_under_type_checking_count(tmp_path: Path) -> None:
    package = tmp_path / "service"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from service import b\n")
    (package / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .c import X\n")
    (package / "c.py").write_text("def f() -> None:\n    import service.a.thing\n")
    (package / "d.py").write_text("from service.a import b\n")  # a name from a, not a module
    edges = {(e.importer, e.imported, e.where) for e in graph(tmp_path)}
    assert edges == {
        ("service.a", "service.b", "top"),
        ("service.b", "service.c", "type-checking"),
        ("service.c", "service.a", "function"),
        ("service.d", "service.a", "top"),
    }
    assert knots(graph(tmp_path)) == [["service.a", "service.b", "service.c"]]
    assert "service.a -> service.b -> service.c -> service.a" in report(tmp_path)
