"""The report in one pass over the logs, in memory that does not grow with the episodes.

:class:`ReportStream` takes records one at a time (:func:`~.load.iter_runs` streams them) and
keeps a few numbers per episode (no transcript, no record object) in a buffer of :data:`CHUNK`
rows that goes to an unlinked temporary file when full (93 bytes a row on disk): what the
tables need (:meth:`ReportStream.rows`, the same :class:`~.stats.Row`\\ s
:func:`~.stats.compute_rows` gives for the records :func:`~.load.load_runs` keeps) and the
page's index of episodes (:meth:`ReportStream.page_index`). Each record shown on the page is
handed once to a ``page`` callback (the block writer of :mod:`mtp_gym.eval.html`), which
returns where it put it (block, offset) and lets it go. Every later pass reads the file a chunk
at a time; a pass that needs the rows in another order (one task's episodes, one run's) first
writes them once more, each chunk grouped by what it is read by (:class:`_Parts`).

A record that supersedes an earlier one of the same agent, task, configuration and sample
(:func:`~mtp_gym.eval.log.keep_latest`: a replayed ``infra_error``) takes the earlier one's
place, as :func:`~.load.load_runs` does: settled at the end, each row's key hashed into one of
:data:`BUCKETS` buckets on disk and each bucket sorted on its own, so memory holds one bucket
and the superseded rows, never every key. What grows with the log: the superseded rows, each
probe episode's figures (the probe tables read them), and values past 64 bits (a hostile log).
"""

from __future__ import annotations

import math
import os
import tempfile
from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mtp_gym.eval.record import EpisodeRecord, task_name
from mtp_gym.eval.report.stats import Row, rows_of

__all__ = ["BUCKETS", "CHUNK", "Episode", "PageIndex", "ReportStream"]

#: Row flags: shown on the page, counted in the tables.
PAGE, TABLE = 1, 2
#: Rows buffered in memory before they go to the file (a pass reads about as many at once).
CHUNK = 1 << 15
#: Buckets of the keys (the superseded-record pass reads one bucket at a time).
BUCKETS = 256
#: A row's key (agent, task, configuration, sample) packs into 63 bits below these bounds
#: (else it is numbered apart, negative); a row never superseded gets a key of its own.
_SAMPLE_BITS, _GROUP_BITS = 20, 20
_CONFIG_END, _SAMPLE_END, _GROUP_END = 1 << (63 - _SAMPLE_BITS - _GROUP_BITS), 1 << _SAMPLE_BITS, 1 << _GROUP_BITS
_UNIQUE = -(1 << 62)
#: The row as stored: each column's numpy type (the buffer's ``array`` of the same size), and
#: the row's number.
_COLUMNS = {
    "group": "i4",
    "run": "i4",
    "outcome": "i4",
    "flags": "i1",
    "key": "i8",
    "config": "i8",
    "sample": "i8",
    "turns": "i8",
    "format_errors": "i8",
    "score": "f8",
    "prompt_tokens": "f8",
    "completion_tokens": "f8",
    "block": "i4",
    "offset": "i4",
}
_CODES = {"i4": "i", "i1": "b", "i8": "q", "f8": "d"}  # native byte order, as ``array`` stores them
_ROW = np.dtype([*_COLUMNS.items(), ("row", "i8")])
#: What the superseded-record pass reads of a row (the row's key in its bucket).
_KEY_COLUMNS = {"key": "i8", "row": "i8", "flags": "i1", "outcome": "i4"}
_KEY = np.dtype(list(_KEY_COLUMNS.items()))
#: Integer columns whose values may pass 64 bits (such a value is kept apart, by row).
_WIDE = ("config", "sample", "turns", "format_errors")
#: The page index's columns (:class:`PageIndex`), and the type of each.
INDEX_TYPES = {
    "task": "<i4",
    "agent": "<i4",
    "outcome": "<i4",
    "config": "<f8",
    "sample": "<f8",
    "score": "<f8",
    "turns": "<f8",
    "block": "<i4",
    "offset": "<i4",
}


