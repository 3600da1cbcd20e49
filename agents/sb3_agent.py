"""A trained stable-baselines3 model on a discrete view, as a text :class:`mtp_gym.agents.base.Policy`.

The harness (:func:`mtp_gym.eval.runner.evaluate`) talks text: it hands a policy the text
observation and ``info`` (without ``hidden``) and wants text back. A model trained on a
discrete view (``mtp_gym.wrappers``) wants the view's array and returns an index.
:class:`SB3Policy` bridges the two without re-implementing any view: it builds the view over
a *relay* env that stands where the text env stood during training. At each
``act(observation, info)`` the relay is loaded with the real env's reply and the view is
advanced with it: ``view.reset()`` for the first observation, else
``view.step(previous_action)``, whose call to ``env.step(text)`` the relay answers with the
real observation and ``info``. The view computes its array exactly as in training (every
view reads the episode from the observations and ``info`` only), the model picks an index,
and the view's ``action_text`` renders it. The relay wraps an unplayed text env built with
the same kwargs, for the spaces and constructor settings the views read.

``model=None`` plays uniformly random legal actions (``action_masks()`` when the view has
it): the "random policy on the same view" baseline. A ``MaskablePPO`` model gets the view's
masks at prediction time.

>>> import mtp_gym
>>> from mtp_gym.eval.runner import evaluate, summarize
>>> from mtp_gym.wrappers import WordGuessDiscrete
>>> policy = SB3Policy(WordGuessDiscrete, None, "MTP/WordGuess-v0")
>>> summarize(evaluate("MTP/WordGuess-v0", policy, range(3)))["episodes"]
3
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, SupportsFloat

import gymnasium as gym
import numpy as np

__all__ = ["SB3Policy"]


class DiscreteView(Protocol):
    """What :class:`SB3Policy` uses of a discrete view (``mtp_gym.wrappers``): a Gymnasium env
    with a ``Discrete`` action space and ``action_text(index)``, the index as text."""

    action_space: gym.spaces.Space[Any]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]: ...

    def step(self, action: int) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]: ...

    def action_text(self, action: int) -> str: ...


class _Relay(gym.Wrapper):
    """Stands where the text env stood in training: replies with the real env's output."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self._pending: tuple[str, dict[str, Any]] | None = None

    def load(self, observation: str, info: dict[str, Any]) -> None:
        self._pending = (observation, info)

    def _take(self) -> tuple[str, dict[str, Any]]:
        if self._pending is None:
            raise RuntimeError("the relay has no real reply to pass on")
        out, self._pending = self._pending, None
        return out

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        return self._take()

    def step(self, action: str):
        observation, info = self._take()
        ended = info.get("outcome") is not None
        reward = float(info.get("score") or 0.0) if ended else 0.0
        return observation, reward, ended, False, info


class SB3Policy:
    """A Stable-Baselines3 model (or ``None``: random legal actions) on a discrete view.

    Args:
        view: the view class (or any callable ``env -> view``), e.g. ``WordGuessDiscrete``.
        model: a trained SB3 / sb3-contrib model (anything with ``predict``), or ``None``.
        env_id: the text env id the view wraps; ``env_kwargs``: its kwargs (as in training).
        deterministic: greedy actions (default) or sampled ones (sampling draws from torch's
            global generator; ``reset(seed)`` reseeds it through ``model.set_random_seed`` so
            a seeded episode is repeatable).
        seed: seeds the random-action generator when ``reset`` gets no seed.
    """

    def __init__(
        self,
        view: Callable[[gym.Env], DiscreteView],
        model: Any,
        env_id: str,
        env_kwargs: dict[str, Any] | None = None,
        deterministic: bool = True,
        seed: int | None = None,
    ) -> None:
        import mtp_gym  # noqa: F401  (registers the ids)

        self.relay = _Relay(gym.make(env_id, **(env_kwargs or {})))
        self.view = view(self.relay)
        self.model = model
        self.deterministic = deterministic
        self._masked = _is_maskable(model)
        self._seed = seed
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(self._seed if seed is None else seed)
        self._action: int | None = None
        if self.model is not None and not self.deterministic and seed is not None:
            self.model.set_random_seed(seed)

    def act(self, observation: str, info: dict[str, Any]) -> str:
        self.relay.load(observation, info)
        obs = self.view.reset()[0] if self._action is None else self.view.step(self._action)[0]
        self._action = self._choose(obs)
        return self.view.action_text(self._action)

    def _masks(self) -> np.ndarray | None:
        fn = getattr(self.view, "action_masks", None)
        return None if fn is None else np.asarray(fn(), dtype=bool)

    def _choose(self, obs: np.ndarray) -> int:
        masks = self._masks()
        if self.model is None:
            space = self.view.action_space
            assert isinstance(space, gym.spaces.Discrete)  # every discrete view's
            n = space.n
            legal = np.arange(n) if masks is None else np.flatnonzero(masks)
            return int(legal[int(self._rng.integers(len(legal)))])
        if self._masked:
            action, _ = self.model.predict(obs, deterministic=self.deterministic, action_masks=masks)
        else:
            action, _ = self.model.predict(obs, deterministic=self.deterministic)
        return int(np.asarray(action).reshape(-1)[0])


def _is_maskable(model: Any) -> bool:
    if model is None:
        return False
    try:
        from sb3_contrib import MaskablePPO
    except ImportError:
        return False
    return isinstance(model, MaskablePPO)
