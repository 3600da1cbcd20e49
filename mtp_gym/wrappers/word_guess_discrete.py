"""A discrete view of Word Guess for classic RL (stable-baselines3).

Action: an index into the episode's vocabulary as the instructions list it
(``Discrete(vocab_size)``), sent to the text env as ``<attempt>WORD</attempt>``
(``action_text``); every action is legal.

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

from mtp_gym.envs.word_guess import WordGuessEnv, feedback, vocabulary_in


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
        self.vocabulary: tuple[str, ...] = ()

    def _obs(self, info: dict[str, Any]) -> np.ndarray:
        turn = info["turn"] / info["max_turns"]
        return np.concatenate([self._tried, self._consistent, [turn]]).astype(np.float32)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        self.vocabulary = vocabulary_in(obs)
        self._tried[:] = 0.0
        self._consistent[:] = 1.0
        return self._obs(info), info

    def action_text(self, action: int) -> str:
        """The text the view sends to the env for ``action``."""
        return f"<attempt>{self.vocabulary[int(action)]}</attempt>"

    def step(self, action: int):
        word = self.vocabulary[int(action)]
        _, reward, terminated, truncated, info = self.env.step(self.action_text(action))
        self._tried[int(action)] = 1.0
        colors = info["feedback"].get("colors")
        if colors is not None:
            for i, candidate in enumerate(self.vocabulary):
                if self._consistent[i] and feedback(word, candidate) != colors:
                    self._consistent[i] = 0.0
        return self._obs(info), float(reward), bool(terminated), bool(truncated), info


def make_env(**kwargs: Any) -> WordGuessDiscrete:
    """``MTP/WordGuessDiscrete-v0``: a Word Guess env built from ``kwargs``, in the discrete view."""
    return WordGuessDiscrete(WordGuessEnv(**kwargs))
