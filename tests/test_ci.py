"""CI cannot go green with a service missing or a test skipped that may not be.

.ci/run requires every service the suite uses; a Redis test with Redis gone fails under
``LUPUS_REQUIRE_REDIS``, naming the address it looked at; and the skip gate (``tests/skips.py``)
fails a run for any skip not on its list. The last two are checked by running pytest on a small
module of tests in a subprocess, as CI would (its exit status is what CI reads)."""

from __future__ import annotations

import ast
import os
import re
import shutil
import socket
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from service.store.status import GameStatus, OutboxStatus, SeatStatus
from tests import skips

ROOT = Path(__file__).resolve().parents[1]

NEEDS_REDIS = """
from tests.databases import flushed_redis, redis_url

def test_needs_redis():
    with flushed_redis(redis_url(3)):
        pass
"""


def _dead_port() -> int:
    """A port nothing listens on (bound, then freed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def _pytest(tmp: Path, body: str, **env: str) -> subprocess.CompletedProcess[str]:
    """pytest on one module of tests, outside the repository's configuration but with its gate."""
    test = tmp / "test_it.py"
    test.write_text(textwrap.dedent(body))
    base = {k: v for k, v in os.environ.items() if not k.startswith("LUPUS_REQUIRE_")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "tests.skips", "-p", "no:cacheprovider", str(test)],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_ci_requires_every_service_the_suite_uses() -> None:
    run = (ROOT / ".ci" / "run").read_text()
    for service in ("REDIS", "POSTGRES", "BROWSER"):
        assert f"export LUPUS_REQUIRE_{service}=1" in run, service
    assert "tests/mutations/run.py" in run


def test_a_missing_redis_fails_where_it_is_required_naming_the_port(tmp_path: Path) -> None:
    port = str(_dead_port())
    required = _pytest(tmp_path, NEEDS_REDIS, LUPUS_TEST_REDIS_PORT=port, LUPUS_REQUIRE_REDIS="1")
    assert required.returncode == 1, required.stdout
    assert f"Redis is not running: nothing answers at redis://127.0.0.1:{port}/3" in required.stdout
    assert "LUPUS_REQUIRE_REDIS is set" in required.stdout


def test_a_missing_redis_is_a_loud_skip_where_it_is_not_required(tmp_path: Path) -> None:
    port = str(_dead_port())
    local = _pytest(tmp_path, NEEDS_REDIS, LUPUS_TEST_REDIS_PORT=port)
    assert local.returncode == 0, local.stdout
    assert "1 skipped" in local.stdout and f"redis://127.0.0.1:{port}/3" in local.stdout
    assert "CI sets LUPUS_REQUIRE_REDIS and fails these instead" in local.stdout


def test_a_skip_on_no_list_fails_the_run(tmp_path: Path) -> None:
    got = _pytest(
        tmp_path,
        """
        import pytest

        def test_fine():
            pass

        def test_skipped():
            pytest.skip("not today")

        @pytest.mark.skipif(True, reason="never here")
        def test_marked():
            pass
        """,
    )
    assert got.returncode == 1, got.stdout
    assert "2 skipped that may not be: the run fails" in got.stdout
    assert "test_it.py::test_skipped: not today" in got.stdout and "never here" in got.stdout


def test_a_module_skipped_whole_fails_the_run(tmp_path: Path) -> None:
    got = _pytest(
        tmp_path,
        """
        import pytest

        missing = pytest.importorskip("no_such_module_here")

        def test_never_collected():
            pass
        """,
    )
    assert got.returncode == 1, got.stdout
    assert "no_such_module_here" in got.stdout


def test_a_services_skip_fails_where_that_service_is_required(tmp_path: Path) -> None:
    """Even a skip with the allowed words, made by hand, fails under the variable that requires it."""
    body = """
        import pytest

        def test_by_hand():
            pytest.skip("Redis is not running: somewhere")
        """
    assert _pytest(tmp_path, body).returncode == 0
    assert _pytest(tmp_path, body, LUPUS_REQUIRE_REDIS="1").returncode == 1


@pytest.mark.parametrize("entry", skips.ALLOWED, ids=lambda e: e.name)
def test_the_readme_explains_every_skip_allowed(entry: skips.Allowed) -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Skipped tests", 1)[1].split("\n## ", 1)[0]
    assert f"`{entry.name}`" in section, entry.name
    if entry.unless:
        assert entry.unless in section


