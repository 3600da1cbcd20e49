"""The numbers of a report: one :class:`Row` per agent and task, intervals, macro averages.

Per task and agent: score mean with a 95% percentile-bootstrap interval, success rate with a
Wilson interval (configurations resampled instead when there are K > 1 episodes per
configuration), turns, efficiency, format errors, failure attribution, tokens and cost,
pass@K and mean@K. Episodes with outcome ``infra_error`` are counted apart and left out of
every number.

A row is read in one pass over its episodes and holds counts and running sums, never the
episodes: its memory grows with the distinct scores, turn counts and configurations, not with
the number of episodes (a probe run also keeps one small dict per episode for the probe tables).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol

import numpy as np

from mtp_gym import puzzle_info
from mtp_gym.core import PAPERS
from mtp_gym.eval.record import EpisodeRecord, Task, task_name

__all__ = [
    "BASELINES",
    "COLUMNS",
    "Row",
    "bootstrap_ci",
    "compute_rows",
    "macro_rows",
    "pass_at_k",
    "parse_prices",
    "rows_of",
    "success_means",
    "suite_of",
    "task_order",
    "wilson_ci",
]

BASELINES = ("random", "oracle")
#: Resampled cells a bootstrap holds at once (8 bytes each, twice): episode indices, or counts
#: of distinct scores.
BOOTSTRAP_CELLS = 1 << 19
#: The bootstrap draws counts of the distinct scores while there are at least this many episodes
#: per distinct score, episode indices past that (a multinomial draw costs ~40 ns per distinct
#: score, an index ~6 ns per episode; they break even near 32 episodes per distinct score).
MULTINOMIAL_EPISODES = 32

#: The columns of ``report.csv``: :class:`Row`'s numbers, in this order.
COLUMNS = (
    "env",
    "level",
    "probe",
    "agent",
    "episodes",
    "mean_score",
    "score_lo",
    "score_hi",
    "success_rate",
    "success_lo",
    "success_hi",
    "mean_turns",
    "mean_turns_success",
    "efficiency",
    "format_errors",
    "failure",
    "format_error",
    "timeout",
    "context_overflow",
    "infra_errors",
    "prompt_tokens",
    "completion_tokens",
    "cost",
    "samples",
    "pass_at_k",
    "mean_at_k",
)


class Scored(Protocol):
    """What a row reads of one episode: an :class:`~mtp_gym.eval.record.EpisodeRecord`, or the
    streamed report's compact episode (:class:`~.stream.ReportStream`)."""

    @property
    def config_id(self) -> int: ...
    @property
    def outcome(self) -> str: ...
    @property
    def score(self) -> float | None: ...
    @property
    def turns(self) -> int: ...
    @property
    def format_errors(self) -> int: ...
    @property
    def prompt_tokens(self) -> int | float: ...
    @property
    def completion_tokens(self) -> int | float: ...
    @property
    def probe_result(self) -> dict[str, Any] | None: ...


@dataclass
class Row:
    """The numbers of one agent on one task."""

    env: str
    agent: str
    level: int | None
    probe: str | None
    episodes: int
    mean_score: float
    score_lo: float
    score_hi: float
    success_rate: float
    success_lo: float
    success_hi: float
    mean_turns: float
    mean_turns_success: float
    efficiency: float
    format_errors: float
    failure: float
    format_error: float
    timeout: float
    context_overflow: float
    infra_errors: int
    prompt_tokens: float
    completion_tokens: float
    cost: float | None
    #: Episodes per turn count (turn count -> episodes, in ascending turn counts).
    turns: dict[int, int]
    #: Episodes per configuration (``--samples K``; the fewest any configuration has).
    samples: int = 1
    #: pass@K: the chance that at least one of K episodes of a configuration succeeds (the
    #: unbiased estimator of Chen et al. 2021 from all its episodes), averaged over configurations.
    pass_at_k: float = float("nan")
    #: mean@K: the mean score of a configuration's episodes, averaged over configurations.
    mean_at_k: float = float("nan")
    #: Per outcome (in the order first seen), episodes per turn count (turn count -> episodes, in
    #: ascending turn counts): the turn figure marks format errors and timeouts apart.
    outcome_turns: dict[str, dict[int, int]] | None = None
    #: Mean score per configuration (probe drops compare the same configurations).
    config_scores: dict[int, float] | None = None
    #: Success rate per configuration (the probe tables compare success rates, as the paper).
    config_success: dict[int, float] | None = None
    #: Under a probe: per scored episode its ``config_id``, ``success``, ``score`` and the
    #: probe's figures (the record's ``probe_result``, ``None`` in logs written before it).
    probe_records: list[dict[str, Any]] | None = None

    @property
    def task(self) -> Task:
        """What the agents are compared on: the env id, and a query game's level and probe."""
        return self.env, self.level, self.probe

    @property
    def task_name(self) -> str:
        """The short name of :attr:`task` (``HiddenNumber L3``, ``HiddenNumber L3 noise``)."""
        return task_name(self.task)

    def as_dict(self) -> dict[str, Any]:
        """The :data:`COLUMNS` of the row (a line of ``report.csv``)."""
        return {c: getattr(self, c) for c in COLUMNS}