class _Parts:
    """Records of one numpy type in an unlinked temporary file, written a chunk at a time with
    each chunk's records grouped by part: read back one part at a time, in the order written."""

    def __init__(self, dtype: np.dtype, parts: int = 1, where: Path | None = None) -> None:
        self.dtype, self.parts = dtype, max(1, parts)
        self._file = tempfile.TemporaryFile(prefix="mtp-report-", dir=where)
        self._segments: list[tuple[int, np.ndarray]] = []  # (offset, where each part starts)
        self._size = 0

    def write(self, records: np.ndarray, part: np.ndarray | None = None) -> None:
        """Append ``records`` (of :attr:`dtype`), each of the part ``part`` gives (0: none)."""
        if not len(records):
            return
        if part is None:
            starts = np.array([0, len(records)])
        else:
            order = np.argsort(part, kind="stable")
            records = records[order]
            starts = np.zeros(self.parts + 1, dtype=np.int64)
            np.cumsum(np.bincount(part, minlength=self.parts), out=starts[1:])
        data = np.ascontiguousarray(records).data.cast("B")
        self._file.write(data)
        self._segments.append((self._size, starts))
        self._size += len(data)

    def read(self, part: int = 0) -> Iterator[np.ndarray]:
        """The records of ``part``, a written chunk at a time (read-only arrays)."""
        self._file.flush()
        fd, size = self._file.fileno(), self.dtype.itemsize
        for offset, starts in self._segments:
            a, b = int(starts[part]), int(starts[part + 1])
            if b > a:
                yield np.frombuffer(os.pread(fd, (b - a) * size, offset + a * size), dtype=self.dtype)

    def close(self) -> None:
        if hasattr(self, "_file"):  # not when the file could not be made
            self._file.close()

    __del__ = close


class Episode:
    """The numbers of one episode a row of the tables reads (:class:`~.stats.Scored`)."""

    __slots__ = (
        "config_id",
        "outcome",
        "score",
        "turns",
        "format_errors",
        "prompt_tokens",
        "completion_tokens",
        "probe_result",
    )

    def __init__(
        self,
        config_id: int,
        outcome: str,
        score: float | None,
        turns: int,
        format_errors: int,
        prompt_tokens: int | float,
        completion_tokens: int | float,
        probe_result: dict[str, Any] | None,
    ) -> None:
        self.config_id = config_id
        self.outcome = outcome
        self.score = score
        self.turns = turns
        self.format_errors = format_errors
        self.prompt_tokens = prompt_tokens
        self.completion_tokens = completion_tokens
        self.probe_result = probe_result


@dataclass
class PageIndex:
    """The page's list of episodes in page order, a column at a time: :meth:`read` gives one
    column of :data:`INDEX_TYPES` (``task``, ``agent``, ``outcome``: indices into
    :attr:`tasks`, :attr:`agents`, :attr:`outcomes`; ``config``, ``sample``, ``score`` (NaN:
    none), ``turns``; ``block``, ``offset``: where the page callback put the episode) a chunk of
    rows at a time; :attr:`columns` holds them all (a small page, a test)."""

    tasks: list[str]
    agents: list[str]
    outcomes: list[str]
    count: int
    read: Callable[[str], Iterator[np.ndarray]]

    def __len__(self) -> int:
        return self.count

    @property
    def columns(self) -> dict[str, np.ndarray]:
        """Every column, whole, in memory."""
        return {
            name: np.concatenate([np.zeros(0, dtype), *self.read(name)]).astype(dtype)
            for name, dtype in INDEX_TYPES.items()
        }


def _number(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) else 0.0


def _bucket(keys: np.ndarray) -> np.ndarray:
    """Each key's bucket of :data:`BUCKETS` (a power of two): the top bits of a multiplicative hash."""
    shift = np.uint64(65 - BUCKETS.bit_length())
    return ((keys.view(np.uint64) * np.uint64(0x9E3779B97F4A7C15)) >> shift).astype(np.intp)


