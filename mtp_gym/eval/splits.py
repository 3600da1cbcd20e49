"""Which configurations a run plays, and the reset seed of each episode.

:func:`select_configs` picks ``N`` configurations of a benchmark split (stratified where the env
names its strata), the same ids on every machine; :func:`episode_seed` gives each episode
(configuration, sample) its reset seed.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import cast

import gymnasium as gym
import numpy as np

from mtp_gym.core import TextPuzzleEnv

__all__ = ["benchmark_subset", "episode_seed", "select_configs"]


def select_configs(split: str | int, total: int, strata: Mapping[str, Sequence[Hashable]] | None = None) -> list[int]:
    """Config ids of a split: ``"full"``, or ``N`` of the ``total``, the same ids on every machine.

    With ``strata`` (an env's :meth:`~mtp_gym.core.TextPuzzleEnv.config_strata`: factor name ->
    value per config id), the ``N`` ids keep every factor's mix: each value of each factor
    appears in proportion to its share of the split (within about one configuration), picked
    greedily by the largest shortfall, ties broken by a fixed permutation of the ids. Without
    strata, ``N`` ids ``floor(i * total / N)`` (i = 0 … N-1) spread evenly over the split.
    """
    if split == "full":
        return list(range(total))
    if isinstance(split, str):
        if not split.isdigit():
            raise ValueError(f"--split must be 'full' or a positive int, got {split!r}")
        split = int(split)
    if split < 1:
        raise ValueError(f"--split must be 'full' or a positive int, got {split!r}")
    if split >= total:
        return list(range(total))
    if strata:
        return _stratified(split, total, strata)
    return sorted({int(i) for i in np.floor(np.arange(split) * total / split)})


def _stratified(n: int, total: int, strata: Mapping[str, Sequence[Hashable]]) -> list[int]:
    codes, shares, counts = [], [], []
    for name, values in strata.items():
        if len(values) != total:
            raise ValueError(f"stratum {name!r} has {len(values)} values for {total} configurations")
        index: dict[Hashable, int] = {}
        code = np.array([index.setdefault(v, len(index)) for v in values])
        codes.append(code)
        shares.append(np.bincount(code) / total)
        counts.append(np.zeros(len(index)))
    rank = np.empty(total)
    rank[np.random.default_rng(0).permutation(total)] = np.arange(total)
    free = np.ones(total, dtype=bool)
    picked = []
    for k in range(1, n + 1):
        shortfall = sum(share[code] * k - count[code] for code, share, count in zip(codes, shares, counts))
        shortfall[~free] = -np.inf
        best = np.flatnonzero(shortfall >= shortfall.max() - 1e-9)
        pick = int(best[np.argmin(rank[best])])
        picked.append(pick)
        free[pick] = False
        for code, count in zip(codes, counts):
            count[code[pick]] += 1
    return sorted(picked)


def benchmark_subset(env: gym.Env, split: str | int) -> list[int]:
    """:func:`select_configs` over ``env``'s benchmark split, keeping its strata."""
    base = cast(TextPuzzleEnv, env.unwrapped)
    return select_configs(split, base.num_configs, base.config_strata())


def episode_seed(config_id: int, sample: int = 0, seed: int | None = None) -> int:
    """The reset seed of one episode: the config id itself for the first sample without
    ``--seed`` (as ``gym.make(...).reset(options={"config_id": i})``), else a fixed mix of
    (``seed``, config id, sample), the same on every machine."""
    if seed is None and sample == 0:
        return config_id
    state = np.random.SeedSequence([seed or 0, config_id, sample]).generate_state(1)[0]
    return int(state) & 0x7FFFFFFF
