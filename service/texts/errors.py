"""Engine errors in the reader's language (the engine's English reason as the last resort)."""

from __future__ import annotations

from typing import Any

from engine import LupusError
from service.texts import houses
from service.texts.i18n import has, role_name, t

#: Refusals whose text reads "you cannot {verb}": the verb goes in as an infinitive (``verb.to.VERB``).
SAID_AS_INFINITIVE = frozenset({"power.none", "power.wrong_phase", "power.not_now", "day.only"})
#: Refusals whose count the engine names otherwise than ``count``.
COUNTED_BY = {"setup.too_many_wolves": "wolves"}


def error_text(lang: str, error: LupusError) -> str:
    key = f"error.{error.key}"
    if not has("en", key):
        return t(lang, "error.unknown", reason=error.reason)
    params: dict[str, Any] = houses.localize(dict(error.params), lang)  # a Lupusburg house in his language
    if "role" in params:
        params["role"] = role_name(lang, str(params["role"]))
    if has("en", f"theme.{params.get('theme')}"):  # a theme by its name in his language, not its key
        params["theme"] = t(lang, f"theme.{params['theme']}")
    if "verb" in params:
        # "You cannot {verb}" takes the verb as an infinitive phrase ("Ora non puoi scrutare un
        # giocatore"), not as the command word (the imperative "vedi" in Italian).
        verb = f"verb.to.{params['verb']}" if error.key in SAID_AS_INFINITIVE else f"verb.{params['verb']}"
        params["verb"] = t(lang, verb) if has("en", verb) else params["verb"]
    if error.key in COUNTED_BY:  # the number that makes the text plural (``i18n.PLURAL_BY``)
        params["count"] = params.get(COUNTED_BY[error.key])
    for choices in ("suspects", "houses"):  # "bob or eve"
        if choices in params:
            params[choices] = t(lang, "svc.or").join(params[choices])
    for k, v in params.items():
        if isinstance(v, list | tuple):
            params[k] = ", ".join(str(x) for x in v)
        elif isinstance(v, dict):
            params[k] = ", ".join(f"{role_name(lang, str(r))} ({n})" for r, n in v.items())
    return t(lang, key, **params)
