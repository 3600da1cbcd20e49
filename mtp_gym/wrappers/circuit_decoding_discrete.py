"""A discrete view of Circuit Decoding for classic RL (stable-baselines3).

Action: ``Discrete(Q + 1)`` where ``Q = C * 2^k`` (24 for both benchmark shapes, 3 circuits
of 3 inputs and 6 of 2). Action ``i < Q`` queries circuit ``i // 2^k`` on truth-table row
``i % 2^k`` (rows in binary counting order, the first input most significant), sent as
``<query>A(0, 1, 1)</query>``. Action ``Q`` is **submit**: the view sends
``<guess>bits</guess>`` with the most likely joint truth table given every answer so far,
under the documented generator's prior (exact maximum a posteriori, the same inference the
oracle uses: ``mtp_gym.circuit_decoding.inference.CircuitPosterior``). So the policy learns
*which* queries to ask and *when* to stop; the truth tables themselves are not its output.
After the last query only submit is legal: a query action then is sent as its text and the
env answers with a format error (no turn spent; ``max_format_errors`` in a row end the
episode with score 0). :meth:`action_masks` is exactly the legal moves (sb3-contrib's
``MaskablePPO`` reads it).

Observation: one float vector of ``4 * Q + 6`` in ``[0, 1]``, all derived from what a
player sees (the instructions and the answers): per query slot, whether it was asked, the
answer (0 if not asked), the posterior probability that its output is 1, and whether that
output is already certain; then the shape (``C / 26``, ``k / 5``), the inventory
(``AND / (C(k-1))``, ``OR / (C(k-1))``, ``NOT / 8``) and the fraction of queries left.
With the benchmark shapes slot ``i`` means circuit ``i // 2^k``, row ``i % 2^k`` of the
episode's shape (the shape features say which).

Reward, termination and ``info`` are the text env's (the terminal reward is the score, the
fraction of circuits whose truth table is exactly right).

>>> import gymnasium as gym, mtp_gym
>>> from mtp_gym.wrappers import CircuitDecodingDiscrete
>>> env = CircuitDecodingDiscrete(gym.make("MTP/CircuitDecoding-v0"))
>>> obs, info = env.reset(options={"config_id": 0})
>>> obs.shape, int(env.action_space.n)
((102,), 25)
>>> env.action_text(24)[:7], env.action_text(0), env.action_text(7)
('<guess>', '<query>A(0, 0, 0)</query>', '<query>A(1, 1, 1)</query>')
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from mtp_gym.circuit_decoding.env import (
    AND,
    BENCH_SHAPES,
    LABELS,
    MAX_INPUTS,
    MAX_NOT_LIMIT,
    NOT,
    OR,
    CircuitDecodingEnv,
    call_text,
    row_inputs,
    table_string,
)
from mtp_gym.circuit_decoding.inference import CircuitPosterior, read_setup

__all__ = ["CircuitDecodingDiscrete", "make_env"]


class CircuitDecodingDiscrete(gym.Wrapper):
    """Circuit Decoding with (circuit, input) query indices plus a MAP "submit" action."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        base = env.unwrapped
        if not isinstance(base, CircuitDecodingEnv):
            raise ValueError(f"env must be a Circuit Decoding env, got {type(base).__name__}")
        shapes: tuple[tuple[int, int], ...] = BENCH_SHAPES
        if base.num_circuits is not None and base.num_inputs is not None:  # both None or neither
            shapes = ((base.num_circuits, base.num_inputs),)
        #: Query slots: the largest ``C * 2^k`` of the shapes this env can deal.
        self.num_slots = max(c << k for c, k in shapes)
        self.submit_action = self.num_slots
        self.action_space = gym.spaces.Discrete(self.num_slots + 1)
        self.observation_space = gym.spaces.Box(0.0, 1.0, shape=(4 * self.num_slots + 6,), dtype=np.float32)
        self._setup: dict[str, Any] = {}
        self._posterior: Any = None
        self._queries_left = 0
        self._asked = np.zeros(self.num_slots, dtype=np.float32)
        self._answer = np.zeros(self.num_slots, dtype=np.float32)

    # ------------------------------------------------------------------ actions
    def _slot_call(self, action: int) -> tuple[int, int]:
        k = self._setup["num_inputs"]
        return action >> k, action & ((1 << k) - 1)

    def action_text(self, action: int) -> str:
        """The text the view sends to the env for ``action`` (in the current state)."""
        action = int(action)
        s = self._setup
        if action == self.submit_action:
            tables = self._posterior.map_tables()
            return f"<guess>{''.join(table_string(t, s['num_inputs']) for t in tables)}</guess>"
        c, row = self._slot_call(action)
        if c >= s["num_circuits"]:  # a slot beyond this episode's shape: no such circuit
            return f"<query>{LABELS[min(c, len(LABELS) - 1)]}({', '.join(map(str, row_inputs(row, s['num_inputs'])))})</query>"
        return f"<query>{call_text(s['labels'][c], row_inputs(row, s['num_inputs']))}</query>"

    def action_masks(self) -> np.ndarray:
        """Legal actions now: the queries of this episode's shape while queries are left, and submit."""
        mask = np.zeros(self.num_slots + 1, dtype=bool)
        if self._queries_left > 0:
            mask[: self._setup["num_circuits"] << self._setup["num_inputs"]] = True
        mask[self.submit_action] = True
        return mask

    # ------------------------------------------------------------------ observation
    def _obs(self) -> np.ndarray:
        s = self._setup
        c, k = s["num_circuits"], s["num_inputs"]
        n = c << k
        p_one = np.zeros(self.num_slots, dtype=np.float32)
        certain = np.zeros(self.num_slots, dtype=np.float32)
        p = self._posterior.one_probabilities().reshape(-1)
        p_one[:n] = p
        certain[:n] = (p <= 1e-9) | (p >= 1 - 1e-9)
        binary = max(c * (k - 1), 1)
        inv = s["inventory"]
        tail = [
            c / len(LABELS),
            k / MAX_INPUTS,
            inv[AND] / binary,
            inv[OR] / binary,
            inv[NOT] / MAX_NOT_LIMIT,
            self._queries_left / max(s["num_queries"], 1),
        ]
        return np.clip(np.concatenate([self._asked, self._answer, p_one, certain, tail]), 0.0, 1.0).astype(np.float32)

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        self._setup = s = read_setup(obs)
        self._posterior = CircuitPosterior(s["num_circuits"], s["num_inputs"], s["inventory"])
        self._queries_left = s["num_queries"]
        self._asked[:] = 0.0
        self._answer[:] = 0.0
        return self._obs(), info

    def step(self, action: int):
        action = int(action)
        _, reward, terminated, truncated, info = self.env.step(self.action_text(action))
        fb = info["feedback"]
        if "output" in fb:
            c, row = self._slot_call(action)
            self._posterior.observe(c, row, fb["output"])
            self._queries_left = fb["queries_remaining"]
            self._asked[action] = 1.0
            self._answer[action] = float(fb["output"])
        return self._obs(), float(reward), bool(terminated), bool(truncated), info


def make_env(**kwargs: Any) -> CircuitDecodingDiscrete:
    """``MTP/CircuitDecodingDiscrete-v0``: a CircuitDecoding env built from ``kwargs``, in the discrete view."""
    return CircuitDecodingDiscrete(CircuitDecodingEnv(**kwargs))
