"""Wrappers: discrete views for classic RL (and, later, robustness probes)."""

from mtp_gym.wrappers.circuit_decoding_discrete import CircuitDecodingDiscrete
from mtp_gym.wrappers.probes import (
    PROBES,
    CounterfactualRevision,
    InterGameBoundary,
    IntraGameNoise,
    IsomorphicPerturbation,
    NecessityJudgment,
    apply_probe,
)
from mtp_gym.wrappers.turing_machine_discrete import TuringMachineDiscrete
from mtp_gym.wrappers.word_chain_discrete import WordChainDiscrete
from mtp_gym.wrappers.word_guess_discrete import WordGuessDiscrete

__all__ = ["WordGuessDiscrete", "CircuitDecodingDiscrete", "WordChainDiscrete", "TuringMachineDiscrete"]
# Robustness / metacognition probes of the query games (interactive reasoning paper).
__all__ += [
    "PROBES",
    "apply_probe",
    "IsomorphicPerturbation",
    "IntraGameNoise",
    "InterGameBoundary",
    "CounterfactualRevision",
    "NecessityJudgment",
]
