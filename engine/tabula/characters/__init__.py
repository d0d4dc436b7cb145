"""One module per character, named after it. Importing this package registers them all."""

from . import (  # noqa: F401
    bodyguard,
    freemason,
    medium,
    mythomaniac,
    owl_man,
    possessed,
    seer,
    villager,
    werehamster,
    werewolf,
)
