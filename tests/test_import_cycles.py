"""The import knots among service/'s modules (``tests.import_cycles``): what the script counts, and
that the one knot left, the game's use cases, does not grow."""

from __future__ import annotations

from pathlib import Path

from tests.import_cycles import graph, knots, report

# The knot as it is; shrink it as modules come out (docs/architecture.md), never grow it. The
# channels' packages may join it while they move (each channel one package, DESIGN.md).
KNOT = {"service.app", "service.catchup", "service.context", "service.ghosts", "service.host", "service.lobby",
        "service.more", "service.play", "service.rematch", "service.reminders", "service.room", "service.routing",
        "service.series", "service.volunteers"}


def test_no_module_joins_the_knot_of_the_use_cases() -> None:
    found = knots(graph())
    assert len(found) <= 1, report()
    for knot in found:
        joined = {m for m in knot if m not in KNOT and not m.startswith("service.channels.")}
        assert not joined, f"{sorted(joined)} joined the knot:\n{report()}"


def test_imports_in_functions_and_under_type_checking_count(tmp_path: Path) -> None:
    package = tmp_path / "service"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from service import b\n")
    (package / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .c import X\n")
    (package / "c.py").write_text("def f() -> None:\n    import service.a.thing\n")
    (package / "d.py").write_text("from service.a import b\n")  # a name from a, not a module
    edges = {(e.importer, e.imported, e.where) for e in graph(tmp_path)}
    assert edges == {("service.a", "service.b", "top"), ("service.b", "service.c", "type-checking"),
                     ("service.c", "service.a", "function"), ("service.d", "service.a", "top")}
    assert knots(graph(tmp_path)) == [["service.a", "service.b", "service.c"]]
    assert "service.a -> service.b -> service.c -> service.a" in report(tmp_path)
