"""The Text space of every mtp-gym env, usable in ``AsyncVectorEnv`` with shared memory.

Gymnasium's own shared-memory support for ``Text`` decodes the buffer once, when the vector
env is built, so an ``AsyncVectorEnv`` (default ``shared_memory=True``) returns the same
zero-filled strings forever. :class:`TextSpace` registers its own shared-memory handlers
(Gymnasium's ``singledispatch`` extension points) that store ASCII bytes and decode them
when the batch is read, so ``gym.make_vec(ID, vectorization_mode="async")`` just works.
"""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import create_shared_memory, read_from_shared_memory, write_to_shared_memory

__all__ = ["TextSpace", "SharedTextBatch"]


class TextSpace(spaces.Text):
    """``gymnasium.spaces.Text`` whose batches also travel through shared memory.

    The character tables Gymnasium builds for a charset (a dict of 100 NumPy ints for the envs'
    charset: most of the 80 µs of a ``Text``) are built once per charset string and shared,
    read-only as Gymnasium uses them, by every space of that charset (two per env).
    """

    def __init__(
        self,
        max_length: int,
        *,
        min_length: int = 1,
        charset: frozenset[str] | str = spaces.text.alphanumeric,
        seed: int | np.random.Generator | None = None,
    ) -> None:
        tables = _CHAR_TABLES.get(charset) if type(charset) is str else None
        if tables is None:
            super().__init__(max_length, min_length=min_length, charset=charset, seed=seed)
            if type(charset) is str and len(_CHAR_TABLES) < 64:
                _CHAR_TABLES[charset] = (self._char_set, self._char_list, self._char_index, self._char_str)
            return
        super().__init__(max_length, min_length=min_length, charset=tables[3][:1], seed=seed)  # the checks
        self._char_set, self._char_list, self._char_index, self._char_str = tables


#: charset string -> what ``Text.__init__`` builds from it (frozenset, tuple, index dict, sorted str).
_CHAR_TABLES: dict[str, tuple[frozenset[str], tuple[str, ...], dict[str, Any], str]] = {}


class SharedTextBatch(Sequence):
    """A live view of ``n`` strings in a shared buffer; ``deepcopy`` gives a tuple of str."""

    def __init__(self, buffer: Any, n: int, max_length: int) -> None:
        self._array = np.frombuffer(buffer.get_obj(), dtype=np.uint8).reshape(n, max_length)

    def __len__(self) -> int:
        return self._array.shape[0]

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self))))
        return self._array[index].tobytes().split(b"\0", 1)[0].decode("ascii")

    def __deepcopy__(self, memo: dict) -> tuple[str, ...]:
        return tuple(self)

    def __eq__(self, other: object) -> bool:
        return tuple(self) == tuple(other) if isinstance(other, Sequence) else NotImplemented

    def __repr__(self) -> str:
        return f"SharedTextBatch({tuple(self)!r})"


@create_shared_memory.register(TextSpace)
def _create_text_shared_memory(space: TextSpace, n: int = 1, ctx: ModuleType = mp) -> Any:
    return ctx.Array("B", n * space.max_length)


@write_to_shared_memory.register(TextSpace)
def _write_text_to_shared_memory(space: TextSpace, index: int, value: str, shared_memory: Any) -> None:
    data = value.encode("ascii")
    if len(data) > space.max_length:
        raise ValueError(f"observation of {len(data)} characters exceeds max_length={space.max_length}")
    row = np.frombuffer(shared_memory.get_obj(), dtype=np.uint8)[
        index * space.max_length : (index + 1) * space.max_length
    ]
    row[: len(data)] = np.frombuffer(data, dtype=np.uint8)
    row[len(data) :] = 0


@read_from_shared_memory.register(TextSpace)
def _read_text_from_shared_memory(space: TextSpace, shared_memory: Any, n: int = 1) -> SharedTextBatch:
    return SharedTextBatch(shared_memory, n, space.max_length)
