"""A synchronous vector env whose ``info`` batching costs what the env's step costs.

Gymnasium's ``SyncVectorEnv`` merges each env's ``info`` into the batch key by key, allocating a
mask with ``np.zeros`` for every key of every env on every step: with the contract's keys
(``turn``, ``score``, ``outcome``, ``feedback``, ``hidden``, ...) that costs several times a
Word Guess step (about 8 µs against 2). :class:`TextSyncVectorEnv` is a ``SyncVectorEnv`` that collects the envs'
``info`` dicts of a step and batches them column by column when every env returned the same
keys with values of one type per key (every step of an ``MTP/*`` env); any other step goes
through Gymnasium's own merge. The batch is the same either way: one array per key of the
type Gymnasium picks, a ``_key`` mask beside it, nested dicts batched alike.

    import mtp_gym
    envs = mtp_gym.make_vec("MTP/WordGuess-v0", num_envs=16)

``gym.make_vec(ID, vectorization_mode="sync")`` keeps working and returns the same batches.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import SyncVectorEnv

__all__ = ["TextSyncVectorEnv", "make_vec"]

_SCALARS = (int, float, bool)


def _column(values: Sequence[Any], where: list[int] | None, n: int) -> np.ndarray | None:
    """One key's values (of the envs at ``where``, every env when None) as Gymnasium batches
    them, or None where only its merge knows how."""
    first = values[0]
    kind = type(first)
    types = set(map(type, values))
    column: np.ndarray
    if kind in _SCALARS or issubclass(kind, np.number):
        if len(types) != 1:
            return None
        if where is None:
            return np.array(values, dtype=kind)
        column = np.zeros(n, dtype=kind)
    elif kind is np.ndarray:
        if len(types) != 1 or any(v.shape != first.shape or v.dtype != first.dtype for v in values):
            return None
        column = np.zeros((n, *first.shape), dtype=first.dtype)
    elif any(issubclass(t, dict) for t in types):
        return None
    elif where is None:
        return np.fromiter(values, dtype=object, count=n)
    else:
        column = np.full(n, None, dtype=object)
    for index, value in zip(range(n) if where is None else where, values):
        column[index] = value
    return column


def batch_infos(infos: list[tuple[int, dict[str, Any]]], n: int) -> dict[str, Any] | None:
    """The batched ``info`` of ``n`` envs from ``(env index, info)`` pairs (at most one per env),
    as Gymnasium's merge builds it: per key, an array of the first value's type and a ``_key``
    mask of the envs that have it, nested dicts alike. None when a key's values differ in type
    or shape (or need Gymnasium's special cases), for the caller to merge one by one."""
    order = tuple(infos[0][1])
    if "final_obs" in order:
        return None
    if len(infos) == n and all(i == index and tuple(info) == order for index, (i, info) in enumerate(infos)):
        return _batch_aligned([info for _, info in infos], order, n)
    union: dict[str, None] = {}
    for _, info in infos:
        union.update(dict.fromkeys(info))
    out: dict[str, Any] = {}
    for key in union:
        if key == "final_obs":
            return None
        where = [i for i, info in infos if key in info]
        values = [info[key] for _, info in infos if key in info]
        mask = np.zeros(n, dtype=np.bool_)
        mask[where] = True
        column = _nested_or_column(values, where, n)
        if column is None:
            return None
        out[key] = column
        out["_" + key] = mask
    return out


def _batch_aligned(infos: list[dict[str, Any]], order: tuple[str, ...], n: int) -> dict[str, Any] | None:
    """:func:`batch_infos` of one info per env, each with the keys ``order`` in that order."""
    columns = zip(*[tuple(info.values()) for info in infos])
    masks = np.ones((len(order), n), dtype=np.bool_)
    out: dict[str, Any] = {}
    for row, (key, values) in enumerate(zip(order, columns)):
        kind = type(values[0])
        if kind in _SCALARS and len(set(map(type, values))) == 1:
            column = np.array(values, dtype=kind)
        else:
            column = _nested_or_column(values, None, n)
            if column is None:
                return None
        out[key] = column
        out["_" + key] = masks[row]
    return out


def _nested_or_column(values: Sequence[Any], where: list[int] | None, n: int) -> Any:
    if not isinstance(values[0], dict):
        return _column(values, where, n)
    if not all(issubclass(t, dict) for t in set(map(type, values))):
        return None
    return batch_infos(list(zip(range(n) if where is None else where, values)), n)


class TextSyncVectorEnv(SyncVectorEnv):
    """``SyncVectorEnv`` with the same batches, ``info`` merged column by column (see the module)."""

    _pending: list[tuple[int, dict[str, Any]]] | None = None

    def _add_info(self, vector_infos: dict[str, Any], env_info: dict[str, Any], env_num: int) -> dict[str, Any]:
        if self._pending is None:
            return super()._add_info(vector_infos, env_info, env_num)
        self._pending.append((env_num, env_info))
        return vector_infos

    def _merged(self, call: Callable[[], tuple]) -> tuple:
        """Run a step or reset of the parent class with the envs' infos held back, then batch them
        into the (empty) info dict it returns (for one or two envs Gymnasium's merge is as fast)."""
        if self.num_envs <= 2:
            return call()
        self._pending = []
        try:
            result = call()
        finally:
            pending, self._pending = self._pending, None
        infos = result[-1]
        batch = None
        if pending and len({i for i, _ in pending}) == len(pending):
            batch = batch_infos(pending, self.num_envs)
        if batch is None:
            batch = {}
            for index, info in pending:
                batch = super()._add_info(batch, info, index)
        infos.update(batch)
        return result

    def step(self, actions: Any) -> tuple:
        return self._merged(lambda: super(TextSyncVectorEnv, self).step(actions))

    def reset(self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None) -> tuple:
        return self._merged(lambda: super(TextSyncVectorEnv, self).reset(seed=seed, options=options))


def make_vec(
    env_id: str,
    num_envs: int = 1,
    *,
    wrappers: Sequence[Callable[[gym.Env], gym.Wrapper]] | None = None,
    vector_kwargs: dict[str, Any] | None = None,
    **env_kwargs: Any,
) -> TextSyncVectorEnv:
    """``num_envs`` copies of ``gym.make(env_id, **env_kwargs)`` (each wrapped by ``wrappers`` in
    order) in a :class:`TextSyncVectorEnv`; ``vector_kwargs`` go to its constructor (e.g.
    ``autoreset_mode``). The arguments of ``gym.make_vec(..., vectorization_mode="sync")``."""
    if not isinstance(num_envs, int) or isinstance(num_envs, bool) or num_envs < 1:
        raise ValueError(f"num_envs must be an int >= 1, got {num_envs!r}")

    def one() -> gym.Env:
        env = gym.make(env_id, **env_kwargs)
        for wrapper in wrappers or ():
            env = wrapper(env)
        return env

    envs = TextSyncVectorEnv([one] * num_envs, **(vector_kwargs or {}))
    spec = gym.spec(env_id)
    envs.spec = dataclasses.replace(spec, kwargs={**spec.kwargs, **env_kwargs, "num_envs": num_envs})
    return envs
