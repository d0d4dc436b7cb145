#!/usr/bin/env python3
"""The project's two front doors, usable on a fresh clone with nothing but Python 3.11+.

    python3 dev.py up      run the service locally on embedded defaults
    python3 dev.py test    run the formatter's check, ruff, mypy, the import contracts and the whole test
                           suite (what CI runs); `test --fast` leaves out the tests that start the
                           real processes (a few minutes: before each commit)
    python3 dev.py lock    pin the dependencies again (requirements.lock) after pyproject.toml changed

Each command first makes `.venv` and installs the project into it, every dependency at the version
requirements.lock pins (only when pyproject.toml or the lock changed since the last install), so
there is nothing to set up by hand.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / "python"
STAMP = VENV / ".installed"
LOCK = ROOT / "requirements.lock"
# Every extra (dev, flower) in one lock, used as constraints: an install takes only what it asks for.
# --allow-unsafe: pip and setuptools pinned too, so that the lock is closed.
LOCK_COMMAND = [
    "-m",
    "piptools",
    "compile",
    "--quiet",
    "--all-extras",
    "--strip-extras",
    "--allow-unsafe",
    "--no-emit-index-url",
    "--no-emit-find-links",
    "--output-file=requirements.lock",
    "pyproject.toml",
]


def _run(cmd: list[str], **kw: object) -> int:
    print("+", " ".join(str(c) for c in cmd), flush=True)
    return subprocess.call(cmd, cwd=ROOT, **kw)  # type: ignore[arg-type]


def digest() -> str:
    """What .venv was installed from. Both files: a new lock (a dependency bumped, `dev.py lock`)
    must reach .venv as surely as a new dependency in pyproject.toml does."""
    return hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + b"\0" + LOCK.read_bytes()).hexdigest()


def ensure_venv() -> None:
    if not PY.exists() and _run([sys.executable, "-m", "venv", str(VENV)]) != 0:
        sys.exit("could not create .venv")
    digest_now = digest()
    if STAMP.exists() and STAMP.read_text() == digest_now:
        return
    _run([str(PY), "-m", "pip", "install", "-q", "--upgrade", "pip"])
    if _run([str(PY), "-m", "pip", "install", "-q", "-c", str(LOCK), "-e", ".[dev]"]) != 0:
        sys.exit("installing the project failed")
    STAMP.write_text(digest_now)


def up(args: list[str]) -> int:
    cmd = [str(BIN / "lupus"), "up", *args]
    print("+", " ".join(cmd), flush=True)
    proc = subprocess.Popen(cmd, cwd=ROOT)
    while True:
        try:
            return proc.wait()
        except KeyboardInterrupt:
            # Ctrl-C reached `lupus up` too (the terminal signals the whole group) and it is
            # stopping cleanly: wait for it (subprocess.call would kill it after a quarter second).
            continue


def test(args: list[str]) -> int:
    fast = "--fast" in args
    args = [a for a in args if a != "--fast"]
    started = time.monotonic()
    code = _run([str(BIN / "ruff"), "format", "--check", "."])
    code |= _run([str(BIN / "ruff"), "check", "."])
    code |= _run([str(PY), "-m", "mypy"])
    # The import contracts of pyproject.toml ([tool.importlinter]); half a second, so not cached.
    code |= _run([str(BIN / "lint-imports"), "--no-cache"])
    # The fast lane leaves out the tests that start the real processes (`pytest.mark.processes`).
    code |= _run([str(PY), "-m", "pytest", "-q", *(["-m", "not processes"] if fast else []), *args])
    minutes, seconds = divmod(round(time.monotonic() - started), 60)
    print(f"{'fast' if fast else 'full'} lane: {minutes} min {seconds:02d} s, {'passed' if code == 0 else 'FAILED'}")
    print(largest_modules())
    return code


def largest_modules(count: int = 3) -> str:
    """The longest modules of the service, measured (a module past about 450 lines after formatting
    is one to split where its parts differ: CONTRIBUTING.md)."""
    sizes = sorted(
        (
            (len(p.read_text().splitlines()), str(p.relative_to(ROOT)))
            for package in ("engine", "service", "worker")
            for p in (ROOT / package).rglob("*.py")
            if "migrations" not in p.parts
        ),
        reverse=True,
    )
    return "longest modules: " + ", ".join(f"{path} {n}" for n, path in sizes[:count])


def main() -> int:
    if sys.version_info < (3, 11):  # noqa: UP036 - the one place an old Python is told what it needs
        sys.exit(f"Python 3.11 or newer is needed (found {sys.version.split()[0]})")
    if len(sys.argv) < 2 or sys.argv[1] not in {"up", "test", "lock"}:
        print(__doc__)
        return 2
    ensure_venv()
    cmd, rest = sys.argv[1], sys.argv[2:]
    if cmd == "lock":  # then install what it pinned
        code = _run([str(PY), *LOCK_COMMAND, *rest])
        ensure_venv()
        return code
    return up(rest) if cmd == "up" else test(rest)


if __name__ == "__main__":
    sys.exit(main())
