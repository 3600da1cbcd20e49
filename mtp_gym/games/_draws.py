"""Small integer draws of a NumPy ``Generator``, made in Python, bit for bit as NumPy makes them.

``Generator.integers`` and ``Generator.choice`` spend microseconds per call on their arguments
before they draw, which dominates a generator that draws hundreds of small integers one by one
(OutbreakSource's networks, HiddenColoring's free nodes). :class:`ExactDraws` reads the
generator's 32-bit words in blocks and makes the same draws from them:

- ``integers(k)`` (``1 <= k < 2**32``): one word through Lemire's method
  (``word * k >> 32``, redrawn when the low half falls under ``2**32 mod k``), none for ``k == 1``;
- ``choice(m, size, replace=False)``: Floyd's algorithm (for ``j`` in ``m - size .. m - 1``, a
  draw in ``0..j``, ``j`` itself in place of one already taken) and then a Fisher-Yates
  shuffle of the picks (for ``i`` from ``size - 1`` down to 1, a draw in ``0..i``): NumPy's way
  but past ``m = 10,000`` with ``size > m // 50`` (a tail shuffle, never at ``size <= 2``),
  which is refused here.

A PCG64 generator hands out a 64-bit word's low half and keeps the high half for the next
32-bit draw; :meth:`ExactDraws.close` leaves the generator where those calls would have left it,
its state and that kept half included. Any other bit generator is called directly.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any

import numpy as np

_FIRST_BLOCK, _LAST_BLOCK = 8, 256  # 64-bit words read at a time, doubling from the first


class ExactDraws:
    """The draws of ``rng.integers`` and ``rng.choice(..., replace=False)`` made without their
    call overhead; use as a context manager (or call :meth:`close`), and draw from ``rng``
    itself only after."""

    def __init__(self, rng: np.random.Generator) -> None:
        self._rng = rng
        bits = rng.bit_generator
        self._bits: Any = bits if type(bits) is np.random.PCG64 else None
        if self._bits is not None:
            state = bits.state
            self._stored = state["uinteger"]  # the last high half stored (NumPy keeps it after use)
            self._kept = self._stored if state["has_uint32"] else None  # the next 32-bit draw's, if kept
            self._kept_first = self._kept
            self._words: list[int] = []  # the last block of words read
            self._next = 0  # its first word not used
            self._block = _FIRST_BLOCK

    def integers(self, k: int) -> int:
        """``int(rng.integers(k))``, ``1 <= k < 2**32``."""
        if self._bits is None:
            return int(self._rng.integers(k))
        if not 1 <= k < 1 << 32:
            raise ValueError(f"k must be in 1..2**32 - 1, got {k}")
        if k == 1:
            return 0
        while True:
            half = self._kept
            if half is None:
                if self._next == len(self._words):
                    self._words, self._next = self._bits.random_raw(self._block).tolist(), 0
                    self._block = min(2 * self._block, _LAST_BLOCK)
                word = self._words[self._next]
                self._next += 1
                half, self._kept = word & 0xFFFFFFFF, word >> 32
                self._stored = self._kept
            else:
                self._kept = None
            product = half * k
            low = product & 0xFFFFFFFF
            if low >= k or low >= (1 << 32) % k:
                return product >> 32

    def choice(self, m: int, size: int) -> list[int]:
        """``rng.choice(m, size=size, replace=False).tolist()``."""
        if self._bits is None:
            return [int(v) for v in self._rng.choice(m, size=size, replace=False)]
        if not 0 <= size <= m:
            raise ValueError(f"size must be in 0..m ({m}), got {size}")
        if m > 10_000 and size > m // 50:
            raise ValueError(f"size must be at most m // 50 ({m // 50}) past m = 10,000, got {size}: NumPy shuffles")
        picks: list[int] = []
        for j in range(m - size, m):
            value = self.integers(j + 1)
            picks.append(j if value in picks else value)
        for i in range(size - 1, 0, -1):
            j = self.integers(i + 1)
            picks[i], picks[j] = picks[j], picks[i]
        return picks

    def close(self) -> None:
        """Leave the generator as the draws made would have left it; later draws go to it directly."""
        bits, self._bits = self._bits, None
        if bits is None or not self._words and self._kept == self._kept_first:  # nothing drawn
            return
        unused = len(self._words) - self._next
        if unused:  # read ahead: step back (the generator's state is an LCG modulo 2**128)
            bits.advance((1 << 128) - unused)
        state = bits.state
        state["has_uint32"], state["uinteger"] = int(self._kept is not None), self._stored
        bits.state = state

    def __enter__(self) -> ExactDraws:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()
