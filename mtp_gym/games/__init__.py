"""Hidden-state query games (interactive reasoning paper): the ``Game`` interface, one file per
game, and the generic env that turns any game into ``MTP/<GameName>-v0``. See README.md here."""

from mtp_gym.games.base import Game, QuerySpec, config_rng, parse_action
from mtp_gym.games.env import GameEnv, resolve_game

__all__ = ["Game", "GameEnv", "QuerySpec", "config_rng", "parse_action", "resolve_game"]
