"""Wrappers: discrete views for classic RL (and, later, robustness probes)."""

from mtp_gym.wrappers.word_guess_discrete import WordGuessDiscrete

__all__ = ["WordGuessDiscrete"]
