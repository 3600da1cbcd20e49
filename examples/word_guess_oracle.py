"""Play one Word Guess episode with the oracle and print the transcript."""

import gymnasium as gym

import mtp_gym  # noqa: F401
from mtp_gym.agents import make_agent
from mtp_gym.episode import run_episode

env = gym.make("MTP/WordGuess-v0", render_mode="ansi")
result = run_episode(env, make_agent("oracle", "MTP/WordGuess-v0"), config_id=0)
print(env.render())
print(f"\noutcome={result.outcome} attempts={result.turns} score={result.score:.3f}")
