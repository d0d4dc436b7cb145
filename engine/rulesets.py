"""Every rule set the engine knows, registered by name."""

from __future__ import annotations

from .lupusburg.rules import RULES as LUPUSBURG
from .ruleset import register
from .tabula.aura_rules import RULES as AURA
from .tabula.rules import RULES as TABULA

register(TABULA)
register(AURA)
register(LUPUSBURG)
