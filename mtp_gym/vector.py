"""A synchronous vector env whose ``info`` batching costs what the env's step costs.

Gymnasium's ``SyncVectorEnv`` merges each env's ``info`` into the batch key by key, allocating a
mask with ``np.zeros`` for every key of every env on every step: with the contract's keys
(``turn``, ``score``, ``outcome``, ``feedback``, ``hidden``, ...) that costs several times a
Word Guess step (about 8 µs against 2). :class:`TextSyncVectorEnv` is a ``SyncVectorEnv`` that collects the envs'
``info`` dicts of a step and batches them column by column when every env returned the same
keys with values of one type per key (every step of an ``MTP/*`` env); any other step goes
through Gymnasium's own merge. The batch is the same either way: one array per key of the
type Gymnasium picks, a ``_key`` mask beside it, nested dicts batched alike. With text
observations it steps the envs in its own loop (Gymnasium's semantics for each autoreset
mode), writing rewards and ends into fresh copies of zeroed arrays and returning the
observations' tuple without the ``deepcopy`` that would return that same tuple of strings; it
calls each base env's ``step`` itself once the wrappers ``gym.make`` adds (``OrderEnforcing``,
``PassiveEnvChecker``) have done their checks and only pass steps on.

    import mtp_gym
    envs = mtp_gym.make_vec("MTP/WordGuess-v0", num_envs=16)
    envs = mtp_gym.make_vec("MTP/WordGuess-v0", num_envs=16, info_keys=("score", "outcome"))

``info_keys`` batches only the ``info`` keys a training loop reads (``()``: none): the batch
Gymnasium would make of envs whose ``info`` held only those keys, at a fraction of the cost.

``gym.make_vec(ID, vectorization_mode="sync")`` keeps working and returns the same batches.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.spaces import Text, Tuple
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from gymnasium.vector.utils import concatenate, iterate
from gymnasium.wrappers import OrderEnforcing, PassiveEnvChecker

__all__ = ["TextSyncVectorEnv", "make_vec"]

_DTYPES = {int: np.dtype(int), float: np.dtype(float), bool: np.dtype(bool)}
_TEXT_BATCH = concatenate.dispatch(Text)  # a tuple of the strings
_NEXT_STEP, _SAME_STEP, _DISABLED = _MODES = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED)


def _column(values: Sequence[Any], where: list[int] | None, n: int) -> np.ndarray | None:
    """One key's values (of the envs at ``where``, every env when None) as Gymnasium batches
    them, or None where only its merge knows how."""
    first = values[0]
    kind = type(first)
    dtype = _DTYPES.get(kind)
    if dtype is not None:
        # Python ints, floats or bools: NumPy's own choice of dtype is the first value's exactly
        # when every value converts as Gymnasium's assignment into that dtype converts it (an int
        # among floats, a bool among ints); a float among ints, an int among bools, a string or
        # a list among numbers make another dtype or fail.
        try:
            column = np.array(values if where is None else _spread(values, where, n, kind(0)))
        except (ValueError, TypeError, OverflowError):
            return None
        return column if column.dtype == dtype else None
    types = set(map(type, values))
    if issubclass(kind, np.number):
        if len(types) != 1:
            return None
        return np.array(values if where is None else _spread(values, where, n, kind(0)), dtype=kind)
    if kind is np.ndarray:
        if len(types) != 1 or any(v.shape != first.shape or v.dtype != first.dtype for v in values):
            return None
        column = np.zeros((n, *first.shape), dtype=first.dtype)
        for index, value in zip(range(n) if where is None else where, values):
            column[index] = value
        return column
    if len(types) > 1 and any(issubclass(t, dict) for t in types):  # the first is no dict
        return None
    return np.fromiter(values if where is None else _spread(values, where, n, None), dtype=object, count=n)


def _spread(values: Sequence[Any], where: list[int], n: int, fill: Any) -> list[Any]:
    """``values`` at the positions ``where`` of a list of ``n`` with ``fill`` elsewhere."""
    out = [fill] * n
    for index, value in zip(where, values):
        out[index] = value
    return out


def batch_infos(infos: list[tuple[int, dict[str, Any]]], n: int) -> dict[str, Any] | None:
    """The batched ``info`` of ``n`` envs from ``(env index, info)`` pairs (at most one per env),
    as Gymnasium's merge builds it: per key, an array of the first value's type
    and a ``_key`` mask of the envs that have it, nested dicts alike. None when a key's values
    differ in type or shape (or need Gymnasium's special cases), for the caller to merge one by
    one."""
    if n == 1 and len(infos) == 1:
        return _batch_one(infos[0][1])
    where = [i for i, _ in infos]
    return _batch_dicts([info for _, info in infos], None if where == list(range(n)) else where, n)


def _batch_one(info: dict[str, Any], keys: Iterable[str] | None = None) -> dict[str, Any] | None:
    """:func:`batch_infos` of one env's ``info`` (of its ``keys`` only, each of which it must hold:
    KeyError otherwise): each value in an array of one, as Gymnasium makes it."""
    out: dict[str, Any] = {}
    for key in info if keys is None else keys:
        if key == "final_obs":
            return None
        value = info[key]
        kind = type(value)
        template = _ONE_ZERO.get(kind)
        column: Any
        if template is None:
            if isinstance(value, dict):
                column = _batch_one(value)
                if column is None:
                    return None
            elif issubclass(kind, np.number):
                column = np.array((value,), kind)
            elif isinstance(value, np.ndarray):
                if kind is not np.ndarray:
                    return None
                column = value[np.newaxis].copy()
            else:  # any other object (None, a list, ...): an object array, as for a str
                template = _OBJECT_ONE
        if template is not None:  # a copy and an item write: a third of np.array's cost
            column = template.copy()
            try:
                column[0] = value
            except OverflowError:  # an int past int64: Gymnasium's merge raises it
                return None
        out[key] = column
        out[_mask_key(key)] = _TRUE_ONE.copy()
    return out


_OBJECT_ONE = np.empty(1, dtype=object)
_ONE_ZERO = {
    **{kind: np.zeros(1, dtype) for kind, dtype in _DTYPES.items()},
    str: _OBJECT_ONE,
    type(None): _OBJECT_ONE,
}
_TRUE_ONE = np.ones(1, dtype=np.bool_)


@functools.lru_cache(maxsize=1024)
def _mask_key(key: str) -> str:
    return "_" + key


def _batch_dicts(dicts: Sequence[dict[str, Any]], where: list[int] | None, n: int) -> dict[str, Any] | None:
    """:func:`batch_infos` of the dicts of the envs at ``where`` (every env when None)."""
    keys = list(map(tuple, dicts))
    present = [j for j, k in enumerate(keys) if k]  # an empty dict adds nothing to the batch
    if not present:
        return {}
    order = keys[present[0]]
    if "final_obs" in order:
        return None
    if keys.count(order) == len(present):  # the other dicts all have these keys in this order
        if len(present) < len(dicts):  # the envs whose dict has keys (never every env)
            where = present if where is None else [where[j] for j in present]
            dicts = [dicts[j] for j in present]
        return _batch_aligned(dicts, order, n, where)
    columns: dict[str, tuple[list[int], list[Any]]] = {}
    for index, info in zip(range(n) if where is None else where, dicts):
        for key, value in info.items():
            column = columns.get(key)
            if column is None:
                column = columns[key] = ([], [])
            column[0].append(index)
            column[1].append(value)
    if "final_obs" in columns:
        return None
    everywhere = list(range(n))
    out: dict[str, Any] = {}
    for key, (at, values) in columns.items():
        full = at == everywhere
        batched = _nested_or_column(values, None if full else at, n)
        if batched is None:
            return None
        out[key] = batched
        out["_" + key] = np.array([True] * n if full else _spread([True] * len(at), at, n, False), dtype=np.bool_)
    return out


def _batch_aligned(
    dicts: Sequence[dict[str, Any]], order: tuple[str, ...], n: int, where: list[int] | None
) -> dict[str, Any] | None:
    """:func:`batch_infos` of the dicts of the envs at ``where`` (every env when None), each with
    the keys ``order`` in that order."""
    try:
        columns = list(zip(*map(dict.values, dicts)))
    except TypeError:  # a mapping that is no dict
        return None
    return _batch_columns(order, columns, n, where)


def _batch_columns(
    order: Sequence[str], columns: Sequence[Sequence[Any]], n: int, where: list[int] | None
) -> dict[str, Any] | None:
    """The batch of the values ``columns[k]`` of key ``order[k]`` from the envs at ``where``
    (every env when None)."""
    if where is None:
        masks = _all_true(len(order), n).copy()
    else:
        masks = np.zeros((len(order), n), dtype=np.bool_)
        masks[:, where] = True
    out: dict[str, Any] = {}
    for row, (key, values) in enumerate(zip(order, columns)):
        column = _nested_or_column(values, where, n) if isinstance(values[0], dict) else _column(values, where, n)
        if column is None:
            return None
        out[key] = column
        out["_" + key] = masks[row]
    return out


@functools.lru_cache(maxsize=64)
def _all_true(rows: int, n: int) -> np.ndarray:
    """A read-only ``rows`` x ``n`` array of True, copied for each batch's masks (faster than ``np.ones``)."""
    masks = np.ones((rows, n), dtype=np.bool_)
    masks.flags.writeable = False
    return masks


