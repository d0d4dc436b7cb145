"""`lupus` reads like the tools operators know: click's plain help, each paragraph flowed to the
terminal rather than broken where the docstring was, no type tags beside flags or arguments, a
`--version`, and every command's exit status in its own help and in the runbook."""

from __future__ import annotations

import re
from importlib.metadata import version

import pytest
import typer
from typer.testing import CliRunner

from service.cli import app
from service.settings import get_settings

from .procfile import ROOT

TAG = re.compile(r"<(int|str|bool|path|file|float|text|integer)>|\b(INTEGER|TEXT|BOOLEAN|PATH)\b")


def commands() -> list[list[str]]:
    """Every command's words: `doctor`, `db upgrade`..."""
    group = typer.main.get_command(app)
    out: list[list[str]] = []
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        subs = getattr(command, "commands", None)
        out += [[name, sub] for sub in subs] if subs else [[name]]
    return out


def helped(*words: str) -> str:
    done = CliRunner().invoke(app, [*words, "--help"], terminal_width=80)
    assert done.exit_code == 0, done.output
    return done.output


def test_the_command_list_gives_each_command_one_line() -> None:
    text = helped()
    listed = text.split("Commands:\n", 1)[1].splitlines()
    names = list(dict.fromkeys(words[0] for words in commands()))
    assert [line.split()[0] for line in listed if line.strip()] == names, text  # no continuation lines
    assert not TAG.search(text) and "╭" not in text, text


@pytest.mark.parametrize("words", commands(), ids=" ".join)
def test_each_command_s_help_is_flowed_untagged_and_says_its_exit_status(words: list[str]) -> None:
    text = helped(*words)
    assert not TAG.search(text), text
    assert "Exit status: 0 " in " ".join(text.split()), text
    description = text.split("\n\n", 1)[1].split("\nArguments:")[0].split("\nOptions:")[0]
    for paragraph in description.split("\n\n"):
        lines = paragraph.splitlines()
        # Flowed: every line but a paragraph's last is filled near the width, not cut where the
        # docstring's source line ended.
        assert all(len(line) > 60 for line in lines[:-1]), paragraph


@pytest.mark.parametrize("words", [["games"], ["outbox"], ["db", "upgrade"]], ids=" ".join)
def test_a_database_that_does_not_answer_is_one_line_and_status_1(
    words: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql://lupus@127.0.0.1:9/lupus")
    get_settings.cache_clear()
    try:
        done = CliRunner().invoke(app, words)
    finally:
        get_settings.cache_clear()
    assert done.exit_code == 1 and not isinstance(done.exception, Exception), (done.output, done.exception)
    assert "port 9 failed: Connection refused" in done.output and "Traceback" not in done.output, done.output


def test_version() -> None:
    done = CliRunner().invoke(app, ["--version"])
    assert done.exit_code == 0 and done.output == f"lupus {version('lupus-by-message')}\n", done.output


def test_the_runbook_gives_every_command_s_exit_status() -> None:
    runbook = (ROOT / "deploy" / "README.md").read_text()
    table = runbook.split("### Exit status", 1)[1].split("\n## ", 1)[0]
    assert "worker, beat" in table
    for words in commands():
        assert f"`lupus {' '.join(words)}`" in table, words