def parse_prices(items: Iterable[str]) -> dict[str, tuple[float, float]]:
    """``AGENT=IN,OUT`` (US$ per million prompt / completion tokens) → {agent: (in, out)}."""
    prices = {}
    for item in items:
        agent, _, pair = item.rpartition("=")
        try:
            p_in, p_out = (float(x) for x in pair.split(","))
        except ValueError:
            raise ValueError(f"--price must look like AGENT=IN,OUT (US$ per 1M tokens), got {item!r}") from None
        if not agent:
            raise ValueError(f"--price must look like AGENT=IN,OUT (US$ per 1M tokens), got {item!r}")
        prices[agent] = (p_in, p_out)
    return prices


def mean(xs: Sequence[float]) -> float:
    """The mean, NaN for no value."""
    return sum(xs) / len(xs) if xs else float("nan")


def bootstrap_ci(
    scores: Sequence[float], resamples: int = 2000, seed: int = 0, counts: Sequence[int] | None = None
) -> tuple[float, float]:
    """95% percentile-bootstrap interval of the mean of a multiset of scores: ``scores`` one per
    episode, or with ``counts`` the distinct scores and their episodes (a list and its counts
    give the same interval). Seeded: the same multiset, the same interval; NaN for fewer than two
    episodes.

    A resample of the n episodes is a multinomial draw of counts over the distinct scores (in
    ascending order), a chunk of resamples at a time: memory grows with the distinct scores, not
    the episodes. With fewer than :data:`MULTINOMIAL_EPISODES` episodes per distinct score it
    draws episode indices instead (faster then) over the scores expanded in ascending order,
    holding those (8 bytes an episode) while it draws."""
    values, weights = _multiset(scores, counts)
    n = int(weights.sum())
    if n < 2:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    if len(values) * MULTINOMIAL_EPISODES <= n:
        p = weights / n
        means = _resampled(resamples, len(values), lambda size: rng.multinomial(n, p, size=size) @ values / n)
    else:
        x = np.repeat(values, weights)
        means = _resampled(resamples, n, lambda size: x[rng.integers(0, n, size=(size, n))].mean(axis=1))
    lo, hi = np.quantile(means, [0.025, 0.975])
    return float(lo), float(hi)


def _multiset(scores: Sequence[float], counts: Sequence[int] | None) -> tuple[np.ndarray, np.ndarray]:
    """The distinct scores in ascending order and their episodes (each at least one)."""
    if counts is None:
        return np.unique(np.asarray(scores, dtype=float), return_counts=True)
    values, where = np.unique(np.asarray(scores, dtype=float), return_inverse=True)
    weights = np.zeros(len(values), dtype=np.int64)
    np.add.at(weights, where, np.asarray(counts, dtype=np.int64))
    kept = weights > 0
    return values[kept], weights[kept]


