"""app.json, deploy/fly.toml and the Procfile parse and agree: the same processes, the same commands,
the release step running the migrations, one beat."""

from __future__ import annotations

import shlex

from .procfile import ROOT, app_json, fly_toml, procfile

PROCESSES = {"web", "worker", "beat"}


def words(command: str) -> list[str]:
    """A command's words with the shell's defaults spelled out (Heroku runs a Procfile line in a
    shell; Fly runs a process without one, so its fly.toml line has the values written in)."""
    spelled = (command.replace("'*'", "*").replace("${PORT:-8000}", "8080")
               .replace("${WORKER_CONCURRENCY:-2}", "2"))
    return shlex.split(spelled)


def test_procfile_names_the_processes_and_the_release() -> None:
    p = procfile()
    assert set(p) == PROCESSES | {"release"}
    assert p["release"] == "alembic upgrade head"
    assert "service.web:app" in p["web"] and "$PORT" in p["web"].replace("${PORT:-8000}", "$PORT")
    assert words(p["worker"])[:4] == ["celery", "-A", "worker.app", "worker"]
    assert words(p["beat"])[:4] == ["celery", "-A", "worker.app", "beat"]


def test_app_json_runs_the_same_processes_with_postgres_redis_and_a_generated_secret() -> None:
    app = app_json()
    assert set(app["formation"]) == PROCESSES
    assert app["formation"]["beat"]["quantity"] == 1  # two beats would enqueue every sweep twice
    plans = [a["plan"] if isinstance(a, dict) else a for a in app["addons"]]
    assert any(p.startswith("heroku-postgresql") for p in plans)
    assert any(p.startswith("heroku-redis") for p in plans)
    assert app["env"]["TELEGRAM_WEBHOOK_SECRET"]["generator"] == "secret"
    assert app["env"]["PUBLIC_URL"]["required"] is True


def test_fly_toml_has_the_procfile_processes_and_its_release_command() -> None:
    fly, p = fly_toml(), procfile()
    assert set(fly["processes"]) == PROCESSES
    assert fly["deploy"]["release_command"] == p["release"]
    for name in PROCESSES:
        assert words(fly["processes"][name]) == words(p[name]), name
    assert fly["http_service"]["processes"] == ["web"]
    assert {c["path"] for c in fly["http_service"]["checks"]} == {"/healthz"}
    assert fly["http_service"]["internal_port"] == int(fly["env"]["PORT"])
    assert (ROOT / "deploy" / fly["build"]["dockerfile"]).exists()  # relative to fly.toml's folder


def test_dockerfile_copies_what_the_processes_need() -> None:
    text = (ROOT / "deploy" / "Dockerfile").read_text()
    for needed in ("engine", "service", "worker", "alembic.ini", "pyproject.toml"):
        assert needed in text, needed
    assert (ROOT / "alembic.ini").exists()
