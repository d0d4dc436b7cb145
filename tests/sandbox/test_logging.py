"""Logs: one JSON object a line where a machine reads them, readable lines in a terminal; the
standard library's loggers (uvicorn, Celery, alembic) come out the same way. Run in a child process,
as the configuration is global."""

from __future__ import annotations

import json
import subprocess
import sys

PROGRAM = """
import logging, structlog
from service.ops.logging import configure
configure({json})
configure(json=not {json})  # a second call changes nothing
structlog.get_logger("lupus.test").info("phase.closed", game=7, phase_no=3)
logging.getLogger("uvicorn.error").warning("from %s", "the standard library")
try:
    1 / 0
except ZeroDivisionError:
    structlog.get_logger("lupus.test").exception("task.failed")
"""


def run(as_json: bool) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM.format(json=as_json)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stderr.splitlines()


def test_json_lines_in_production() -> None:
    lines = [json.loads(line) for line in run(True)]
    assert lines[0]["event"] == "phase.closed" and lines[0]["game"] == 7 and lines[0]["level"] == "info"
    assert lines[0]["timestamp"].endswith("Z")
    assert lines[1] == {**lines[1], "event": "from the standard library", "logger": "uvicorn.error", "level": "warning"}
    assert "ZeroDivisionError" in lines[2]["exception"]


def test_readable_lines_locally() -> None:
    lines = run(False)
    assert "phase.closed" in lines[0] and "game=7" in lines[0] and not lines[0].startswith("{")
    assert any("ZeroDivisionError" in line for line in lines)
