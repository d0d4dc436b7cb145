"""The rule set ``lupusburg``: two characters each in two houses, a chest, the Thief, the
Werewolf, a rotating Burgomaster, bets and scores (4-8 players).

What lives, dies, is voted on and is lynched is a character, named by its house
(``ann:left``); what bets, scores and wins is a player. ``series.py`` chains games.
"""
