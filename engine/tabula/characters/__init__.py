"""One module per character, named after it. Importing this package registers them all."""

from . import (  # noqa: F401
    baron_samedi,
    bodyguard,
    darius,
    deadalive,
    dorian_wolf,
    dr_jekyll,
    fortune_teller,
    freemason,
    hamlet,
    lara,
    medium,
    miss_purple,
    mythomaniac,
    owl_man,
    possessed,
    seer,
    villager,
    werecow,
    werehamster,
    werewolf,
)
