"""Villager: a Human with no power; wins when every Werewolf is dead."""

from ...types import Role, Team
from ..character import Character, register

VILLAGER = register(Character(Role.VILLAGER, Team.HUMANS, unique=False))
