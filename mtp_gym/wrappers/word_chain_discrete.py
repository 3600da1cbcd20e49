"""A discrete view of Word Chaining for classic RL (stable-baselines3 / sb3-contrib).

Action: an index into the episode's allowed words (``Discrete(lexicon_size)``, the sorted
list the instructions show), sent to the text env as ``'word'``. :meth:`action_masks` marks
exactly the legal words (``info["legal_moves"]``), so sb3-contrib's ``MaskablePPO`` only
ever plays legal words. Unmasked, an illegal index is still a move, and a losing one: the
env's rule "repeat a word or break the first-letter rule, you lose".

Observation: one float vector of ``2 * lexicon_size + 53`` in ``[0, 1]``, all from what a
player sees (the list, the chain, the legal words): per word, whether it is legal now and
whether it was already said; the letter the next word must start with (one-hot over 26
letters, all zero before the first word); per letter, the unused words starting with it
(divided by the largest such count at the start of the episode); the fraction of the
agent's turn cap used.

Under the paper's rules (the env's) a player loses only by breaking a rule: EVERY legal
word keeps the score at 1 (see ``agents/oracles/word_chain.py``), so a masked policy, even
a random one, scores 1. What an unmasked policy must learn is legality.

Reward, termination and ``info`` are the text env's.

>>> import gymnasium as gym, mtp_gym
>>> from mtp_gym.wrappers import WordChainDiscrete
>>> env = WordChainDiscrete(gym.make("MTP/WordChain-v0"))
>>> obs, info = env.reset(seed=0)
>>> obs.shape, int(env.action_masks().sum()) == len(info["legal_moves"])
((1053,), True)
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from mtp_gym.envs.word_chain import WordChainEnv
from mtp_gym.inference.word_chain import lexicon_from_instructions

__all__ = ["WordChainDiscrete", "make_env"]

N_LETTERS = 26


class WordChainDiscrete(gym.Wrapper):
    """Word Chaining with a lexicon-index action, an action mask and an array observation."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        base = env.unwrapped
        if not isinstance(base, WordChainEnv):
            raise ValueError(f"env must be a Word Chaining env, got {type(base).__name__}")
        n = base.lexicon_size
        self.num_words = n
        self.action_space = gym.spaces.Discrete(n)
        self.observation_space = gym.spaces.Box(0.0, 1.0, shape=(2 * n + 2 * N_LETTERS + 1,), dtype=np.float32)
        self.lexicon: tuple[str, ...] = ()
        self._index: dict[str, int] = {}
        self._legal = np.zeros(n, dtype=bool)
        self._used = np.zeros(n, dtype=np.float32)
        self._first = np.zeros(n, dtype=np.int64)
        self._scale = 1.0
        self._next_letter = np.zeros(N_LETTERS, dtype=np.float32)
        self._turn_frac = 0.0

    def action_text(self, action: int) -> str:
        """The text the view sends to the env for ``action``."""
        return f"'{self.lexicon[int(action)]}'"

    def action_masks(self) -> np.ndarray:
        """The legal words now (all True once the game is over, so a mask is never empty)."""
        return self._legal.copy() if self._legal.any() else np.ones_like(self._legal)

    def _update(self, info: dict[str, Any]) -> None:
        self._legal[:] = False
        self._legal[[self._index[w] for w in info["legal_moves"]]] = True
        self._used[:] = 0.0
        self._used[[self._index[w] for w in info["used_words"]]] = 1.0
        self._next_letter[:] = 0.0
        if info["chain"]:
            self._next_letter[ord(info["chain"][-1][-1]) - ord("a")] = 1.0
        self._turn_frac = info["turn"] / info["max_turns"]

    def _obs(self) -> np.ndarray:
        unused = np.bincount(self._first[self._used == 0], minlength=N_LETTERS)[:N_LETTERS] / self._scale
        tail = [self._turn_frac]
        return np.concatenate([self._legal, self._used, self._next_letter, unused, tail]).astype(np.float32)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        self.lexicon = lexicon_from_instructions(obs)
        if len(self.lexicon) != self.num_words:
            raise ValueError(f"the episode lists {len(self.lexicon)} words, the view expects {self.num_words}")
        self._index = {w: i for i, w in enumerate(self.lexicon)}
        self._first[:] = [min(ord(w[0]) - ord("a"), N_LETTERS - 1) for w in self.lexicon]
        self._scale = float(max(np.bincount(self._first, minlength=N_LETTERS).max(), 1))
        self._update(info)
        return self._obs(), info

    def step(self, action: int):
        _, reward, terminated, truncated, info = self.env.step(self.action_text(action))
        self._update(info)
        return self._obs(), float(reward), bool(terminated), bool(truncated), info


def make_env(**kwargs: Any) -> WordChainDiscrete:
    """``MTP/WordChainDiscrete-v0``: a WordChain env built from ``kwargs``, in the discrete view."""
    return WordChainDiscrete(WordChainEnv(**kwargs))
