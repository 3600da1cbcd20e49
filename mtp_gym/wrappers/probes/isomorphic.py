"""Isomorphic perturbation (paper section 3.3): the same game told in another domain's nouns.

The game's ``vocabulary`` (every entity/relation noun of its rules text and query help) is
replaced by the game's template for one of five domains (``domains.py``); the hidden state,
the query names and arguments, every reply and the target are unchanged, so an agent's
transcript maps 1:1 onto the clean one.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from mtp_gym.wrappers.probes.base import ProbeWrapper
from mtp_gym.wrappers.probes.domains import DOMAINS, domain_template

__all__ = ["IsomorphicPerturbation"]


class IsomorphicPerturbation(ProbeWrapper):
    """Rewrite a query game's nouns into ``domain`` (one of :data:`DOMAINS`, or ``"random"``:
    a domain drawn per episode from the reset seed).

    Raises ``ValueError`` when the game has no template for the domain, naming both.
    """

    probe = "isomorphic"

    def __init__(self, env: gym.Env, domain: str = "random", seed: int = 0) -> None:
        super().__init__(env, seed=seed, domain=domain)
        if domain != "random" and domain not in DOMAINS:
            raise ValueError(f"domain must be one of {DOMAINS} or 'random', got {domain!r}")
        if self.base.vocabulary:
            raise ValueError("the isomorphic probe sets the vocabulary itself: do not pass vocabulary= as well")
        game = self.base.game_cls
        self.templates = {d: domain_template(game, d) for d in (DOMAINS if domain == "random" else (domain,))}
        self.domain = domain
        self.current = domain if domain != "random" else None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        rng = self._reseed(seed)
        self.current = self.domain if self.domain != "random" else DOMAINS[int(rng.integers(len(DOMAINS)))]
        self.base.vocabulary = dict(self.templates[self.current])
        obs, info = self.env.reset(seed=seed, options=options)
        return obs, self._tag(info)

    def step(self, action: str):
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, reward, terminated, truncated, self._tag(info)

    def _public(self) -> dict[str, Any]:
        return {"name": self.probe, "domain": self.current}