class ReportStream:
    """The tables' numbers and the page's index of a stream of records (see the module).

    ``page(record) -> (block, offset)`` stores a record shown on the page; ``None``: no page.
    ``where``: the directory of the temporary files (default: the system's). Rows are only
    appended while records stream in; which record of an episode is kept
    (:func:`~mtp_gym.eval.log.keep_latest`) is settled at each read (:meth:`kept`).
    """

    def __init__(
        self, page: Callable[[EpisodeRecord], tuple[int, int]] | None = None, where: Path | None = None
    ) -> None:
        self._page = page
        self._where = where
        self._groups: dict[tuple[str, str, int | None, str | None], int] = {}  # (env, agent, level, probe)
        self._runs: dict[tuple[str, int | None, str | None], int] = {}  # (agent, level, probe): page order
        self._outcomes: dict[str, int] = {}
        self._big: dict[tuple[int, Any, Any], int] = {}  # keys too large to pack in 63 bits
        self._probe: dict[int, dict[str, Any] | None] = {}
        self._wide: dict[tuple[str, int], int] = {}  # (column, row): a value past 64 bits
        self._buffer: dict[str, array[Any]] = {name: array(_CODES[dtype]) for name, dtype in _COLUMNS.items()}
        self._rows = _Parts(_ROW, 1, where)
        self._keys = _Parts(_KEY, BUCKETS, where)
        self._files = [self._rows, self._keys]  # the page index's too, closed with the stream
        self._stored = 0

    def __len__(self) -> int:
        return self._stored + len(self._buffer["flags"])

    def close(self) -> None:
        """Remove the stream's temporary files (its page indexes can no longer be read)."""
        for parts in self._files:
            parts.close()

    def __enter__(self) -> ReportStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- feeding ---------------------------------------------------------------------------

    def add(self, r: EpisodeRecord, page: bool = True, table: bool = True, dedup: bool = True) -> None:
        """Take one record: shown on the page and/or counted in the tables. With ``dedup`` it
        supersedes an earlier record of its agent, task, configuration and sample shown or
        counted alike (the one kept by :func:`~mtp_gym.eval.log.keep_latest`'s rule, at the
        first one's place); without, it is one more row (as :func:`~.stats.compute_rows` counts
        the records it is given)."""
        g = self._groups.setdefault((r.env_id, r.agent, r.level, r.probe), len(self._groups))
        row, b = len(self), self._buffer
        b["group"].append(g)
        b["run"].append(self._runs.setdefault((r.agent, r.level, r.probe), len(self._runs)))
        b["flags"].append((PAGE if page else 0) | (TABLE if table else 0))
        config, sample = r.config_id, r.sample
        if not dedup:
            key = _UNIQUE - row
        elif isinstance(config, int) and 0 <= config < _CONFIG_END and 0 <= sample < _SAMPLE_END and g < _GROUP_END:
            key = ((config << _SAMPLE_BITS | sample) << _GROUP_BITS) | g
        else:
            key = -1 - self._big.setdefault((g, config, sample), len(self._big))
        b["key"].append(key)
        b["outcome"].append(self._outcomes.setdefault(r.outcome, len(self._outcomes)))
        for name, value in (
            ("config", config),
            ("sample", sample),
            ("turns", r.turns),
            ("format_errors", r.format_errors),
        ):
            try:
                b[name].append(value)
            except OverflowError:
                b[name].append(0)
                self._wide[name, row] = value
        b["score"].append(math.nan if r.score is None else float(r.score))
        b["prompt_tokens"].append(_number(r.prompt_tokens))
        b["completion_tokens"].append(_number(r.completion_tokens))
        block, offset = self._page(r) if page and self._page is not None else (-1, -1)
        b["block"].append(block)
        b["offset"].append(offset)
        if r.probe is not None:
            self._probe[row] = r.probe_result
        if len(b["flags"]) >= CHUNK:
            self._store()

    def add_all(
        self, records: Iterable[EpisodeRecord], page: bool = True, table: bool = True, dedup: bool = True
    ) -> int:
        """:meth:`add` each of ``records`` (consumed one at a time); return how many."""
        n = 0
        for r in records:
            self.add(r, page, table, dedup)
            n += 1
        return n

    def _store(self) -> None:
        """The buffer to the file; the keys of its rows that may be superseded to their buckets."""
        n = len(self._buffer["flags"])
        if not n:
            return
        rows = np.empty(n, dtype=_ROW)
        for name, col in self._buffer.items():
            rows[name] = np.frombuffer(col, dtype=_COLUMNS[name])
            del col[:]
        rows["row"] = np.arange(self._stored, self._stored + n)
        self._rows.write(rows)
        mine = rows[rows["key"] > _UNIQUE]
        keys = np.empty(len(mine), dtype=_KEY)
        for name in _KEY_COLUMNS:
            keys[name] = mine[name]
        self._keys.write(keys, _bucket(keys["key"]))
        self._stored += n

    # -- which rows are kept ----------------------------------------------------------------

    def _superseded(self, flag: int) -> tuple[np.ndarray, dict[int, int]]:
        """The rows shown (``flag`` :data:`PAGE`) or counted (:data:`TABLE`) that another row of
        their key replaces (sorted), and the first row of each such key -> the row kept at its
        place (the last that is not an ``infra_error``, else the last) where it is another."""
        self._store()
        infra = self._outcomes.get("infra_error", -1)
        dropped, firsts, winners = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
        for bucket in range(BUCKETS):
            parts = [p[(p["flags"] & flag) != 0] for p in self._keys.read(bucket)]
            keys = np.concatenate(parts) if parts else np.zeros(0, _KEY)
            if len(keys) < 2:
                continue
            keys = keys[np.argsort(keys["key"], kind="stable")]  # a key's rows together, in log order
            repeats = keys["key"][1:] == keys["key"][:-1]
            if not repeats.any():
                continue
            rows = keys["row"]
            starts = np.flatnonzero(np.concatenate(([True], ~repeats)))
            ends = np.append(starts[1:], len(rows))
            real = np.where(keys["outcome"] != infra, np.arange(len(rows)), -1)
            last_real = np.maximum.reduceat(real, starts)
            won = np.where(last_real >= starts, last_real, ends - 1)
            dropped.append(rows[1:][repeats])
            moved = won != starts
            firsts.append(rows[starts[moved]])
            winners.append(rows[won[moved]])
        first, winner = np.concatenate(firsts), np.concatenate(winners)
        return np.sort(np.concatenate(dropped)), dict(zip(first.tolist(), winner.tolist()))

    def _fetch(self, rows: list[int]) -> dict[int, np.void]:
        """The stored rows ``rows`` (sorted), by row number."""
        want, out = np.asarray(rows, dtype=np.int64), dict[int, np.void]()
        for chunk in self._rows.read() if rows else ():
            lo = int(chunk["row"][0])
            here = want[(want >= lo) & (want < lo + len(chunk))]
            out.update(zip(here.tolist(), chunk[here - lo]))
        return out

    def _kept(self, flag: int) -> Iterator[np.ndarray]:
        """The rows shown or counted (``flag``), a chunk at a time, each episode once: of the rows
        of one key, the last that is not an ``infra_error`` (else the last), at the first one's
        place (its ``row``: the row kept)."""
        dropped, moved = self._superseded(flag)
        winners = self._fetch(sorted(set(moved.values())))
        firsts = np.array(sorted(moved), dtype=np.int64)
        for chunk in self._rows.read():
            lo, hi = int(chunk["row"][0]), int(chunk["row"][-1]) + 1
            keep = (chunk["flags"] & flag) != 0
            gone = dropped[np.searchsorted(dropped, lo) : np.searchsorted(dropped, hi)]
            keep[gone - lo] = False
            out = chunk[keep]
            here = firsts[np.searchsorted(firsts, lo) : np.searchsorted(firsts, hi)]
            if len(here):
                out = out.copy()
                at = np.searchsorted(out["row"], here)
                for i, first in zip(at.tolist(), here.tolist()):
                    out[i] = winners[moved[first]]
            if len(out):
                yield out

    def kept(self, flag: int) -> np.ndarray:
        """The rows shown (``flag`` :data:`PAGE`) or counted (:data:`TABLE`), in page order (each
        episode's kept row at its first row's place), as one array."""
        return np.concatenate([np.zeros(0, np.int64), *(chunk["row"] for chunk in self._kept(flag))])

    def _value(self, name: str, chunk: np.ndarray) -> list[Any]:
        """A column of ``chunk`` as Python values, with the values past 64 bits put back."""
        values = chunk[name].tolist()
        if self._wide and name in _WIDE:
            for i, row in enumerate(chunk["row"].tolist()):
                values[i] = self._wide.get((name, row), values[i])
        return values

    # -- the tables --------------------------------------------------------------------------

    def facts(self) -> Iterator[tuple[str, tuple[str, int | None, str | None], int, str]]:
        """(agent, task, config id, outcome) of every episode the tables count."""
        groups, outcomes = list(self._groups), list(self._outcomes)
        for chunk in self._kept(TABLE):
            for g, config, outcome in zip(
                chunk["group"].tolist(), self._value("config", chunk), chunk["outcome"].tolist()
            ):
                env, agent, level, probe = groups[g]
                yield agent, (env, level, probe), config, outcomes[outcome]

    def _episodes(self, chunks: Iterable[np.ndarray]) -> Iterator[Episode]:
        outcomes = list(self._outcomes)
        for chunk in chunks:
            columns = zip(
                self._value("config", chunk),
                chunk["outcome"].tolist(),
                chunk["score"].tolist(),
                self._value("turns", chunk),
                self._value("format_errors", chunk),
                chunk["prompt_tokens"].tolist(),
                chunk["completion_tokens"].tolist(),
                chunk["row"].tolist(),
            )
            for config, outcome, score, turns, errors, prompt, completion, row in columns:
                yield Episode(
                    config,
                    outcomes[outcome],
                    None if math.isnan(score) else score,
                    turns,
                    errors,
                    _token(prompt),
                    _token(completion),
                    self._probe.get(row),
                )

    def rows(self, prices: dict[str, tuple[float, float]] | None = None) -> list[Row]:
        """One :class:`~.stats.Row` per task and agent over the rows the tables count (each
        group's episodes written apart, then read one at a time as its row reads them)."""
        parts = _Parts(_ROW, len(self._groups), self._where)
        seen = np.zeros(len(self._groups), dtype=bool)
        try:
            for chunk in self._kept(TABLE):
                parts.write(chunk, chunk["group"])
                seen[chunk["group"]] = True
            tasks = list(self._groups)
            groups = ((tasks[g], self._episodes(parts.read(g))) for g in np.flatnonzero(seen).tolist())
            return rows_of(groups, prices)
        finally:
            parts.close()

    # -- the page ---------------------------------------------------------------------------

    def page_index(self) -> PageIndex:
        """The episodes shown on the page, grouped by run (agent, level, probe) in the order the
        runs were first seen, each run's episodes in log order (as :func:`~.load.load_runs`)."""
        parts = _Parts(_ROW, len(self._runs), self._where)
        self._files.append(parts)
        runs: dict[int, None] = {}  # in the order the page first shows them
        groups: dict[int, None] = {}
        count = 0
        for chunk in self._kept(PAGE):
            parts.write(chunk, chunk["run"])
            count += len(chunk)
            for name, seen in (("run", runs), ("group", groups)):
                values, first = np.unique(chunk[name], return_index=True)
                seen.update(dict.fromkeys(values[np.argsort(first)].tolist()))
        rank = {run: i for i, run in enumerate(runs)}
        keys = list(self._groups)
        tasks: dict[str, int] = {}
        agents: dict[str, int] = {}
        task_of = np.zeros(len(keys), dtype=np.int32)
        agent_of = np.zeros(len(keys), dtype=np.int32)
        run_of = {g: self._runs[keys[g][1:]] for g in groups}
        for g in sorted(groups, key=lambda g: rank[run_of[g]]):  # in page order: the filters' options
            env, agent, level, probe = keys[g]
            task_of[g] = tasks.setdefault(task_name((env, level, probe)), len(tasks))
            agent_of[g] = agents.setdefault(agent, len(agents))
        lookup = {"task": task_of, "agent": agent_of}

        def read(name: str) -> Iterator[np.ndarray]:
            for run in runs:
                for chunk in parts.read(run):
                    if name in lookup:
                        yield lookup[name][chunk["group"]]
                    elif name in _WIDE and self._wide:
                        yield np.array([float(v) for v in self._value(name, chunk)], dtype=np.float64)
                    else:
                        yield chunk[name]

        return PageIndex(list(tasks), list(agents), list(self._outcomes), count, read)


def _token(x: float) -> int | float:
    """A token count as the log most likely held it (an int when whole)."""
    return int(x) if x.is_integer() else x
