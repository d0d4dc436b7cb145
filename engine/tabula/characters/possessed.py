"""Possessed: a Human who wins with the Werewolves without knowing who they are.
He reads as human to the Seer and the Medium."""

from ...types import Role, Team
from ..character import Character, register

POSSESSED = register(Character(Role.POSSESSED, Team.WEREWOLVES, min_players=10))
