"""The lock file (requirements.lock, made by `python3 dev.py lock`) is what every install uses: the
Dockerfile and Heroku's buildpack through requirements.txt, dev.py for .venv. It must pin every
dependency pyproject.toml declares, at a version its specifier allows, and every dependency of
those, as the packages installed from it here say (dev.py installs .venv from the lock)."""

from __future__ import annotations

import tomllib
from importlib import metadata

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from .procfile import ROOT


def pins() -> dict[str, Version]:
    out: dict[str, Version] = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        line = line.split("#")[0].strip()
        if not line:
            continue
        req = Requirement(line)
        spec = str(req.specifier)
        assert spec.startswith("==") and "," not in spec, f"not a pin: {line}"
        out[canonicalize_name(req.name)] = Version(spec[2:])
    return out


def declared(extras: tuple[str, ...] | None = None) -> list[tuple[Requirement, str]]:
    """The project's dependencies and those of its extras (all of them, or only ``extras``)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    out = [(Requirement(r), "") for r in project["dependencies"]]
    for extra, reqs in project["optional-dependencies"].items():
        if extras is None or extra in extras:
            out += [(Requirement(r), extra) for r in reqs]
    return out


def environment(extra: str) -> dict[str, str]:
    env: dict[str, str] = {k: str(v) for k, v in default_environment().items()}
    return {**env, "extra": extra}


def applies(req: Requirement, extra: str) -> bool:
    return req.marker is None or req.marker.evaluate(environment(extra))


def test_the_lock_pins_every_declared_dependency_within_its_specifier() -> None:
    pinned = pins()
    for req, extra in declared():
        if not applies(req, extra):
            continue
        name = canonicalize_name(req.name)
        assert name in pinned, f"{req} ({extra or 'runtime'}) is not in requirements.lock: python3 dev.py lock"
        assert req.specifier.contains(pinned[name], prereleases=True), (
            f"requirements.lock pins {name}=={pinned[name]}, pyproject.toml asks {req}: python3 dev.py lock"
        )


def test_the_lock_is_closed_and_is_what_is_installed() -> None:
    """Every dependency of a pinned package (with the extras asked of it) is pinned too, and the
    installed version is the pinned one: nothing an install brings is left to chance. (What .venv
    holds: the project and its dev extra, as dev.py installs it; Flower's extra is pinned, above.)"""
    pinned = pins()
    todo = [(req, extra) for req, extra in declared(("dev",)) if applies(req, extra)]
    seen: set[tuple[str, frozenset[str]]] = set()
    while todo:
        req, _ = todo.pop()
        name = canonicalize_name(req.name)
        key = (name, frozenset(req.extras))
        if key in seen:
            continue
        seen.add(key)
        assert name in pinned, f"{name} (needed by the project) is not pinned in requirements.lock"
        installed = Version(metadata.version(name))
        assert installed == pinned[name], (
            f"{name} {installed} is installed, requirements.lock pins {pinned[name]}: python3 dev.py test reinstalls"
        )
        for dep in metadata.requires(name) or ():
            child = Requirement(dep)
            if child.marker is None or any(child.marker.evaluate(environment(e)) for e in (req.extras or {""})):
                todo.append((child, ""))


def test_heroku_and_the_image_install_the_project_through_the_lock() -> None:
    lines = [
        line.strip()
        for line in (ROOT / "requirements.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert lines == ["-c requirements.lock", "."]
    assert "pip install -r requirements.txt" in (ROOT / "deploy" / "Dockerfile").read_text()
    assert '"-c", str(LOCK)' in (ROOT / "dev.py").read_text()
    for unused in ("limits",):  # declared once, never imported
        assert unused not in {canonicalize_name(r.name) for r, _ in declared()}
