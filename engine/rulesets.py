"""Every rule set the engine knows, registered by name."""

from __future__ import annotations

from .lupusburg.rules import RULES as LUPUSBURG
from .ruleset import register
from .tabula.rules import RULES as TABULA

register(TABULA)
register(LUPUSBURG)