def _resampled(resamples: int, width: int, draw: Callable[[int], np.ndarray]) -> np.ndarray:
    """The means of ``resamples`` resamples, ``draw(size)`` giving ``size`` of them; each draw
    holds ``size`` x ``width`` cells, at most :data:`BOOTSTRAP_CELLS` (or one row)."""
    step = max(1, BOOTSTRAP_CELLS // width)
    return np.concatenate([draw(min(step, resamples - at)) for at in range(0, resamples, step)])


def wilson_ci(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a rate ``k / n`` (sound at small ``n``); NaN for ``n = 0``."""
    if n == 0:
        return float("nan"), float("nan")
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k of one configuration with ``c`` successes in ``n`` episodes (k <= n)."""
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def _probe_record(record: Scored) -> dict[str, Any]:
    """What the probe tables read of one scored episode under a probe."""
    figures = record.probe_result
    return {
        "config_id": record.config_id,
        "success": record.outcome == "success",
        "score": float(record.score or 0.0),
        "figures": figures if isinstance(figures, dict) else None,
    }


@dataclass(slots=True)
class _Config:
    """One configuration's episodes: how many, their score sum (in log order), their successes."""

    episodes: int = 0
    score: float = 0
    wins: int = 0

    @property
    def mean(self) -> float:
        return self.score / self.episodes

    @property
    def success(self) -> float:
        return self.wins / self.episodes


class _Tally:
    """One agent's episodes on one task, read once in log order: counts (per distinct score, turn
    count, outcome and configuration) and running sums, each adding in log order as ``sum`` over
    a list would; its memory grows with the distinct values, never with the episodes."""

    def __init__(self, probe: bool, price: tuple[float, float] | None) -> None:
        self.price = price
        self.n = 0
        self.scores: dict[float, int] = {}  # score: episodes
        self.score_sum: float = 0
        self.turns: dict[int, int] = {}  # turn count: episodes
        self.turn_sum = 0
        self.wins = 0
        self.win_turns = 0  # the successes' turns, summed
        self.outcome_turns: dict[str, dict[int, int]] = {}  # outcome: {turn count: episodes}
        self.by_config: dict[int, _Config] = {}
        self.format_errors: int | float = 0
        self.prompt_tokens: int | float = 0
        self.completion_tokens: int | float = 0
        self.cost: int | float = 0  # every episode's token cost (infra errors too), in log order
        self.infra = 0  # infra errors
        self.probe_records: list[dict[str, Any]] | None = [] if probe else None

    def add(self, r: Scored) -> None:
        price = self.price
        cost = 0 if price is None else r.prompt_tokens * price[0] + r.completion_tokens * price[1]
        self.cost += cost
        if r.outcome == "infra_error":
            self.infra += 1
            return
        score, turns, won = float(r.score or 0.0), r.turns, r.outcome == "success"
        self.n += 1
        self.scores[score] = self.scores.get(score, 0) + 1
        self.score_sum += score
        self.turns[turns] = self.turns.get(turns, 0) + 1
        self.turn_sum += turns
        if won:
            self.wins += 1
            self.win_turns += turns
        by_turns = self.outcome_turns.setdefault(r.outcome, {})
        by_turns[turns] = by_turns.get(turns, 0) + 1
        config = self.by_config.setdefault(r.config_id, _Config())
        config.episodes += 1
        config.score += score
        config.wins += won
        self.format_errors += r.format_errors
        self.prompt_tokens += r.prompt_tokens
        self.completion_tokens += r.completion_tokens
        if self.probe_records is not None:
            self.probe_records.append(_probe_record(r))

    def share(self, outcome: str) -> float:
        return sum(self.outcome_turns.get(outcome, {}).values()) / self.n if self.n else float("nan")

    def per_episode(self, total: int | float) -> float:
        return total / self.n if self.n else float("nan")

    def intervals(self, k: int) -> tuple[tuple[float, float], tuple[float, float]]:
        """The score and success intervals: episodes resampled, or configurations when ``k`` > 1
        (episodes of one configuration are not independent)."""
        if k > 1:
            return (
                bootstrap_ci([c.mean for c in self.by_config.values()]),
                bootstrap_ci([c.success for c in self.by_config.values()]),
            )
        return bootstrap_ci(list(self.scores), counts=list(self.scores.values())), wilson_ci(self.wins, self.n)

    def total_cost(self) -> float | None:
        """Dollars: every episode's token cost, infra errors included, added in log order."""
        return None if self.price is None else self.cost / 1e6


def _row(task: tuple[str, str, int | None, str | None], group: Iterable[Scored], price: Any) -> Row:
    """The :class:`Row` of one agent's episodes on one task (``group``: read once, in log order)."""
    env, agent, level, probe = task
    t = _Tally(probe is not None, price)
    for r in group:
        t.add(r)
    n, configs = t.n, t.by_config
    success = t.wins / n if n else float("nan")
    turns_success = t.win_turns / t.wins if t.wins else float("nan")
    k = min((c.episodes for c in configs.values()), default=1)
    score_ci, success_ci = t.intervals(k)
    return Row(
        env=env,
        agent=agent,
        level=level,
        probe=probe,
        episodes=n,
        mean_score=t.score_sum / n if n else float("nan"),
        score_lo=score_ci[0],
        score_hi=score_ci[1],
        success_rate=success,
        success_lo=success_ci[0],
        success_hi=success_ci[1],
        mean_turns=t.turn_sum / n if n else float("nan"),
        mean_turns_success=turns_success,
        efficiency=100 * success / turns_success if t.wins else 0.0,
        format_errors=t.per_episode(t.format_errors),
        failure=t.share("failure"),
        format_error=t.share("format_error"),
        timeout=t.share("timeout"),
        context_overflow=t.share("context_overflow"),
        infra_errors=t.infra,
        prompt_tokens=t.per_episode(t.prompt_tokens),
        completion_tokens=t.per_episode(t.completion_tokens),
        cost=t.total_cost(),
        turns=dict(sorted(t.turns.items())),
        samples=k,
        pass_at_k=mean([pass_at_k(c.episodes, c.wins, k) for c in configs.values()]),
        mean_at_k=mean([c.mean for c in configs.values()]),
        outcome_turns={o: dict(sorted(c.items())) for o, c in t.outcome_turns.items()},
        config_scores={i: c.mean for i, c in configs.items()},
        config_success={i: c.success for i, c in configs.items()},
        probe_records=t.probe_records,
    )


def compute_rows(
    records: Iterable[EpisodeRecord | Mapping[str, Any]], prices: dict[str, tuple[float, float]] | None = None
) -> list[Row]:
    """One :class:`Row` per (task, agent): models first, then random, then oracle. ``records``
    are :class:`~mtp_gym.eval.record.EpisodeRecord`\\ s (:func:`~.load.load_runs`) or mappings in
    the record's JSON form."""
    groups: dict[tuple[str, str, int | None, str | None], list[Scored]] = {}
    for r in map(EpisodeRecord.from_json, records):
        groups.setdefault((r.env_id, r.agent, r.level, r.probe), []).append(r)
    return rows_of(groups.items(), prices)


def rows_of(
    groups: Iterable[tuple[tuple[str, str, int | None, str | None], Iterable[Scored]]],
    prices: dict[str, tuple[float, float]] | None = None,
) -> list[Row]:
    """The rows of ``groups`` ((env, agent, level, probe), its episodes in log order), in report
    order (see :func:`compute_rows`); each group is read once, one episode at a time, so it may
    be an iterator that builds them on demand."""
    prices = prices or {}
    rows = [_row(task, recs, prices.get(task[1])) for task, recs in groups]
    order = agent_order()
    rows.sort(key=lambda r: (r.env, r.level or 0, r.probe or "", order(r.agent), r.agent))
    return rows


def agent_order() -> Callable[[str], int]:
    """Sort key of an agent: models first (0), then random, then oracle."""
    order = {a: i for i, a in enumerate(BASELINES, start=1)}
    return lambda agent: order.get(agent, 0)


def macro_rows(rows: list[Row]) -> list[dict[str, Any]]:
    """Per agent: unweighted means over the tasks that EVERY agent has scored episodes on, so
    the agents' averages cover the same tasks; ``missing`` names the tasks an agent lacks
    (they are left out of every agent's average)."""
    agents: dict[str, dict[Task, Row]] = {}
    for r in rows:
        agents.setdefault(r.agent, {})
        if r.episodes:
            agents[r.agent][r.task] = r
    every = sorted({r.task for r in rows}, key=task_order)
    common = [t for t in every if all(t in scored for scored in agents.values())]
    out = []
    order = agent_order()
    for agent in sorted(agents, key=lambda a: (order(a), a)):
        rs = [agents[agent][t] for t in common]
        costs = [r.cost for r in rows if r.agent == agent and r.cost is not None]
        out.append(
            {
                "agent": agent,
                "tasks": len(rs),
                "mean_score": mean([r.mean_score for r in rs]),
                "success_rate": mean([r.success_rate for r in rs]),
                "mean_turns": mean([r.mean_turns for r in rs]),
                "cost": sum(costs) if costs else None,
                "missing": [task_name(t) for t in every if t not in agents[agent]],
            }
        )
    return out


def task_order(task: Task) -> tuple[int, str, int, str]:
    """Sort key of a task: its suite, id, level, probe."""
    env, level, probe = task
    return (suite_of(env)[0], env, level or 0, probe or "")


@cache
def suite_of(env_id: str) -> tuple[int, str]:
    """(sort key, panel name) of an env: its paper, and for a query game its cell (the env
    class's ``puzzle``); an id this install does not register sorts last under its own name."""
    try:
        info = puzzle_info(env_id)
    except ValueError:
        return len(PAPERS), env_id
    return info.order, info.suite


def success_means(env_id: str) -> str:
    """What success means in ``env_id`` (its env class's ``puzzle``; an id this install does not
    register: a correct final answer)."""
    try:
        return puzzle_info(env_id).success_means
    except ValueError:
        return "a correct final answer (score the same)"