def _nested_or_column(values: Sequence[Any], where: list[int] | None, n: int) -> Any:
    if not isinstance(values[0], dict):
        return _column(values, where, n)
    if not all(issubclass(t, dict) for t in set(map(type, values))):
        return None
    return _batch_dicts(values, where, n)


class TextSyncVectorEnv(SyncVectorEnv):
    """``SyncVectorEnv`` with the same batches, ``info`` merged column by column (see the module)."""

    _pending: list[tuple[int, dict[str, Any]]] | None = None

    def __init__(self, env_fns: Any, *, info_keys: Iterable[str] | None = None, **kwargs: Any) -> None:
        """``info_keys``: the top-level keys of the envs' ``info`` to batch (``final_info`` alike), the
        rest left out; None (default) batches every key, as Gymnasium does."""
        self.info_keys = _check_info_keys(info_keys)
        self._keys_checked = self.info_keys is None
        super().__init__(env_fns, **kwargs)
        space = self.single_observation_space
        self._text_observations = isinstance(space, Text) and concatenate.dispatch(type(space)) is _TEXT_BATCH
        # Gymnasium's ``iterate`` of a Tuple of spaces it has no ``iterate`` for (Text) is iter(actions)
        self._plain_actions = isinstance(self.action_space, Tuple) and not all(
            type(sub) in iterate.registry for sub in self.action_space
        )
        self._every_env = tuple(range(self.num_envs))
        self._zeros = (np.zeros(self.num_envs, dtype=np.float64), np.zeros(self.num_envs, dtype=np.bool_))
        self._no_resets = [False] * self.num_envs
        self._steps: list[Callable[[Any], tuple]] | None = None

    def _add_info(self, vector_infos: dict[str, Any], env_info: dict[str, Any], env_num: int) -> dict[str, Any]:
        if self._pending is None:
            return super()._add_info(vector_infos, env_info, env_num)
        self._pending.append((env_num, env_info))
        return vector_infos

    def _merged(self, call: Callable[[], tuple]) -> tuple:
        """Run a step or reset of the parent class with the envs' infos held back, then batch them
        into the (empty) info dict it returns."""
        self._pending = []
        try:
            result = call()
        finally:
            pending, self._pending = self._pending, None
        result[-1].update(self._batch(pending))
        return result

    def _batch(self, pending: list[tuple[int, dict[str, Any]]]) -> dict[str, Any]:
        """The batched info of ``(env index, info)`` pairs: column by column where it can, else by
        Gymnasium's merge one pair at a time."""
        if self.info_keys is not None:
            if len(pending) == self.num_envs and self._keys_checked and self.info_keys:
                batch = self._batch_every_key(pending)
                if batch is not None:
                    return batch
            pending = self._kept(pending)
            if not pending:
                return {}
        batch = None
        if len(pending) == 1 or (pending and len({i for i, _ in pending}) == len(pending)):
            batch = batch_infos(pending, self.num_envs)
        if batch is None:
            batch = {}
            for index, info in pending:
                batch = super()._add_info(batch, info, index)
        return batch

    def _batch_every_key(self, pending: list[tuple[int, dict[str, Any]]]) -> dict[str, Any] | None:
        """The batch of ``info_keys`` when each env's info (one each, in order) has them all, as
        :meth:`_kept` then :func:`batch_infos` make it, read straight from the envs' infos; None
        otherwise."""
        keys = self.info_keys or ()
        try:
            if len(pending) == 1:
                index, info = pending[0]
                return _batch_one(info, keys) if index == 0 else None
            indices, infos = zip(*pending)
            if "final_obs" in keys or indices != self._every_env:
                return None
            columns = [list(map(operator.itemgetter(key), infos)) for key in keys]
        except (KeyError, TypeError):  # a key missing (or a same-step autoreset's pair): _kept's way
            return None
        return _batch_columns(keys, columns, self.num_envs, None)

    def _kept(self, pending: list[tuple[int, dict[str, Any]]]) -> list[tuple[int, dict[str, Any]]]:
        """``pending`` with only the keys ``info_keys`` names (an empty info adds nothing to a batch)."""
        keys = self.info_keys or ()
        if not self._keys_checked:
            self._keys_checked = True
            seen = {key for _, info in pending for key in info}
            if missing := [key for key in keys if key not in seen]:
                warnings.warn(
                    f"info_keys: {missing} not in the envs' info at reset (its keys: {sorted(seen)}); "
                    "batched only if an env returns them later",
                    stacklevel=5,
                )
        kept = []
        for index, info in pending:
            if not keys and len(info) != 2:  # no key kept, and no same-step autoreset's pair
                continue
            if len(info) == 2 and "final_obs" in info and "final_info" in info:  # a same-step autoreset's
                final = info["final_info"]
                info = {"final_obs": info["final_obs"], "final_info": {k: final[k] for k in keys if k in final}}
            else:
                info = {key: info[key] for key in keys if key in info}
            if info:
                kept.append((index, info))
        return kept

    def step(self, actions: Any) -> tuple:
        """``SyncVectorEnv.step``; with text observations in a loop of its own: a tuple of strings
        is what ``deepcopy`` of the observations returns anyway (the same tuple), and the rewards
        and ends are written into copies of zeroed arrays (a copy and a few item writes cost a
        third of ``np.array`` of a list)."""
        mode = self.autoreset_mode
        if not self._text_observations or mode not in _MODES:
            return self._merged(lambda: super(TextSyncVectorEnv, self).step(actions))
        n, envs = self.num_envs, self.envs
        if not self._plain_actions:
            actions = tuple(iterate(self.action_space, actions))
        elif type(actions) is not tuple and type(actions) is not list:
            actions = tuple(actions)
        if len(actions) != n:
            raise ValueError(f"actions: one per env expected ({n}), got {len(actions)}")
        observations = self._env_obs
        zeros = self._zeros
        rewards, terminations, truncations = zeros[0].copy(), zeros[1].copy(), zeros[1].copy()
        pending: list[tuple[int, dict[str, Any]]] = []
        keep = self.info_keys != ()  # with no key kept, only a same-step autoreset's pair is batched
        resetting = self._no_resets if self._autoreset_envs is zeros[1] else self._autoreset_envs.tolist()
        next_step, same_step, disabled = mode is _NEXT_STEP, mode is _SAME_STEP, mode is _DISABLED
        ended = False
        steps = self._steps or self._direct_steps()
        for i in range(n):
            if resetting[i] and next_step:
                observations[i], info = envs[i].reset()
            else:
                if disabled:
                    assert not resetting[i], f"{self._autoreset_envs=}"
                observations[i], rewards[i], terminated, truncated, info = steps[i](actions[i])
                if terminated is not False or truncated is not False:
                    terminations[i], truncations[i] = terminated, truncated
                    if terminations[i] or truncations[i]:
                        ended = True
                        if same_step:
                            pending.append((i, {"final_obs": observations[i], "final_info": info}))
                            observations[i], info = envs[i].reset()
            if keep:
                pending.append((i, info))
        self._rewards, self._terminations, self._truncations = rewards, terminations, truncations
        # no env ended: the zeroed array itself (Gymnasium's reset only ever writes False into it)
        self._autoreset_envs = terminations | truncations if ended else zeros[1]
        self._observations = tuple(observations)
        # fresh arrays every step, returned as they are (reset copies the two it clears in place)
        return self._observations, rewards, terminations, truncations, self._batch(pending) if pending else {}

    def _direct_steps(self) -> list[Callable[[Any], tuple]]:
        """Each env's ``step``: its base env's own once Gymnasium's ``OrderEnforcing`` and
        ``PassiveEnvChecker`` (the wrappers ``gym.make`` adds) only pass steps through (after a
        reset and the checker's two checked steps); kept once no env's can change any more."""
        pairs = [_direct_step(env) for env in self.envs]
        steps = [step for step, _ in pairs]
        if all(final for _, final in pairs):
            self._steps = steps
        return steps

    def reset(self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None) -> tuple:
        if options and "reset_mask" in options:
            self._terminations, self._truncations = self._terminations.copy(), self._truncations.copy()
        return self._merged(lambda: super(TextSyncVectorEnv, self).reset(seed=seed, options=options))


