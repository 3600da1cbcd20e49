"""Isomorphic perturbation (paper section 3.3): the same game told in another domain.

The clean game is the symbolic version. Under the probe its rules and query helps are retold
as the game's story in one of five domains (``stories.py``: the domain's frame, the game's own
sentences) with the domain's nouns for every entity and relation (``domains.py``); the hidden
state, the query names and arguments, every reply and the target are unchanged, so an agent's
transcript maps 1:1 onto the clean one.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from mtp_gym.wrappers.probes.base import ProbeWrapper
from mtp_gym.wrappers.probes.domains import DOMAINS, domain_template
from mtp_gym.wrappers.probes.stories import domain_wording

__all__ = ["IsomorphicPerturbation"]


class IsomorphicPerturbation(ProbeWrapper):
    """Retell a query game in ``domain`` (one of :data:`DOMAINS`, or ``"random"``:
    a domain drawn per episode from the reset seed).

    Raises ``ValueError`` when the game has no template for the domain, naming both.
    """

    probe = "isomorphic"

    def __init__(self, env: gym.Env, domain: str = "random", seed: int = 0) -> None:
        super().__init__(env, seed=seed, domain=domain)
        if domain != "random" and domain not in DOMAINS:
            raise ValueError(f"domain must be one of {DOMAINS} or 'random', got {domain!r}")
        if self.base.vocabulary or self.base.wording:
            raise ValueError("the isomorphic probe sets the vocabulary and wording itself: do not pass them as well")
        game = self.base.game_cls
        domains = DOMAINS if domain == "random" else (domain,)
        self.templates = {d: domain_template(game, d) for d in domains}
        self.wordings = {d: domain_wording(game, d) for d in domains}
        self.domain = domain
        self.current = domain if domain != "random" else None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        rng = self._reseed(seed)
        self.current = self.domain if self.domain != "random" else DOMAINS[int(rng.integers(len(DOMAINS)))]
        self.base.vocabulary = dict(self.templates[self.current])
        self.base.wording = self.wordings[self.current]
        obs, info = self.env.reset(seed=seed, options=options)
        return obs, self._tag(info)

    def step(self, action: str):
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, reward, terminated, truncated, self._tag(info)

    def _public(self) -> dict[str, Any]:
        return {"name": self.probe, "domain": self.current}
