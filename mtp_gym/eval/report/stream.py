"""The report in one pass over the logs, in memory that does not hold the episodes.

:class:`ReportStream` takes records one at a time (:func:`~.load.iter_runs` streams them) and
keeps a few numbers per episode in flat columns (``array``: about 60 bytes an episode, no
transcript, no record object): what the tables need (:meth:`ReportStream.rows`, the same
:class:`~.stats.Row`\\ s :func:`~.stats.compute_rows` gives for the records
:func:`~.load.load_runs` keeps) and the page's index of episodes (:meth:`ReportStream.page_index`).
Each record shown on the page is handed once to a ``page`` callback (the block writer of
:mod:`mtp_gym.eval.html`), which returns where it put it (block, offset) and lets it go.

A record that supersedes an earlier one of the same agent, task, configuration and sample
(:func:`~mtp_gym.eval.log.keep_latest`: a replayed ``infra_error``) takes the earlier one's
place, as :func:`~.load.load_runs` does (settled at the end, by sorting the rows' keys).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from mtp_gym.eval.record import EpisodeRecord, task_name
from mtp_gym.eval.report.stats import Row, rows_of

__all__ = ["Episode", "PageIndex", "ReportStream"]

#: Row flags: shown on the page, counted in the tables.
PAGE, TABLE = 1, 2
#: A row's key (agent, task, configuration, sample) packs into 63 bits below these bounds
#: (else it is numbered apart, negative); a row never superseded gets a key of its own.
_SAMPLE_BITS, _GROUP_BITS = 20, 20
_CONFIG_END, _SAMPLE_END, _GROUP_END = 1 << (63 - _SAMPLE_BITS - _GROUP_BITS), 1 << _SAMPLE_BITS, 1 << _GROUP_BITS
_UNIQUE = -(1 << 62)


class _Ints:
    """A column of integers: 8 bytes each (``array('q')``), a list past 64 bits (a hostile log)."""

    __slots__ = ("data",)

    def __init__(self) -> None:
        self.data: array[int] | list[int] = array("q")

    def append(self, value: int) -> None:
        try:
            self.data.append(value)
        except OverflowError:
            self.data = list(self.data)
            self.data.append(value)

    def __getitem__(self, i: int) -> int:
        return self.data[i]

    def floats(self) -> np.ndarray:
        """The column as float64 (exact below 2**53)."""
        if isinstance(self.data, array):
            return np.frombuffer(self.data, dtype=np.int64).astype(np.float64) if self.data else np.zeros(0)
        return np.array([float(x) for x in self.data], dtype=np.float64)


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
    """The page's list of episodes, as columns in page order: ``columns`` maps a name (``task``,
    ``agent``, ``outcome``: indices into :attr:`tasks`, :attr:`agents`, :attr:`outcomes`;
    ``config``, ``sample``, ``score`` (NaN: none), ``turns``; ``block``, ``offset``: where the
    page callback put the episode) to a numpy array."""

    tasks: list[str]
    agents: list[str]
    outcomes: list[str]
    columns: dict[str, np.ndarray]

    def __len__(self) -> int:
        return len(self.columns["task"])


def _number(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) else 0.0


class ReportStream:
    """The tables' numbers and the page's index of a stream of records (see the module).

    ``page(record) -> (block, offset)`` stores a record shown on the page; ``None``: no page.
    Rows are only appended while records stream in; which record of an episode is kept
    (:func:`~mtp_gym.eval.log.keep_latest`) is settled once, at the end, by sorting the rows'
    keys (no dict of every episode).
    """

    def __init__(self, page: Callable[[EpisodeRecord], tuple[int, int]] | None = None) -> None:
        self._page = page
        self._groups: dict[tuple[str, str, int | None, str | None], int] = {}  # (env, agent, level, probe)
        self._runs: dict[tuple[str, int | None, str | None], int] = {}  # (agent, level, probe): page order
        self._outcomes: dict[str, int] = {}
        self._big: dict[tuple[int, Any, Any], int] = {}  # keys too large to pack in 63 bits
        self._probe: dict[int, dict[str, Any] | None] = {}
        self.group, self.run, self.outcome = array("i"), array("i"), array("i")
        self.flags = array("b")
        self.key = array("q")
        self.config, self.sample, self.turns, self.format_errors = _Ints(), _Ints(), _Ints(), _Ints()
        self.score, self.prompt_tokens, self.completion_tokens = array("d"), array("d"), array("d")
        self.block, self.offset = array("i"), array("i")

    def __len__(self) -> int:
        return len(self.flags)

    # -- feeding ---------------------------------------------------------------------------

    def add(self, r: EpisodeRecord, page: bool = True, table: bool = True, dedup: bool = True) -> None:
        """Take one record: shown on the page and/or counted in the tables. With ``dedup`` it
        supersedes an earlier record of its agent, task, configuration and sample shown or
        counted alike (the one kept by :func:`~mtp_gym.eval.log.keep_latest`'s rule, at the
        first one's place); without, it is one more row (as :func:`~.stats.compute_rows` counts
        the records it is given)."""
        g = self._groups.setdefault((r.env_id, r.agent, r.level, r.probe), len(self._groups))
        row = len(self.flags)
        self.group.append(g)
        self.run.append(self._runs.setdefault((r.agent, r.level, r.probe), len(self._runs)))
        self.flags.append((PAGE if page else 0) | (TABLE if table else 0))
        config, sample = r.config_id, r.sample
        if not dedup:
            key = _UNIQUE - row
        elif isinstance(config, int) and 0 <= config < _CONFIG_END and 0 <= sample < _SAMPLE_END and g < _GROUP_END:
            key = ((config << _SAMPLE_BITS | sample) << _GROUP_BITS) | g
        else:
            key = -1 - self._big.setdefault((g, config, sample), len(self._big))
        self.key.append(key)
        self.outcome.append(self._outcomes.setdefault(r.outcome, len(self._outcomes)))
        self.config.append(config)
        self.sample.append(sample)
        self.turns.append(r.turns)
        self.format_errors.append(r.format_errors)
        self.score.append(math.nan if r.score is None else float(r.score))
        self.prompt_tokens.append(_number(r.prompt_tokens))
        self.completion_tokens.append(_number(r.completion_tokens))
        block, offset = self._page(r) if page and self._page is not None else (-1, -1)
        self.block.append(block)
        self.offset.append(offset)
        if r.probe is not None:
            self._probe[row] = r.probe_result

    def add_all(
        self, records: Iterable[EpisodeRecord], page: bool = True, table: bool = True, dedup: bool = True
    ) -> int:
        """:meth:`add` each of ``records`` (consumed one at a time); return how many."""
        n = 0
        for r in records:
            self.add(r, page, table, dedup)
            n += 1
        return n

    def _col(self, col: array[Any], dtype: Any) -> np.ndarray:
        return np.frombuffer(col, dtype=dtype) if len(col) else np.zeros(0, dtype=dtype)

    def kept(self, flag: int) -> np.ndarray:
        """The rows shown (``flag`` :data:`PAGE`) or counted (:data:`TABLE`): of the rows of one
        key, the last that is not an ``infra_error`` (else the last), at the first one's place."""
        rows = np.flatnonzero(self._col(self.flags, np.int8) & flag)
        if not len(rows):
            return rows
        keys = self._col(self.key, np.int64)[rows]
        order = np.argsort(keys, kind="stable")  # each key's rows together, in log order
        keys = keys[order]
        repeats = keys[1:] == keys[:-1]
        if not repeats.any():  # no record superseded: every row is kept, in log order
            return rows
        rows = rows[order]
        del order
        starts = np.flatnonzero(np.concatenate(([True], ~repeats)))
        del repeats
        ends = np.append(starts[1:], len(rows))
        infra = self._outcomes.get("infra_error", -1)
        real = self._col(self.outcome, np.int32)[rows] != infra
        last_real = np.maximum.reduceat(np.where(real, np.arange(len(rows)), -1), starts)
        winners = rows[np.where(last_real >= starts, last_real, ends - 1)]
        return winners[np.argsort(rows[starts], kind="stable")]

    # -- the tables --------------------------------------------------------------------------

    def facts(self) -> Iterator[tuple[str, tuple[str, int | None, str | None], int, str]]:
        """(agent, task, config id, outcome) of every episode the tables count."""
        groups, outcomes = list(self._groups), list(self._outcomes)
        for row in self.kept(TABLE).tolist():
            env, agent, level, probe = groups[self.group[row]]
            yield agent, (env, level, probe), self.config[row], outcomes[self.outcome[row]]

    def _episodes(self, rows: np.ndarray) -> Iterator[Episode]:
        outcomes = list(self._outcomes)
        for row in rows.tolist():
            score = self.score[row]
            yield Episode(
                self.config[row],
                outcomes[self.outcome[row]],
                None if math.isnan(score) else score,
                self.turns[row],
                self.format_errors[row],
                _token(self.prompt_tokens[row]),
                _token(self.completion_tokens[row]),
                self._probe.get(row),
            )

    def rows(self, prices: dict[str, tuple[float, float]] | None = None) -> list[Row]:
        """One :class:`~.stats.Row` per task and agent over the rows the tables count (each
        group's episodes built one at a time as its row reads them)."""
        kept = self.kept(TABLE)
        group = self._col(self.group, np.int32)[kept]
        order = np.argsort(group, kind="stable")
        kept, group = kept[order], group[order]
        starts = np.searchsorted(group, np.arange(len(self._groups) + 1))
        present = [g for g in range(len(self._groups)) if starts[g + 1] > starts[g]]
        tasks = list(self._groups)
        return rows_of(((tasks[g], self._episodes(kept[starts[g] : starts[g + 1]])) for g in present), prices)

    # -- the page ---------------------------------------------------------------------------

    def page_index(self) -> PageIndex:
        """The episodes shown on the page, grouped by run (agent, level, probe) in the order the
        runs were first seen, each run's episodes in log order (as :func:`~.load.load_runs`)."""
        order = self.kept(PAGE)  # in the order each episode was first seen
        runs = self._col(self.run, np.int32)[order]
        uniq, first = np.unique(runs, return_index=True)
        rank = np.zeros(len(self._runs), dtype=np.int64)
        rank[uniq[np.argsort(first)]] = np.arange(len(uniq))  # runs in the order the page first shows them
        order = order[np.argsort(rank[runs], kind="stable")]
        del runs
        groups = list(self._groups)
        tasks: dict[str, int] = {}
        agents: dict[str, int] = {}
        group = self._col(self.group, np.int32)[order]
        task_of = np.zeros(len(groups), dtype=np.int32)
        agent_of = np.zeros(len(groups), dtype=np.int32)
        for g in dict.fromkeys(group.tolist()):  # in page order: the filters' options
            env, agent, level, probe = groups[g]
            task_of[g] = tasks.setdefault(task_name((env, level, probe)), len(tasks))
            agent_of[g] = agents.setdefault(agent, len(agents))
        columns = {
            "task": task_of[group],
            "agent": agent_of[group],
            "outcome": self._col(self.outcome, np.int32)[order],
            "config": self.config.floats()[order],
            "sample": self.sample.floats()[order],
            "score": self._col(self.score, np.float64)[order],
            "turns": self.turns.floats()[order],
            "block": self._col(self.block, np.int32)[order],
            "offset": self._col(self.offset, np.int32)[order],
        }
        return PageIndex(list(tasks), list(agents), list(self._outcomes), columns)


def _token(x: float) -> int | float:
    """A token count as the log most likely held it (an int when whole)."""
    return int(x) if x.is_integer() else x
