"""Engine errors in the reader's language (the engine's English reason as the last resort)."""

from __future__ import annotations

from typing import Any

from engine import LupusError

from .i18n import has, role_name, t


def error_text(lang: str, error: LupusError) -> str:
    key = f"error.{error.key}"
    if not has("en", key):
        return t(lang, "error.unknown", reason=error.reason)
    params: dict[str, Any] = dict(error.params)
    if "role" in params:
        params["role"] = role_name(lang, str(params["role"]))
    if "verb" in params:
        verb = f"verb.{params['verb']}"
        params["verb"] = t(lang, verb) if has("en", verb) else params["verb"]
    if "suspects" in params:
        params["suspects"] = t(lang, "svc.or").join(params["suspects"])
    for k, v in params.items():
        if isinstance(v, list | tuple):
            params[k] = ", ".join(str(x) for x in v)
        elif isinstance(v, dict):
            params[k] = ", ".join(f"{role_name(lang, str(r))} ({n})" for r, n in v.items())
    return t(lang, key, **params)
