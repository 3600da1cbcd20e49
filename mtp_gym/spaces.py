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
    """``gymnasium.spaces.Text`` whose batches also travel through shared memory."""


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
