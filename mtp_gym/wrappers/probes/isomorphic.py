"""Isomorphic perturbation (paper section 3.3): the same game told in another domain.

The clean game is the symbolic version. Under the probe its rules and query helps are retold
as the game's story (``Game.story``, set in the domain's frame) in one of five domains, with the
domain's nouns for every entity and relation (``Game.domains``; the shared domains, word lists
and frames are in :mod:`mtp_gym.games.domains`); the hidden state, the query names and
arguments, every reply and the target are unchanged, so an agent's transcript maps 1:1 onto the
clean one.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from mtp_gym.core import check_choice
from mtp_gym.games.domains import DOMAINS
from mtp_gym.wrappers.probes.base import ProbeWrapper, check_game_env
from mtp_gym.wrappers.probes.domains import domain_template, domain_wording

__all__ = ["IsomorphicPerturbation"]


class IsomorphicPerturbation(ProbeWrapper):
    """Retell a query game in ``domain`` (one of :data:`DOMAINS`, or ``"random"``:
    a domain drawn per episode from the reset seed).

    Raises ``ValueError`` when the game has no template for the domain, naming both.
    """

    probe = "isomorphic"

    def __init__(self, env: gym.Env, domain: str = "random", seed: int = 0) -> None:
        super().__init__(env, seed=seed, domain=domain)
        check_choice("domain", domain, (*DOMAINS, "random"))
        #: The query game env whose vocabulary and wording the probe sets.
        self.game_env = check_game_env(env, self.probe)
        if self.game_env.vocabulary or self.game_env.wording:
            raise ValueError("the isomorphic probe sets the vocabulary and wording itself: do not pass them as well")
        game = self.game_env.game_cls
        domains = DOMAINS if domain == "random" else (domain,)
        self.templates = {d: domain_template(game, d) for d in domains}
        self.wordings = {d: domain_wording(game, d) for d in domains}
        self.domain = domain
        self.current = domain if domain != "random" else None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        rng = self._reseed(seed)
        self.current = self.domain if self.domain != "random" else DOMAINS[int(rng.integers(len(DOMAINS)))]
        self.game_env.vocabulary = dict(self.templates[self.current])
        self.game_env.wording = self.wordings[self.current]
        obs, info = self.env.reset(seed=seed, options=options)
        return obs, self._tag(info)

    def step(self, action: str):
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, reward, terminated, truncated, self._tag(info)

    def _public(self) -> dict[str, Any]:
        return {"name": self.probe, "domain": self.current}
