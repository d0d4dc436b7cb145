"""Skips that a run may show, and a run that fails on any other.

A skipped test is a test that did not run, and a green summary with "24 skipped" in it hides a
broken product as well as a red one would show it (CI once passed with Redis gone). So every
skip must be on ``ALLOWED``, which the README explains ("Skipped tests"): a service the test needs
is not running, on a machine that does not require it (``tests.databases.missing``). A skip on no
list, or a service's skip under the variable that requires that service, fails the run, whatever
the tests said. The skips that are allowed are counted loudly at the end, with what CI would do.

Loaded for every run of the suite by ``tests/conftest.py`` (so ``python3 dev.py test``, .ci/run and
a plain ``pytest`` agree), and by ``-p tests.skips`` for a test run elsewhere (``tests/test_ci.py``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

import pytest


@dataclass(frozen=True)
class Allowed:
    name: str
    pattern: str
    """A regular expression searched for in the skip's reason."""
    unless: str | None
    """The environment variable under which this skip is a failure instead (CI sets it)."""
    why: str

    def matches(self, reason: str) -> bool:
        return re.search(self.pattern, reason) is not None


ALLOWED = (
    Allowed(
        "postgres",
        r"^PostgreSQL is not running: ",
        "LUPUS_REQUIRE_POSTGRES",
        "the PostgreSQL half of the service and reliability tests, without a server on 127.0.0.1:5432",
    ),
    Allowed(
        "redis",
        r"^Redis is not running: ",
        "LUPUS_REQUIRE_REDIS",
        "the real worker, the Redis limiter and broker, without a Redis server where the tests look",
    ),
    Allowed(
        "redis-tls",
        r"^(redis-server and openssl are needed|this redis-server cannot serve TLS)",
        "LUPUS_REQUIRE_REDIS",
        "the rediss:// test, without a redis-server built with TLS",
    ),
    Allowed(
        "chromium",
        r"chromium is missing",
        "LUPUS_REQUIRE_BROWSER",
        "the sandbox page's browser test, without Debian's Chromium",
    ),
    Allowed(
        "dev-venv",
        r"^runs where dev\.py made \.venv",
        None,
        "the test of `python3 dev.py up` in a terminal, where dev.py did not make the virtualenv",
    ),
)


def verdict(reason: str) -> Allowed | None:
    """The entry that allows this skip here and now, or None: the run must fail."""
    for entry in ALLOWED:
        if entry.matches(reason):
            return None if entry.unless and os.environ.get(entry.unless) else entry
    return None


def _reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return reason.removeprefix("Skipped: ")


@dataclass(eq=False)  # a plugin: pytest keeps it in sets, by identity
class SkipGate:
    """Notes every skip of the run (a test's, or a whole module's at collection), fails the run for
    those ``verdict`` refuses, and tells the others loudly."""

    seen: list[tuple[str, str]] = field(default_factory=list)

    def _note(self, report: pytest.TestReport | pytest.CollectReport) -> None:
        if report.skipped and not hasattr(report, "wasxfail"):
            self.seen.append((report.nodeid, _reason(report)))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self._note(report)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        self._note(report)

    def refused(self) -> list[tuple[str, str]]:
        return [(test, reason) for test, reason in self.seen if verdict(reason) is None]

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.refused() and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.seen:
            return
        tr = terminalreporter
        allowed: dict[str, list[str]] = {}
        for test, reason in self.seen:
            entry = verdict(reason)
            if entry is not None:
                allowed.setdefault(entry.name, []).append(test)
        for entry in ALLOWED:
            tests = allowed.get(entry.name)
            if tests:
                tr.section(f"{len(tests)} skipped: {entry.why}", sep="!", yellow=True, bold=True)
                if entry.unless:
                    tr.write_line(
                        f"CI sets {entry.unless} and fails these instead. "
                        "Start the service, or expect .ci/run to fail them.",
                        yellow=True,
                    )
        refused = self.refused()
        if refused:
            tr.section(f"{len(refused)} skipped that may not be: the run fails", sep="!", red=True, bold=True)
            for test, reason in refused:
                tr.write_line(f"{test}: {reason}", red=True)
            tr.write_line(
                "A skip is allowed only on tests/skips.py's ALLOWED (the README's \"Skipped tests\"), and "
                "a missing service's only where its LUPUS_REQUIRE_* variable is not set.",
                red=True,
            )


def pytest_configure(config: pytest.Config) -> None:
    if not config.pluginmanager.has_plugin("lupus-skip-gate"):
        config.pluginmanager.register(SkipGate(), "lupus-skip-gate")
