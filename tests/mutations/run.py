#!/usr/bin/env python3
"""Plant each bug of ``tests/mutations/*.patch`` in a scratch copy of the tree and show that the
tests its header names catch it: they pass without the patch and fail with it.

Each patch is one hole the suite once had (the README's "The holes the suite once had"), kept as
small as it can be. Its header says what it breaks and, on a ``Tests:`` line, the tests that must
fail with it (pytest node ids; one with parameters fails if any of its cases does). Run from the
repository with the project's interpreter, as .ci/run does:

    .venv/bin/python tests/mutations/run.py            # every patch
    .venv/bin/python tests/mutations/run.py 3 4        # the patches whose names start so

Exit status 0 when every patch applies and is caught; 1 otherwise, naming the patch: one that no
longer applies means the code it plants its bug in has changed (refresh the patch: make the same
small edit in the new code and keep ``git diff -U1`` of it under the same header).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent


@dataclass
class Mutation:
    path: Path
    tests: list[str]
    alone: bool = False
    """Its tests run in a lane of their own (``Alone: yes``): slow, or holding a shared resource."""

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def summary(self) -> str:
        return self.path.read_text().splitlines()[0]

    @classmethod
    def read(cls, path: Path) -> Mutation:
        lines = path.read_text().splitlines()
        tests = [line.removeprefix("Tests:").split() for line in lines if line.startswith("Tests:")]
        if not tests or not tests[0]:
            raise SystemExit(f"{path.name}: no 'Tests:' line names the tests that must catch it")
        return cls(path, tests[0], alone=any(line.startswith("Alone: yes") for line in lines))


def scratch_copy(into: Path) -> Path:
    """The working tree as git sees it (tracked and new files, not what .gitignore leaves out)."""
    files = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        .stdout.decode()
        .split("\0")
    )
    tree = into / "tree"
    for name in filter(None, files):
        source = ROOT / name
        if source.is_file():
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, tree / name)
    return tree


def apply(tree: Path, patch: Path, reverse: bool = False) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "apply", *(["-R"] if reverse else []), str(patch)], cwd=tree, capture_output=True, text=True
    )


def pytest(tree: Path, tests: list[str]) -> tuple[int, str]:
    """The tests, run in the scratch tree on its own code (not the checkout the interpreter's
    editable install points at)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider", *tests],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
    return run.returncode, run.stdout + run.stderr


def failed(output: str) -> set[str]:
    """The node ids pytest's short summary reports as failed or in error."""
    return {m.group(1) for m in re.finditer(r"^(?:FAILED|ERROR) (.+?)(?: - .*)?$", output, re.M)}


def caught_by(test: str, failures: set[str]) -> bool:
    return any(f == test or f.startswith(test + "[") for f in failures)


def tail(output: str, lines: int = 40) -> str:
    return "\n".join("    " + line for line in output.splitlines()[-lines:])


def why(output: str) -> str:
    """A failed run's first error lines (pytest's ``E`` lines) and its summary."""
    errors = [line for line in output.splitlines() if line.startswith("E ")][:12]
    return "\n".join("    " + line for line in errors) + "\n" + tail(output, 8)


_print_lock = threading.Lock()


def say(line: str) -> None:
    with _print_lock:
        print(line, flush=True)


def lane(mutations: list[Mutation], tmp: Path) -> list[str]:
    """In a scratch tree of its own: the lane's tests without any patch, then each patch and its
    tests. Returns the problems found."""
    problems: list[str] = []
    tree = scratch_copy(tmp)
    for m in list(mutations):  # first of all: does each still apply?
        check = subprocess.run(["git", "apply", "--check", str(m.path)], cwd=tree, capture_output=True, text=True)
        if check.returncode != 0:
            say(f"{m.name}: DOES NOT APPLY any more ({m.summary})\n{tail(check.stderr, 10)}")
            problems.append(f"{m.name} no longer applies: the code it plants its bug in changed; refresh it")
            mutations = [x for x in mutations if x is not m]
    if not mutations:
        return problems
    everything = list(dict.fromkeys(t for m in mutations for t in m.tests))
    names = ", ".join(m.name for m in mutations)
    t0 = time.monotonic()
    code, out = pytest(tree, everything)
    say(f"without a patch ({names}): {len(everything)} tests, exit {code} in {time.monotonic() - t0:.0f} s")
    if code != 0:
        say(why(out))
        problems.append(f"the tests of {names} fail without a patch: they prove nothing about the patches")
        return problems
    for m in mutations:
        check = apply(tree, m.path)
        if check.returncode != 0:
            say(f"{m.name}: DOES NOT APPLY any more ({m.summary})\n{tail(check.stderr, 10)}")
            problems.append(f"{m.name} no longer applies: the code it plants its bug in changed; refresh it")
            continue
        t0 = time.monotonic()
        try:
            code, out = pytest(tree, m.tests)
        finally:
            undone = apply(tree, m.path, reverse=True)
            if undone.returncode != 0:
                raise SystemExit(f"{m.name} could not be taken back out of the scratch tree: {undone.stderr}")
        failures = failed(out)
        missed = [t for t in m.tests if not caught_by(t, failures)]
        caught = code == 1 and not missed
        lines = [
            f"{m.name}: {m.summary}",
            f"  {'caught' if caught else 'NOT CAUGHT'} (exit {code}, {len(failures)} failing) "
            f"in {time.monotonic() - t0:.0f} s",
        ]
        lines += [f"    {'fails' if caught_by(t, failures) else 'PASSES'}: {t}" for t in m.tests]
        if not caught:
            lines.append(why(out))
            problems.append(f"{m.name} is not caught by {', '.join(missed) or 'a clean failure'} (pytest exit {code})")
        say("\n".join(lines))
    return problems


def main(argv: list[str]) -> int:
    wanted = argv[1:]
    mutations = [
        Mutation.read(p)
        for p in sorted(HERE.glob("*.patch"))
        if not wanted or any(p.name.startswith(w) for w in wanted)
    ]
    if not mutations:
        print("no patch matches", wanted)
        return 1
    started = time.monotonic()
    # Two lanes at once, each in a scratch tree of its own: the patches marked "Alone: yes" (the
    # slow worker-kill test, which owns its Redis database) and the rest.
    lanes = [ls for ls in ([m for m in mutations if m.alone], [m for m in mutations if not m.alone]) if ls]
    with tempfile.TemporaryDirectory(prefix="lupus-mutations-") as tmp, ThreadPoolExecutor(len(lanes)) as pool:
        dirs = [Path(tmp) / str(i) for i in range(len(lanes))]
        problems = [p for found in pool.map(lane, lanes, dirs) for p in found]
    print(f"{len(mutations)} patches in {time.monotonic() - started:.0f} s")
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
