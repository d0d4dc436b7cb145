"""Reading the deployment files the way the platforms read them."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def procfile() -> dict[str, str]:
    """Heroku's format: `name: command`, one a line."""
    out: dict[str, str] = {}
    for line in (ROOT / "Procfile").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, command = line.partition(":")
            out[name.strip()] = command.strip()
    return out


def app_json() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ROOT / "app.json").read_text())
    return data


def fly_toml() -> dict[str, Any]:
    return tomllib.loads((ROOT / "deploy" / "fly.toml").read_text())
