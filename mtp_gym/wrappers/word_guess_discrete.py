"""A discrete view of Word Guess for classic RL (stable-baselines3).

Action: an index into the episode's vocabulary (``Discrete(vocab_size)``), sent to the
text env as ``<attempt>WORD</attempt>``; every action is legal.

Observation: the feedback history encoded as one float vector of ``2 * vocab_size + 1``:
which words were already tried, which words are still consistent with every feedback
received so far (the candidate set), and the fraction of the turn budget used. The
consistency mask is a deterministic function of the colours the env returned, i.e. of
what a player sees; it is the encoding, the policy still has to learn to use it.

Reward, termination and ``info`` are the text env's (the terminal reward is the score).

>>> import gymnasium as gym, mtp_gym
>>> from mtp_gym.wrappers import WordGuessDiscrete
>>> env = WordGuessDiscrete(gym.make("MTP/WordGuess-v0"))
>>> obs, info = env.reset(seed=0)
>>> obs.shape
(81,)

Registered as ``MTP/WordGuessDiscrete-v0`` (kwargs go to the text env), so
``gym.make_vec("MTP/WordGuessDiscrete-v0", num_envs=8)`` batches it like any Box/Discrete env.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from mtp_gym.envs.word_guess import WordGuessEnv, feedback


class WordGuessDiscrete(gym.Wrapper):
    """Word Guess with a vocabulary-index action and an array observation."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        base = env.unwrapped
        if not isinstance(base, WordGuessEnv):
            raise ValueError(f"env must be a Word Guess env, got {type(base).__name__}")
        n = base.vocab_size
        self.action_space = gym.spaces.Discrete(n)
        self.observation_space = gym.spaces.Box(0.0, 1.0, shape=(2 * n + 1,), dtype=np.float32)
        self._tried = np.zeros(n, dtype=np.float32)
        self._consistent = np.ones(n, dtype=np.float32)

    def _obs(self) -> np.ndarray:
        base = self.env.unwrapped
        return np.concatenate([self._tried, self._consistent, [base._turn / base.max_turns]]).astype(np.float32)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        _, info = self.env.reset(seed=seed, options=options)
        self._tried[:] = 0.0
        self._consistent[:] = 1.0
        return self._obs(), info

    def step(self, action: int):
        vocab = self.env.unwrapped.vocabulary
        word = vocab[int(action)]
        _, reward, terminated, truncated, info = self.env.step(f"<attempt>{word}</attempt>")
        self._tried[int(action)] = 1.0
        colors = info["feedback"].get("colors")
        if colors is not None:
            for i, candidate in enumerate(vocab):
                if self._consistent[i] and feedback(word, candidate) != colors:
                    self._consistent[i] = 0.0
        return self._obs(), float(reward), bool(terminated), bool(truncated), info


def make_env(**kwargs: Any) -> WordGuessDiscrete:
    """``MTP/WordGuessDiscrete-v0``: a Word Guess env built from ``kwargs``, in the discrete view."""
    return WordGuessDiscrete(WordGuessEnv(**kwargs))