# One planted import per contract of pyproject.toml's [tool.importlinter] (by its name), each where a
# dependency is easy to miss: inside a function, or under TYPE_CHECKING (both count).
TYPE_CHECKING_ONLY = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    {}\n"
IN_A_FUNCTION = "def _planted() -> None:\n    {}\n"
PLANTS = {
    "engine imports the service": (
        "engine/__init__.py",
        IN_A_FUNCTION.format("import service.settings"),
        "worker, then service, then engine",
    ),
    "engine talks to a database": (
        "engine/tabula/table.py",
        IN_A_FUNCTION.format("import sqlalchemy"),
        "The engine is pure",
    ),
    "engine reads the clock": ("engine/lupusburg/close.py", IN_A_FUNCTION.format("import time"), "The engine is pure"),
    "service imports the worker": (
        "service/web.py",
        IN_A_FUNCTION.format("from worker import enqueue"),
        "worker, then service, then engine",
    ),
    "settings import the service": (
        "service/settings.py",
        TYPE_CHECKING_ONLY.format("from service.texts import i18n"),
        "The settings depend on nothing else in the service",
    ),
    "delivery imports a use case": (
        "service/delivery/rows.py",
        IN_A_FUNCTION.format("from service.game import room"),
        "The house's floors",
    ),
    "the store imports a use case": (
        "service/store/models.py",
        TYPE_CHECKING_ONLY.format("from service.game import play"),
        "The house's floors",
    ),
    "the texts import a channel": (
        "service/texts/render.py",
        IN_A_FUNCTION.format("import service.channels.sms"),
        "The house's floors",
    ),
    "the use cases import the web": (
        "service/game/play.py",
        IN_A_FUNCTION.format("from service import web"),
        "The house's floors",
    ),
    "a channel imports another": (
        "service/channels/sms/__init__.py",
        IN_A_FUNCTION.format("import service.channels.telegram.sender"),
        "Each channel is its own",
    ),
    "the context imports the app": (
        "service/game/context.py",
        TYPE_CHECKING_ONLY.format("from service.game.app import Service"),
        "The game's own floors",
    ),
}


def _tree(into: Path) -> Path:
    """The packages and pyproject.toml, where a planted import harms nothing (lint-imports reads the
    packages of its working directory first)."""
    for package in ("engine", "service", "worker"):
        shutil.copytree(ROOT / package, into / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", into / "pyproject.toml")
    return into


def _lint_imports(where: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(Path(sys.executable).parent / "lint-imports"), "--no-cache"],
        cwd=where,
        env={**os.environ, "COLUMNS": "400"},  # a contract's name and verdict on one line
        capture_output=True,
        text=True,
        timeout=120,
    )


def _verdicts(out: str) -> dict[str, str]:
    """Each contract's name, from pyproject.toml, and what lint-imports said of it (KEPT, BROKEN)."""
    names = [
        c["name"] for c in tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    ]
    lines = out.splitlines()
    return {
        name: next(line.removeprefix(name).strip() for line in lines if line.startswith(name + " ")) for name in names
    }


def test_the_import_contracts_hold_and_dev_py_test_runs_them(tmp_path: Path) -> None:
    assert '"lint-imports"' in (ROOT / "dev.py").read_text()
    clean = _lint_imports(_tree(tmp_path))
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert set(_verdicts(clean.stdout).values()) == {"KEPT"}, clean.stdout


@pytest.mark.parametrize("plant", PLANTS)
def test_a_planted_forbidden_import_fails_lint_imports(tmp_path: Path, plant: str) -> None:
    tree = _tree(tmp_path)
    module, code, contract = PLANTS[plant]
    with (tree / module).open("a") as f:
        f.write("\n\n" + code)
    got = _lint_imports(tree)
    assert got.returncode == 1, got.stdout + got.stderr
    broken = [name for name, verdict in _verdicts(got.stdout).items() if verdict == "BROKEN"]
    assert any(name.startswith(contract) for name in broken), got.stdout


def test_the_readme_layout_names_every_folder_of_the_service_and_nothing_that_is_not_there() -> None:
    """The README's table is read beside the folders (and docs/design.md's shape): each package and
    top-level module of service/ has its row, and each path the table names exists."""
    table = (ROOT / "README.md").read_text().split("## Layout", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"`((?:service|engine|worker)/[\w/.]*)`", table))
    assert named, table
    for path in named:
        assert (ROOT / path).exists(), path
    parts = {
        f"service/{p.name}/" if p.is_dir() else f"service/{p.name}"
        for p in (ROOT / "service").iterdir()
        if p.name not in ("__init__.py", "__pycache__", "py.typed") and (p.is_dir() or p.suffix == ".py")
    }
    missing = {part for part in parts if not any(n == part or n.startswith(part) for n in named)}
    assert not missing, missing


def _status_literals(tree: ast.AST) -> list[int]:
    """Lines comparing a ``status`` (or assigning one) to a string written out, not a member of
    ``service.store.status``'s enums."""
    values = {v.value for enum in (GameStatus, SeatStatus, OutboxStatus) for v in enum}

    def named_status(node: ast.AST) -> bool:
        name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
        return isinstance(name, str) and name.endswith("status")

    def literal(node: ast.AST) -> bool:
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            return any(literal(e) for e in node.elts)
        return isinstance(node, ast.Constant) and node.value in values

    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(named_status(s) for s in sides) and any(literal(s) for s in sides):
                lines.append(node.lineno)
        elif isinstance(node, ast.Assign) and any(named_status(t) for t in node.targets) and literal(node.value):
            lines.append(node.lineno)
        elif isinstance(node, ast.keyword) and node.arg == "status" and literal(node.value):
            lines.append(node.value.lineno)
    return lines


def test_no_status_is_a_string_written_out() -> None:
    """Issue 32: a game's, a seat's and an outbox row's statuses are ``service.store.status``'s
    enums; a typo in a string written out would compare unequal for ever, silently."""
    found = {
        f"{p.relative_to(ROOT)}:{line}"
        for package in ("service", "worker")
        for p in (ROOT / package).rglob("*.py")
        if "migrations" not in p.parts and p.name != "status.py"
        for line in _status_literals(ast.parse(p.read_text()))
    }
    assert not found, sorted(found)
    planted = ast.parse('if game.status == "running":\n    row.status = "sent"\nsettle(rows, status="failed")\n')
    assert _status_literals(planted) == [1, 2, 3]
