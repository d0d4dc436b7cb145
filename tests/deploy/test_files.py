"""app.json, deploy/fly.toml and the Procfile parse and agree: the same processes, the same commands,
the release step running the migrations, one beat. The README's Deploy to Heroku button points at the
repository app.json names; the image is built from a context .dockerignore keeps small; Fly scrapes
the metrics of the web and the worker machines."""

from __future__ import annotations

import shlex

from service.settings import Settings
from worker.app import build

from .procfile import ROOT, app_json, fly_toml, procfile

PROCESSES = {"web", "worker", "beat"}


def words(command: str) -> list[str]:
    return shlex.split(command)


def test_procfile_names_the_processes_and_the_release() -> None:
    p = procfile()
    assert set(p) == PROCESSES | {"release"}
    assert p["release"] == "alembic upgrade head"
    assert words(p["web"]) == ["lupus", "web"]  # uvicorn on PORT, WEB_CONCURRENCY processes (lupus web)
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
    # PUBLIC_URL cannot be asked for: a new app's domain has a random suffix. The postdeploy step
    # checks it (and the rest), sets up what it can and says what to do next, without failing the
    # new app's deploy (test_doctor runs it).
    assert app["env"]["PUBLIC_URL"]["required"] is False
    assert app["scripts"]["postdeploy"] == "lupus setup --postdeploy"


def test_fly_toml_has_the_procfile_processes_and_its_release_command() -> None:
    fly, p = fly_toml(), procfile()
    assert set(fly["processes"]) == PROCESSES
    assert fly["deploy"]["release_command"] == p["release"]
    for name in PROCESSES:
        assert fly["processes"][name] == p[name], name  # word for word
    assert fly["http_service"]["processes"] == ["web"]
    # The platform's own check asks /livez: /healthz fails while the worker is down, which must not
    # take the web machines out of service (nor stop a deploy before the worker is up).
    assert {c["path"] for c in fly["http_service"]["checks"]} == {"/livez"}
    assert fly["http_service"]["internal_port"] == int(fly["env"]["PORT"])
    assert (ROOT / "deploy" / fly["build"]["dockerfile"]).exists()  # relative to fly.toml's folder


def test_the_process_lines_read_their_settings_in_the_app_not_the_shell() -> None:
    """Heroku runs a Procfile line in a shell, Fly runs fly.toml's without one: a `${VAR}` in a line
    would reach Celery unexpanded on Fly (fly.toml once hard-coded --concurrency=2 for it while the
    Procfile read WORKER_CONCURRENCY). So no line reads a setting; the app reads them."""
    lines = [*procfile().values(), *fly_toml()["processes"].values(), fly_toml()["deploy"]["release_command"]]
    assert not [line for line in lines if "$" in line or "--concurrency" in line], lines
    app = build(Settings(_env_file=None, REDIS_URL="redis://127.0.0.1:9/0", WORKER_CONCURRENCY=3))  # type: ignore[call-arg]
    assert app.conf.worker_concurrency == 3


def test_fly_stops_a_machine_as_heroku_stops_a_dyno() -> None:
    fly = fly_toml()
    assert fly["kill_signal"] == "SIGTERM" and fly["kill_timeout"] >= 10


def test_dockerfile_copies_what_the_processes_need() -> None:
    text = (ROOT / "deploy" / "Dockerfile").read_text()
    for needed in ("engine", "service", "worker", "alembic.ini", "pyproject.toml"):
        assert needed in text, needed
    assert (ROOT / "alembic.ini").exists()


def test_fly_scrapes_the_metrics_of_the_web_and_the_worker_machines() -> None:
    fly = fly_toml()
    metrics = {tuple(m["processes"]): m for m in fly["metrics"]}
    assert metrics[("web",)]["port"] == fly["http_service"]["internal_port"] and metrics[("web",)]["path"] == "/metrics"
    assert metrics[("worker",)]["port"] == int(fly["env"]["METRICS_PORT"])


def test_the_readme_has_a_deploy_to_heroku_button_for_the_repository_app_json_names() -> None:
    readme = (ROOT / "README.md").read_text()
    repo = app_json()["repository"]
    button = f"[![Deploy to Heroku](https://www.herokucdn.com/deploy/button.svg)](https://www.heroku.com/deploy?template={repo})"
    assert button in readme
    assert repo.startswith("https://github.com/") and repo.count("/") == 4
    runbook = (ROOT / "deploy" / "README.md").read_text()
    assert "app.json" in runbook and "template=" in runbook  # how a fork points the button at itself


def test_the_build_context_leaves_out_what_the_image_does_not_need() -> None:
    ignored = {
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    assert {".venv", "var", ".git", ".env"} <= ignored
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    for needed in ("engine", "service", "worker", "pyproject.toml", "requirements.txt", "requirements.lock"):
        assert needed not in ignored
    assert "pip install -r requirements.txt" in dockerfile  # the lock, as Heroku's buildpack installs it
