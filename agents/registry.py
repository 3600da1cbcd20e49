"""Every scripted agent, registered in one place (the counterpart of mtp_gym/registration.py)."""

from __future__ import annotations

from agents.base import register_agent
from agents.oracles.word_guess import WordGuessOracle
from agents.random_agent import WordGuessRandomAgent

register_agent("MTP/WordGuess-v0", "oracle", WordGuessOracle)
register_agent("MTP/WordGuess-v0", "random", WordGuessRandomAgent)
