"""The robustness and metacognition probes of the interactive-reasoning paper, as Gymnasium wrappers.

Five probes (sections 3.3-3.5, appendix B), each a wrapper over any hidden-state query game
env (``GAME_IDS``):

==================  =========================  ==================================================
name                class                      what changes
==================  =========================  ==================================================
``isomorphic``      IsomorphicPerturbation     the nouns of the rules, into one of five domains
``noise``           IntraGameNoise             irrelevant sentences in the rules, vacuous
                                               fragments around replies (evidence unchanged)
``boundary``        InterGameBoundary          a previous game's whole transcript before the rules
``counterfactual``  CounterfactualRevision     the 2nd query is answered wrongly, corrected with
                                               the next reply
``necessity``       NecessityJudgment          two phases on the full evidence pool: answer +
                                               <unnecessary>, then answer on the pruned pool;
                                               score: removed / max removable on success
==================  =========================  ==================================================

Each probe's end-of-episode figures are in ``info["hidden"]["probe"]`` (the counterfactual
probe's ``revision``, the necessity probe's Table-8 figures); the eval harness keeps their
scalars in each episode record as ``probe_result``, which ``mtp-gym report`` reads.

Three ways in::

    env = CounterfactualRevision(gym.make("MTP/HiddenSubset-v0", difficulty=2))
    env = gym.make("MTP/HiddenSubset-v0", difficulty=2, probe="noise", probe_kwargs={"rule_sentences": 5})
    mtp-gym eval --env MTP/HiddenSubset-v0 --probe isomorphic --env-kwargs '{"difficulty": 2}'

(``probe=``/``probe_kwargs=`` are taken by the query games' entry point, :func:`make_game_env`.)
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from mtp_gym.core import check_choice
from mtp_gym.games.env import GameEnv
from mtp_gym.wrappers.probes.base import ProbeWrapper
from mtp_gym.wrappers.probes.boundary import InterGameBoundary
from mtp_gym.wrappers.probes.counterfactual import CounterfactualRevision
from mtp_gym.wrappers.probes.domains import DOMAINS, TEMPLATES, domain_template
from mtp_gym.wrappers.probes.isomorphic import IsomorphicPerturbation
from mtp_gym.wrappers.probes.necessity import NecessityJudgment
from mtp_gym.wrappers.probes.noise import IntraGameNoise

__all__ = [
    "PROBES",
    "DOMAINS",
    "TEMPLATES",
    "ProbeWrapper",
    "IsomorphicPerturbation",
    "IntraGameNoise",
    "InterGameBoundary",
    "CounterfactualRevision",
    "NecessityJudgment",
    "apply_probe",
    "domain_template",
    "make_game_env",
]

#: Probe name -> wrapper class.
PROBES: dict[str, type[ProbeWrapper]] = {
    "isomorphic": IsomorphicPerturbation,
    "noise": IntraGameNoise,
    "boundary": InterGameBoundary,
    "counterfactual": CounterfactualRevision,
    "necessity": NecessityJudgment,
}


def apply_probe(env: gym.Env, probe: str, **kwargs: Any) -> ProbeWrapper:
    """``env`` wrapped in the probe named ``probe`` (a key of :data:`PROBES`) with ``kwargs``."""
    check_choice("probe", probe, sorted(PROBES))
    import inspect

    allowed = [p for p in inspect.signature(PROBES[probe]).parameters if p != "env"]
    unknown = sorted(set(kwargs) - set(allowed))
    if unknown:
        raise ValueError(f"probe_kwargs {unknown} are not arguments of the {probe!r} probe; allowed: {allowed}")
    return PROBES[probe](env, **kwargs)


def make_game_env(
    game: Any, probe: str | None = None, probe_kwargs: dict[str, Any] | None = None, **kwargs: Any
) -> gym.Env:
    """The query games' entry point: ``GameEnv(game, **kwargs)``, wrapped in the probe named
    ``probe`` (a key of :data:`PROBES`) with ``probe_kwargs`` when one is given."""
    if probe is None and probe_kwargs:
        raise ValueError(f"probe_kwargs given without probe; allowed probes: {sorted(PROBES)}")
    env = GameEnv(game, **kwargs)
    return env if probe is None else apply_probe(env, probe, **(probe_kwargs or {}))