def _direct_step(env: gym.Env) -> tuple[Callable[[Any], tuple], bool]:
    """The base env's ``step`` where ``env``'s wrappers are Gymnasium's and only pass steps on, else
    ``env.step``; and whether that is final (not while those wrappers still check)."""
    inner = env
    if type(inner) is OrderEnforcing:
        if not inner._has_reset:
            return env.step, False
        inner = inner.env
    if type(inner) is PassiveEnvChecker:
        if not (inner.checked_step and getattr(inner, "checked_data_reuse", True)):  # a check of Gymnasium 1.4
            return env.step, False
        inner = inner.env
    return (env.step if isinstance(inner, gym.Wrapper) else inner.step), True


def _check_info_keys(info_keys: Any) -> tuple[str, ...] | None:
    if info_keys is None:
        return None
    if isinstance(info_keys, (str, bytes)) or not isinstance(info_keys, Iterable):
        raise TypeError(f"info_keys must be None or a collection of key names (e.g. ('score',)), got {info_keys!r}")
    keys = tuple(info_keys)
    if not all(isinstance(key, str) for key in keys):
        raise TypeError(f"info_keys must hold str key names, got {keys!r}")
    return tuple(dict.fromkeys(keys))


def make_vec(
    env_id: str,
    num_envs: int = 1,
    *,
    info_keys: Iterable[str] | None = None,
    wrappers: Sequence[Callable[[gym.Env], gym.Wrapper]] | None = None,
    vector_kwargs: dict[str, Any] | None = None,
    **env_kwargs: Any,
) -> TextSyncVectorEnv:
    """``num_envs`` copies of ``gym.make(env_id, **env_kwargs)`` (each wrapped by ``wrappers`` in
    order) in a :class:`TextSyncVectorEnv` batching the ``info`` keys ``info_keys`` (None: all);
    ``vector_kwargs`` go to its constructor (e.g. ``autoreset_mode``). The arguments of
    ``gym.make_vec(..., vectorization_mode="sync")``."""
    if not isinstance(num_envs, int) or isinstance(num_envs, bool) or num_envs < 1:
        raise ValueError(f"num_envs must be an int >= 1, got {num_envs!r}")

    def one() -> gym.Env:
        env = gym.make(env_id, **env_kwargs)
        for wrapper in wrappers or ():
            env = wrapper(env)
        return env

    envs = TextSyncVectorEnv([one] * num_envs, **{"info_keys": info_keys, **(vector_kwargs or {})})
    spec = gym.spec(env_id)
    envs.spec = dataclasses.replace(spec, kwargs={**spec.kwargs, **env_kwargs, "num_envs": num_envs})
    return envs
