"""What every probe wrapper shares: the env check, seeding, and keeping the transcript honest.

A probe changes what the agent sees, so it also rewrites the base env's transcript (the
record ``run_episode`` logs and ``render`` shows) to the text the agent actually got, through
the env's public contract for wrappers (:meth:`TextPuzzleEnv.replace_last_observation`,
:meth:`TextPuzzleEnv.record_exchange`, :meth:`TextPuzzleEnv.build_info`). Probe
metadata goes to ``info["probe"]`` (public: the probe's name and settings an agent may know)
and ``info["hidden"]["probe"]`` (for analysis: e.g. which answer was falsified).
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.utils import RecordConstructorArgs

from mtp_gym.core import TEXT_CHARSET, TextPuzzleEnv
from mtp_gym.games.env import GameEnv
from mtp_gym.spaces import TextSpace

__all__ = ["ProbeWrapper", "check_game_env"]


def check_game_env(env: gym.Env, probe: str) -> GameEnv:
    """``env.unwrapped`` if it is a hidden-state query game env, else a ``ValueError``."""
    base = env.unwrapped
    if not isinstance(base, GameEnv):
        raise ValueError(
            f"the {probe!r} probe needs a hidden-state query game env (an id of GAME_IDS, "
            f"e.g. 'MTP/HiddenNumber-v0'), got {type(base).__name__}"
        )
    return base


class ProbeWrapper(gym.Wrapper, RecordConstructorArgs):
    """Base class: subclasses set ``probe`` and call ``super().__init__(env, seed=..., **kwargs)``.

    ``seed`` salts the probe's own random stream; ``reset(seed=s)`` reseeds it from
    ``(probe, seed, s)``, so a perturbation is a function of the episode seed (the env's own
    ``np_random`` is never drawn from: probes do not change which configuration is played).
    """

    probe: str = ""
    #: Widened observation bound: probes add text (the base bound is 16 KiB).
    obs_max_length: int = 1 << 18

    def __init__(self, env: gym.Env, seed: int = 0, **kwargs: Any) -> None:
        RecordConstructorArgs.__init__(self, seed=seed, **kwargs)
        gym.Wrapper.__init__(self, env)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"seed must be an int, got {seed!r}")
        self.base: TextPuzzleEnv = self._check(env)
        self.base.defer_human_render = True  # printed by _tag, after the probe rewrote the text
        self.seed = seed
        self._salt = zlib.crc32(self.probe.encode())
        self.rng = np.random.default_rng([self._salt, seed])
        space = env.observation_space
        if isinstance(space, gym.spaces.Text) and space.max_length < self.obs_max_length:
            self.observation_space = TextSpace(max_length=self.obs_max_length, min_length=0, charset=TEXT_CHARSET)

    def _check(self, env: gym.Env) -> TextPuzzleEnv:
        return check_game_env(env, self.probe)

    def _reseed(self, seed: int | None) -> np.random.Generator:
        if seed is not None:
            self.rng = np.random.default_rng([self._salt, self.seed, int(seed)])
        return self.rng

    # ------------------------------------------------------------------ transcript + info
    def _set_last_message(self, text: str) -> None:
        """Make the last env message of the base transcript the text the agent got."""
        self.base.replace_last_observation(text)

    def _public(self) -> dict[str, Any]:
        """``info["probe"]``: what an agent may know about the probe."""
        return {"name": self.probe}

    def _secret(self) -> dict[str, Any]:
        """``info["hidden"]["probe"]``: the probe's record for analysis (default: public part)."""
        return self._public()

    def _tag(self, info: dict[str, Any]) -> dict[str, Any]:
        """The probe's ``info`` entries; also the human render of the text the agent got (every
        probe's ``reset``/``step`` returns through here, after its last transcript change)."""
        info["probe"] = self._public()
        if isinstance(info.get("hidden"), Mapping):  # a FrozenInfo; absent with info_secret=False
            info["hidden"] = dict(info["hidden"], probe=self._secret())
        if self.base.render_mode == "human":
            self.base.render()
        return info
