"""``mtp-gym report``: the papers' tables and figures from run directories.

Per task and agent: score mean ± 95% CI (normal approximation, ``1.96 · s / √n`` with the
sample standard deviation), success rate, average turns over all and over successful
episodes, efficiency (success rate in % / average turns of successful episodes, as the
interactive-reasoning paper defines it), format errors per episode, failure attribution
(share of episodes ending in ``failure`` / ``format_error`` / ``timeout``), tokens per
episode and, with prices, cost. Episodes with outcome ``infra_error`` are counted apart and
left out of every number. The macro average is the unweighted mean over the tasks an agent
played. Random and oracle rows stand beside every model (played on the same configurations
when the directories lack them). Query games add the interactive-reasoning paper's tables:
by level, by cell, each probe against the same agent's clean run, the isomorphic drop per
level (Table 3), the counterfactual drop over the episodes where an answer was falsified
with the vacuous share (Table 7) and the necessity probe's Complete Evidence, After Pruning,
Pruning Ratio, optimal ratio and score (Table 8), read from each record's ``probe_result``
("n/a" for logs written before it). Writes ``report.md``, ``report.csv``, ``macro.csv``,
``scores.png`` (Figure 1 of Multi-Turn Puzzles: score per task and agent) and ``turns.png``
(Figure 4: turn distributions).
"""

from __future__ import annotations

import csv
import json
import math
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, wraps
from pathlib import Path
from typing import Any

import numpy as np

from mtp_gym import puzzle_info
from mtp_gym.core import PAPERS
from mtp_gym.eval.log import CONFIG_NAME, HEAVY, LOG_NAME, LogScan, keep_latest, scan_episodes
from mtp_gym.games.env import DEFAULT_DIFFICULTY
from mtp_gym.registration import GAME_IDS

__all__ = [
    "Row",
    "load_runs",
    "record_problem",
    "compute_rows",
    "macro_rows",
    "markdown",
    "write_report",
    "parse_prices",
    "BASELINES",
    "probe_rows",
    "isomorphic_level_rows",
    "counterfactual_rows",
    "necessity_rows",
]

BASELINES = ("random", "oracle")
ATTRIBUTION = ("failure", "format_error", "timeout", "context_overflow")

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
    turns: list[int]
    #: Episodes per configuration (``--samples K``; the fewest any configuration has).
    samples: int = 1
    #: pass@K: the chance that at least one of K episodes of a configuration succeeds (the
    #: unbiased estimator of Chen et al. 2021 from all its episodes), averaged over configurations.
    pass_at_k: float = float("nan")
    #: mean@K: the mean score of a configuration's episodes, averaged over configurations.
    mean_at_k: float = float("nan")
    #: Turns of the episodes by outcome (the turn figure marks format errors and timeouts apart).
    outcome_turns: dict[str, list[int]] | None = None
    #: Mean score per configuration (probe drops compare the same configurations).
    config_scores: dict[int, float] | None = None
    #: Success rate per configuration (the probe tables compare success rates, as the paper).
    config_success: dict[int, float] | None = None
    #: Under a probe: per scored episode its ``config_id``, ``success``, ``score`` and the
    #: probe's figures (the record's ``probe_result``, ``None`` in logs written before it).
    probe_records: list[dict[str, Any]] | None = None

    @property
    def task(self) -> tuple[str, int | None, str | None]:
        """What the agents are compared on: the env id, and a query game's level and probe."""
        return self.env, self.level, self.probe

    @property
    def task_name(self) -> str:
        """The short name of :attr:`task` (``HiddenNumber L3``, ``HiddenNumber L3 noise``)."""
        return task_name(self.task)

    def as_dict(self) -> dict[str, Any]:
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


def find_run_dirs(paths: Iterable[str | Path]) -> list[Path]:
    """Run directories (holding ``config.json``) at or under each path."""
    found: list[Path] = []
    for p in map(Path, paths):
        if not p.exists():
            raise ValueError(f"DIR: {p} does not exist")
        hits = [p] if (p / CONFIG_NAME).exists() else sorted(c.parent for c in p.rglob(CONFIG_NAME))
        if not hits:
            raise ValueError(f"DIR: no run (config.json + episodes.jsonl) at or under {p}")
        found += [h for h in hits if h not in found]
    return found


def variant(env_id: str, env_kwargs: dict[str, Any]) -> dict[str, Any]:
    """What besides the id makes a task: a query game's ``level`` (its difficulty) and ``probe``."""
    if env_id not in GAME_IDS:
        return {"level": None, "probe": None}
    return {"level": env_kwargs.get("difficulty", DEFAULT_DIFFICULTY), "probe": env_kwargs.get("probe")}


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_count(v: Any) -> bool:
    return _is_int(v) and v >= 0


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _is_transcript(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(m, dict) for m in v)


#: What each field a report reads must be: (required, test, what it should be). A record that
#: breaks one is skipped and named (:func:`load_runs`); ``score`` is checked apart (``null``
#: is allowed on ``infra_error``).
FIELDS: dict[str, tuple[bool, Any, str]] = {
    "env_id": (True, lambda v: isinstance(v, str) and bool(v), "a non-empty string"),
    "config_id": (True, _is_count, "a non-negative integer"),
    "outcome": (True, lambda v: isinstance(v, str) and bool(v), "a non-empty string"),
    "turns": (True, _is_count, "a non-negative integer"),
    "format_errors": (True, _is_count, "a non-negative integer"),
    "sample": (False, _is_count, "a non-negative integer"),
    "prompt_tokens": (False, lambda v: _is_number(v) and v >= 0, "a non-negative number"),
    "completion_tokens": (False, lambda v: _is_number(v) and v >= 0, "a non-negative number"),
    "error": (False, lambda v: v is None or isinstance(v, str), "a string or null"),
    "transcript": (False, _is_transcript, "a list of messages (objects)"),
    "probe_result": (False, lambda v: v is None or isinstance(v, dict), "an object or null"),
}


_KINDS = {str: "a string", bool: "a boolean", int: "an integer", float: "a number", list: "a list", dict: "an object"}


def _shown(value: Any, limit: int = 40) -> str:
    """``value`` as the log holds it (JSON, cut to ``limit`` characters) and what kind it is."""
    if value is None:
        return "null"
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = "..."
    text = text if len(text) <= limit else text[: limit - 3] + "..."
    return f"{text} ({_KINDS.get(type(value), type(value).__name__)})"


def record_problem(record: dict[str, Any]) -> str | None:
    """What makes ``record`` unfit for a report (a missing or wrong-typed field), or ``None``."""
    for name, (required, ok, expected) in FIELDS.items():
        if name not in record:
            if required:
                return f"field {name!r} is missing"
        elif not ok(record[name]):
            return f"field {name!r} is {_shown(record[name])}, expected {expected}"
    score = record.get("score")
    if not _is_number(score) and not (score is None and record["outcome"] == "infra_error"):
        shown = "missing" if "score" not in record else _shown(score)
        return f"field 'score' is {shown}, expected a finite number (null only on infra_error)"
    return None


def _read_config(d: Path) -> tuple[dict[str, Any] | None, str | None]:
    """A run directory's config (agent label and env kwargs) or why it cannot be read."""
    path = d / CONFIG_NAME
    try:
        config = json.loads(path.read_text())
    except (UnicodeDecodeError, ValueError, RecursionError) as err:
        return None, f"{path}: not JSON ({err}); its run is skipped"
    if not isinstance(config, dict) or not isinstance(config.get("agent_config"), dict):
        return None, f"{path}: field 'agent_config' is missing or not an object; its run is skipped"
    agent = config["agent_config"].get("agent")
    if not isinstance(agent, str) or not agent:
        return None, f"{path}: field 'agent_config.agent' is {_shown(agent)}, expected a string; its run is skipped"
    envs = config.get("envs", {})
    if not isinstance(envs, dict) or not all(isinstance(kw, dict) for kw in envs.values()):
        return None, f"{path}: field 'envs' is not an object of env kwargs objects; its run is skipped"
    checks = (("difficulty", _is_int, "an integer"), ("probe", lambda v: isinstance(v, str), "a string"))
    for env_id, kw in envs.items():
        for key, ok, expected in checks:
            if kw.get(key) is not None and not ok(kw[key]):
                shown = f"envs[{env_id!r}].{key} is {_shown(kw[key])}"
                return None, f"{path}: {shown}, expected {expected}; its run is skipped"
    return config, None


#: Records named one per warning line per log file; the rest are counted in one summary line.
MAX_NAMED = 20


def load_runs(paths: Iterable[str | Path], warn: Any = None, slim: bool = True) -> list[dict[str, Any]]:
    """Every episode record of the run dirs (the latest one per agent, task and configuration),
    with the task's ``level`` and ``probe`` (:func:`variant`) and without transcripts unless not
    ``slim``. Unreadable lines, and records with a missing or wrong-typed field
    (:func:`record_problem`: ``turns: "7"``, ``score: null``, ...), are skipped and reported
    through ``warn`` (default: stderr), one line per record naming the file, line and field
    (the first :data:`MAX_NAMED` of a file, then a count); so is a run whose ``config.json``
    cannot be read."""
    say = warn or (lambda m: print(f"warning: {m}", file=sys.stderr))
    kept: dict[tuple[Any, ...], dict[tuple[str, int, int], dict[str, Any]]] = {}
    for d in find_run_dirs(paths):
        config, why = _read_config(d)
        if config is None:
            say(why)
            continue
        label = config["agent_config"]["agent"]
        tasks = {e: variant(e, kw) for e, kw in config.get("envs", {}).items()}
        scan = LogScan()
        bad: list[str] = []
        for seen, r in enumerate(scan_episodes(d / LOG_NAME, scan), 1):
            problem = record_problem(r)
            if problem is not None:
                bad.append(f"{d / LOG_NAME}:{seen + len(scan.skipped)}: skipped: {problem}")
                continue
            if slim:
                for key in HEAVY:
                    r.pop(key, None)
            task = tasks.get(r["env_id"]) or variant(r["env_id"], {})
            keep_latest(kept.setdefault((label, task["level"], task["probe"]), {}), r | task | {"agent": label})
        message = scan.warning(d / LOG_NAME)
        if message:
            say(message)
        for line in bad[:MAX_NAMED]:
            say(line)
        if len(bad) > MAX_NAMED:
            say(f"{d / LOG_NAME}: skipped {len(bad) - MAX_NAMED} more record(s) with a missing or wrong-typed field")
    return [r for recs in kept.values() for r in recs.values()]


def run_env_kwargs(paths: Iterable[str | Path]) -> dict[tuple[str, int | None, str | None], dict[str, Any]]:
    """The env kwargs each task (env id, level, probe; see :func:`variant`) was played with
    (the first run dir that has it; a run whose config cannot be read has none)."""
    kwargs: dict[tuple[str, int | None, str | None], dict[str, Any]] = {}
    for d in find_run_dirs(paths):
        config, _ = _read_config(d)
        for env_id, kw in (config or {}).get("envs", {}).items():
            task = variant(env_id, kw)
            kwargs.setdefault((env_id, task["level"], task["probe"]), kw)
    return kwargs


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else float("nan")


def bootstrap_ci(scores: list[float], resamples: int = 2000, seed: int = 0) -> tuple[float, float]:
    """95% percentile-bootstrap interval of the mean (seeded: the same log, the same interval);
    NaN for fewer than two episodes."""
    if len(scores) < 2:
        return float("nan"), float("nan")
    x = np.asarray(scores, dtype=float)
    means = x[np.random.default_rng(seed).integers(0, len(x), size=(resamples, len(x)))].mean(axis=1)
    lo, hi = np.quantile(means, [0.025, 0.975])
    return float(lo), float(hi)


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


def _per_config(recs: list[dict[str, Any]], value: Any) -> list[float]:
    by: dict[int, list[float]] = {}
    for r in recs:
        by.setdefault(r["config_id"], []).append(value(r))
    return [sum(v) / len(v) for v in by.values()]


def _probe_record(record: dict[str, Any]) -> dict[str, Any]:
    """What the probe tables read of one scored episode under a probe."""
    figures = record.get("probe_result")
    return {
        "config_id": record["config_id"],
        "success": record["outcome"] == "success",
        "score": float(record["score"]),
        "figures": figures if isinstance(figures, dict) else None,
    }


def _flag(figures: dict[str, Any] | None, key: str) -> bool | None:
    """A boolean figure of a probe record, ``None`` when absent or not a boolean."""
    value = (figures or {}).get(key)
    return value if isinstance(value, bool) else None


def _ratio(figures: dict[str, Any] | None, key: str) -> float | None:
    """A figure in [0, 1] of a probe record, ``None`` when absent or not such a number."""
    value = (figures or {}).get(key)
    return float(value) if _is_number(value) and 0 <= value <= 1 else None


def compute_rows(records: list[dict[str, Any]], prices: dict[str, tuple[float, float]] | None = None) -> list[Row]:
    """One :class:`Row` per (env, agent): models first, then random, then oracle."""
    prices = prices or {}
    groups: dict[tuple[str, str, int | None, str | None], list[dict[str, Any]]] = {}
    for r in records:
        groups.setdefault((r["env_id"], r["agent"], r.get("level"), r.get("probe")), []).append(r)
    rows = []
    for (env, agent, level, probe), recs in groups.items():
        infra = [r for r in recs if r["outcome"] == "infra_error"]
        recs = [r for r in recs if r["outcome"] != "infra_error"]
        n = len(recs)
        scores = [float(r["score"]) for r in recs]
        mean = _mean(scores)
        wins = [r["turns"] for r in recs if r["outcome"] == "success"]
        success = len(wins) / n if n else float("nan")
        turns_success = _mean(wins)
        p_tok = _mean([r.get("prompt_tokens", 0) for r in recs])
        c_tok = _mean([r.get("completion_tokens", 0) for r in recs])
        cost = None
        if agent in prices:
            p_in, p_out = prices[agent]
            cost = (
                sum(r.get("prompt_tokens", 0) * p_in + r.get("completion_tokens", 0) * p_out for r in recs + infra)
                / 1e6
            )
        per_config: dict[int, list[dict[str, Any]]] = {}
        for r in recs:
            per_config.setdefault(r["config_id"], []).append(r)
        k = min((len(v) for v in per_config.values()), default=1)
        if k > 1:  # episodes of one configuration are not independent: resample configurations
            score_ci = bootstrap_ci(_per_config(recs, lambda r: float(r["score"])))
            success_ci = bootstrap_ci(_per_config(recs, lambda r: float(r["outcome"] == "success")))
        else:
            score_ci, success_ci = bootstrap_ci(scores), wilson_ci(len(wins), n)
        outcome_turns: dict[str, list[int]] = {}
        for r in recs:
            outcome_turns.setdefault(r["outcome"], []).append(r["turns"])
        rows.append(
            Row(
                env=env,
                agent=agent,
                level=level,
                probe=probe,
                episodes=n,
                mean_score=mean,
                score_lo=score_ci[0],
                score_hi=score_ci[1],
                success_rate=success,
                success_lo=success_ci[0],
                success_hi=success_ci[1],
                mean_turns=_mean([r["turns"] for r in recs]),
                mean_turns_success=turns_success,
                efficiency=100 * success / turns_success if wins else 0.0,
                format_errors=_mean([r["format_errors"] for r in recs]),
                failure=sum(r["outcome"] == "failure" for r in recs) / n if n else float("nan"),
                format_error=sum(r["outcome"] == "format_error" for r in recs) / n if n else float("nan"),
                timeout=sum(r["outcome"] == "timeout" for r in recs) / n if n else float("nan"),
                context_overflow=sum(r["outcome"] == "context_overflow" for r in recs) / n if n else float("nan"),
                infra_errors=len(infra),
                prompt_tokens=p_tok,
                completion_tokens=c_tok,
                cost=cost,
                turns=[r["turns"] for r in recs],
                samples=k,
                pass_at_k=_mean(
                    [pass_at_k(len(v), sum(r["outcome"] == "success" for r in v), k) for v in per_config.values()]
                ),
                mean_at_k=_mean(_per_config(recs, lambda r: float(r["score"]))),
                outcome_turns=outcome_turns,
                config_scores={c: _mean([float(r["score"]) for r in v]) for c, v in per_config.items()},
                config_success={c: _mean([float(r["outcome"] == "success") for r in v]) for c, v in per_config.items()},
                probe_records=None if probe is None else [_probe_record(r) for r in recs],
            )
        )
    order = {a: i for i, a in enumerate(BASELINES, start=1)}
    rows.sort(key=lambda r: (r.env, r.level or 0, r.probe or "", order.get(r.agent, 0), r.agent))
    return rows


#: What outcome "success" (the report's success %) means on each task; the score is the paper's metric.
#: The necessity probe's success and score (mtp_gym.wrappers.probes.necessity).
NECESSITY_SUCCESS = (
    "the phase-2 answer right and the kept observations still determining it (After Pruning); "
    "score: removed / max removable observations on success, else 0"
)


def _fmt(v: Any, pct: bool = False) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        if math.isnan(v):
            return "-"
        return f"{100 * v:.1f}" if pct else f"{v:.3f}"
    return str(v)


def _interval(lo: float, hi: float, pct: bool = False) -> str:
    return "" if math.isnan(lo) else f"[{_fmt(lo, pct)}, {_fmt(hi, pct)}]"


def _cost(v: float | None) -> str:
    return "-" if v is None else f"{v:.4g}"


def macro_rows(rows: list[Row]) -> list[dict[str, Any]]:
    """Per agent: unweighted means over the tasks that EVERY agent has scored episodes on, so
    the agents' averages cover the same tasks; ``missing`` names the tasks an agent lacks
    (they are left out of every agent's average)."""
    agents: dict[str, dict[tuple, Row]] = {}
    for r in rows:
        agents.setdefault(r.agent, {})
        if r.episodes:
            agents[r.agent][r.task] = r
    every = sorted({r.task for r in rows}, key=_task_order)
    common = [t for t in every if all(t in scored for scored in agents.values())]
    out = []
    order = {a: i for i, a in enumerate(BASELINES, start=1)}
    for agent in sorted(agents, key=lambda a: (order.get(a, 0), a)):
        rs = [agents[agent][t] for t in common]
        costs = [r.cost for r in rows if r.agent == agent and r.cost is not None]
        out.append(
            {
                "agent": agent,
                "tasks": len(rs),
                "mean_score": _mean([r.mean_score for r in rs]),
                "success_rate": _mean([r.success_rate for r in rs]),
                "mean_turns": _mean([r.mean_turns for r in rs]),
                "cost": sum(costs) if costs else None,
                "missing": [task_name(t) for t in every if t not in agents[agent]],
            }
        )
    return out


def _task_order(task: tuple[str, int | None, str | None]) -> tuple:
    env, level, probe = task
    return (suite_of(env)[0], env, level or 0, probe or "")


def task_name(task: tuple[str, int | None, str | None]) -> str:
    """``WordGuess``, ``HiddenNumber L3``, ``HiddenNumber L3 noise``."""
    env, level, probe = task
    return " ".join(str(p) for p in (_short(env), f"L{level}" if level else None, probe) if p)


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


def level_rows(rows: list[Row]) -> dict[str, dict[int, float]]:
    """Query games without a probe: agent -> level -> mean score over the games played at it."""
    out: dict[str, dict[int, list[float]]] = {}
    for r in rows:
        if r.level is not None and r.probe is None and r.episodes:
            out.setdefault(r.agent, {}).setdefault(r.level, []).append(r.mean_score)
    return {a: {lv: _mean(v) for lv, v in sorted(by.items())} for a, by in out.items()}


def cell_rows(rows: list[Row]) -> dict[str, dict[str, float]]:
    """Query games without a probe: agent -> cell (structure × inference) -> mean score."""
    out: dict[str, dict[str, list[float]]] = {}
    for r in rows:
        if r.level is not None and r.probe is None and r.episodes:
            out.setdefault(r.agent, {}).setdefault(suite_of(r.env)[1], []).append(r.mean_score)
    return {a: {c: _mean(v) for c, v in sorted(by.items())} for a, by in out.items()}


#: Probes with a table of their own (:func:`necessity_rows`, :func:`counterfactual_rows`), left
#: out of :func:`probe_rows`: the necessity score is not a success rate, and a counterfactual
#: episode without a revision is the clean game.
OWN_TABLE_PROBES = ("counterfactual", "necessity")


def probe_rows(rows: list[Row]) -> list[dict[str, Any]]:
    """Per agent and probe (but :data:`OWN_TABLE_PROBES`): the probed success rate against the
    same agent's clean one on the same games, levels and configurations, and the drop (clean -
    probed). (A query game's score is its success, so these are its scores too.)"""
    clean = {(r.agent, r.env, r.level): r for r in rows if r.level is not None and r.probe is None}
    acc: dict[tuple[str, str], list[tuple[float, float]]] = {}
    tasks: dict[tuple[str, str], set] = {}
    for r in rows:
        base = clean.get((r.agent, r.env, r.level))
        if r.probe is None or r.probe in OWN_TABLE_PROBES or base is None:
            continue
        if not r.config_success or not base.config_success:
            continue
        both = sorted(set(r.config_success) & set(base.config_success))
        acc.setdefault((r.agent, r.probe), []).extend((base.config_success[c], r.config_success[c]) for c in both)
        if both:
            tasks.setdefault((r.agent, r.probe), set()).add((r.env, r.level))
    out = []
    for (agent, probe), pairs in sorted(acc.items()):
        if not pairs:
            continue
        c, p = _mean([a for a, _ in pairs]), _mean([b for _, b in pairs])
        out.append(
            {
                "agent": agent,
                "probe": probe,
                "tasks": len(tasks[(agent, probe)]),
                "configs": len(pairs),
                "clean": c,
                "probed": p,
                "drop": c - p,
            }
        )
    return out


def _clean_success(rows: list[Row]) -> dict[tuple[str, str, int | None], dict[int, float]]:
    """(agent, env, level) -> the success rate per configuration of the clean run."""
    return {
        (r.agent, r.env, r.level): r.config_success or {}
        for r in rows
        if r.level is not None and r.probe is None and r.episodes
    }


def _rate(values: list[Any]) -> float | None:
    """The mean of the known values (``None`` when none is known)."""
    known = [float(v) for v in values if v is not None]
    return sum(known) / len(known) if known else None


def _pairs(episodes: list[dict[str, Any]], clean: dict[int, float]) -> list[tuple[float, float]]:
    """(clean success rate of the episode's configuration, the episode's success) for every
    episode whose configuration the clean run played."""
    return [(clean[e["config_id"]], float(e["success"])) for e in episodes if e["config_id"] in clean]


def _probe_groups(rows: list[Row], probe: str) -> dict[str, list[tuple[Row, dict[int, float]]]]:
    """agent -> its rows under ``probe``, each with the clean per-configuration success rates of
    the same agent, game and level (empty when it has no clean run there)."""
    clean = _clean_success(rows)
    out: dict[str, list[tuple[Row, dict[int, float]]]] = {}
    for r in rows:
        if r.probe == probe and r.level is not None and r.episodes and r.probe_records is not None:
            out.setdefault(r.agent, []).append((r, clean.get((r.agent, r.env, r.level), {})))
    return out


def _complete_evidence(figures: dict[str, Any] | None) -> bool | None:
    """Whether the phase-1 answer was right: ``None`` for a log written before the figures, False
    for an episode of a newer log that never gave one (a context overflow, say)."""
    if figures is None:
        return None
    return _flag(figures, "full_success") if "full_success" in figures else False


def _necessity_figures(agent: str, task: str, episodes: list[dict[str, Any]], clean: dict[int, float]) -> dict:
    figures = [e["figures"] for e in episodes]
    # the graded score came with the optimal ratio: older logs scored success (1/0)
    graded = any(f is not None and "optimal_ratio" in f for f in figures)
    pairs = _pairs(episodes, clean)
    return {
        "agent": agent,
        "task": task,
        "episodes": len(episodes),
        "clean": _rate([c for c, _ in pairs]),
        "complete_evidence": _rate([_complete_evidence(f) for f in figures]),
        "after_pruning": _rate([e["success"] for e in episodes]),
        "pruning_ratio": _rate([_ratio(f, "pruning_ratio") for f in figures]),
        "optimal_ratio": _rate([_ratio(f, "optimal_ratio") for f in figures]),
        "score": _rate([e["score"] for e in episodes]) if graded else None,
    }


def necessity_rows(rows: list[Row]) -> list[dict[str, Any]]:
    """The paper's Table 8 per agent, query game and level, then per agent over all its
    necessity episodes (task ``all``): ``clean`` (the agent's clean success rate on the same
    configurations, ``None`` without a clean run), ``complete_evidence`` (phase-1 answer right),
    ``after_pruning`` (the episode's success: phase-2 answer right and the kept observations
    still determine it), ``pruning_ratio``, ``optimal_ratio`` (the largest removable share) and
    ``score`` (the probe's score: removed / max removable on success). A figure the records do
    not carry (logs written before it) is ``None``."""
    out = []
    for agent, group in sorted(_probe_groups(rows, "necessity").items()):
        matched: list[dict[str, Any]] = []
        for r, clean in sorted(group, key=lambda g: _task_order(g[0].task)):
            episodes = r.probe_records or []
            out.append(_necessity_figures(agent, task_name((r.env, r.level, None)), episodes, clean))
            matched += [{**e, "config_id": (r.env, r.level, e["config_id"])} for e in episodes]
        if len(group) > 1:
            clean_all = {(r.env, r.level, c): v for r, clean in group for c, v in clean.items()}
            out.append(_necessity_figures(agent, "all", matched, clean_all))
    return out


def _counterfactual_figures(agent: str, task: str, episodes: list[dict[str, Any]], clean: dict[int, float]) -> dict:
    flags = [_flag(e["figures"], "revision") for e in episodes]
    known = [f for f in flags if f is not None]
    revised = [e for e, f in zip(episodes, flags) if f]
    pairs = _pairs(revised, clean)
    clean_rate = _rate([c for c, _ in pairs])
    probed = _rate([p for _, p in pairs]) if pairs else _rate([e["success"] for e in revised])
    return {
        "agent": agent,
        "task": task,
        "episodes": len(episodes),
        "revised": len(revised) if known else None,
        "vacuous": (len(known) - len(revised)) / len(known) if known else None,
        "clean": clean_rate,
        "probed": probed,
        "drop": clean_rate - probed if clean_rate is not None and probed is not None else None,
        "all_episodes": _rate([e["success"] for e in episodes]),
    }


def counterfactual_rows(rows: list[Row]) -> list[dict[str, Any]]:
    """The paper's Table 7 over the episodes where an answer was actually falsified, per agent,
    query game and level, then per agent over all (task ``all``): ``revised`` (episodes with a
    revision), ``vacuous`` (the share without one: the clean game, left out of the drop),
    ``clean`` (the agent's clean success rate on the revised episodes' configurations),
    ``probed`` (success rate of the revised episodes), ``drop`` (clean - probed) and
    ``all_episodes`` (success rate over every episode, vacuous ones included). Logs written
    before the probe recorded ``revision``: ``None`` (n/a)."""
    out = []
    for agent, group in sorted(_probe_groups(rows, "counterfactual").items()):
        matched: list[dict[str, Any]] = []
        for r, clean in sorted(group, key=lambda g: _task_order(g[0].task)):
            episodes = r.probe_records or []
            out.append(_counterfactual_figures(agent, task_name((r.env, r.level, None)), episodes, clean))
            matched += [{**e, "config_id": (r.env, r.level, e["config_id"])} for e in episodes]
        if len(group) > 1:
            clean_all = {(r.env, r.level, c): v for r, clean in group for c, v in clean.items()}
            out.append(_counterfactual_figures(agent, "all", matched, clean_all))
    return out


def isomorphic_level_rows(rows: list[Row]) -> list[dict[str, Any]]:
    """The paper's Table 3: per agent and level, the clean and the isomorphic success rate over
    the same games and configurations (pooled over the games played at the level) and the drop
    (clean - isomorphic)."""
    clean = _clean_success(rows)
    acc: dict[tuple[str, int], list[tuple[float, float]]] = {}
    games: dict[tuple[str, int], set[str]] = {}
    for r in rows:
        base = clean.get((r.agent, r.env, r.level))
        if r.probe != "isomorphic" or r.level is None or not base or not r.config_success:
            continue
        both = sorted(set(r.config_success) & set(base))
        if both:
            acc.setdefault((r.agent, r.level), []).extend((base[c], r.config_success[c]) for c in both)
            games.setdefault((r.agent, r.level), set()).add(r.env)
    out = []
    for (agent, level), pairs in sorted(acc.items()):
        c, p = _mean([a for a, _ in pairs]), _mean([b for _, b in pairs])
        out.append(
            {
                "agent": agent,
                "level": level,
                "games": len(games[(agent, level)]),
                "configs": len(pairs),
                "clean": c,
                "isomorphic": p,
                "drop": c - p,
            }
        )
    return out


def _pct(v: float | None) -> str:
    """A rate in %, or ``n/a``."""
    return "n/a" if v is None else f"{100 * v:.1f}"


def _points(v: float | None) -> str:
    """A difference of rates in percentage points, or ``n/a``."""
    return "n/a" if v is None else f"{100 * v:+.1f}"


def _share(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.3f}"


def _probe_tables(rows: list[Row]) -> list[str]:
    """Table 3 (isomorphic, by level), Table 7 (counterfactual, revised episodes) and Table 8
    (necessity), as Markdown; nothing for a probe no run played."""
    lines: list[str] = []
    iso = isomorphic_level_rows(rows)
    if iso:
        lines += [
            "",
            "Isomorphic perturbation by level (Table 3; success %, the same games and configurations "
            "clean and retold; drop in percentage points, positive = worse under the story):",
            "",
            "| agent | level | games | configurations | clean % | isomorphic % | drop |",
            "|---|---|---|---|---|---|---|",
        ]
        lines += [
            f"| {p['agent']} | L{p['level']} | {p['games']} | {p['configs']} | {_pct(p['clean'])} "
            f"| {_pct(p['isomorphic'])} | {_points(p['drop'])} |"
            for p in iso
        ]
    cf = counterfactual_rows(rows)
    if cf:
        lines += [
            "",
            "Counterfactual revision (Table 7) over the revised episodes only: vacuous = episodes in which "
            "no answer was falsified (the clean game), left out of the drop; clean % = the same agent's clean "
            "success on those configurations; all episodes % counts the vacuous ones too:",
            "",
            "| agent | task | episodes | vacuous % | revised | clean % | counterfactual % | drop | all episodes % |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        lines += [
            f"| {p['agent']} | {p['task']} | {p['episodes']} | {_pct(p['vacuous'])} "
            f"| {'n/a' if p['revised'] is None else p['revised']} | {_pct(p['clean'])} | {_pct(p['probed'])} "
            f"| {_points(p['drop'])} | {_pct(p['all_episodes'])} |"
            for p in cf
        ]
    nec = necessity_rows(rows)
    if nec:
        lines += [
            "",
            "Necessity judgment (Table 8): clean % = the same agent's clean success on the same configurations; "
            "complete evidence % = the phase-1 answer (every observation) right; after pruning % = the phase-2 "
            "answer right AND the kept observations still determine it (the episode's success); pruning ratio = "
            "removed / observations; optimal ratio = the largest removable share (pool minus a minimum "
            "sufficient subset); score = removed / max removable on success, else 0 (1 = an optimal pruner, "
            "0 = keeps everything):",
            "",
            "| agent | task | episodes | clean % | complete evidence % | after pruning % | pruning ratio "
            "| optimal ratio | score |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        lines += [
            f"| {p['agent']} | {p['task']} | {p['episodes']} | {_pct(p['clean'])} | {_pct(p['complete_evidence'])} "
            f"| {_pct(p['after_pruning'])} | {_share(p['pruning_ratio'])} | {_share(p['optimal_ratio'])} "
            f"| {_share(p['score'])} |"
            for p in nec
        ]
    return lines


def markdown(rows: list[Row], macro: list[dict[str, Any]]) -> str:
    """The per-task table, the macro averages and, for query games, the tables by level, by
    cell and under each probe, as Markdown."""
    head = (
        "| task | agent | n | score [95% CI] | success % [95% CI] | turns (all) | turns (success) | efficiency "
        "| format errors/ep | failure % | format_error % | timeout % | context overflow % | infra errors "
        "| tokens in/out per ep | cost $ |"
    )
    lines = [head, "|" + "---|" * 16]
    order = {a: i for i, a in enumerate(BASELINES, start=1)}  # models first, then random, then oracle
    for r in sorted(rows, key=lambda r: (_task_order(r.task), order.get(r.agent, 0), r.agent)):
        lines.append(
            f"| {r.task_name} | {r.agent} | {r.episodes} | {_fmt(r.mean_score)} {_interval(r.score_lo, r.score_hi)} "
            f"| {_fmt(r.success_rate, True)} {_interval(r.success_lo, r.success_hi, True)} "
            f"| {_fmt(r.mean_turns)} | {_fmt(r.mean_turns_success)} | {_fmt(r.efficiency)} | {_fmt(r.format_errors)} "
            f"| {_fmt(r.failure, True)} | {_fmt(r.format_error, True)} | {_fmt(r.timeout, True)} "
            f"| {_fmt(r.context_overflow, True)} | {r.infra_errors} "
            f"| {r.prompt_tokens:.0f} / {r.completion_tokens:.0f} | {_cost(r.cost)} |"
        )
    lines += [
        "",
        "| agent | tasks | macro score | macro success % | macro turns | cost $ |",
        "|---|---|---|---|---|---|",
    ]
    for m in macro:
        lines.append(
            f"| {m['agent']} | {m['tasks']} | {_fmt(m['mean_score'])} | {_fmt(m['success_rate'], True)} "
            f"| {_fmt(m['mean_turns'])} | {_cost(m['cost'])} |"
        )
    lines += _query_tables(rows)
    sampled = [r for r in rows if r.samples > 1]
    if sampled:
        lines += [
            "",
            "| task | agent | K (episodes per configuration) | mean@K | pass@K |",
            "|---|---|---|---|---|",
        ]
        lines += [
            f"| {r.task_name} | {r.agent} | {r.samples} | {_fmt(r.mean_at_k)} | {_fmt(r.pass_at_k, True)} |"
            for r in sampled
        ]
        lines += [
            "",
            "With K > 1 episodes per configuration, the intervals resample configurations, not episodes; "
            "pass@K is the unbiased estimator (Chen et al., 2021), in %.",
        ]
    unscored = [f"{r.agent} on {r.task_name}" for r in rows if not r.episodes]
    if unscored:
        lines += ["", f"No scored episode (shown as -, not 0): {'; '.join(unscored)}."]
    gaps = {m["agent"]: m["missing"] for m in macro if m["missing"]}
    if gaps:
        left_out = sorted({t for tasks in gaps.values() for t in tasks})
        lines += [
            "",
            f"Macro averages cover the {macro[0]['tasks']} task(s) every agent has scored episodes on; left out: "
            + "; ".join(f"{agent} has none on {', '.join(tasks)}" for agent, tasks in gaps.items())
            + f" ({len(left_out)} task(s) in all).",
        ]
    envs = sorted({r.env for r in rows})
    lines += [
        "",
        "Intervals: percentile bootstrap of the mean score (2000 resamples, seeded), Wilson for rates. Success means:",
    ]
    lines += [f"- {_short(e)}: {success_means(e)}" for e in envs]
    if any(r.probe == "necessity" for r in rows):
        lines.append(f"- under the necessity probe: {NECESSITY_SUCCESS}")
    return "\n".join(lines)


def _query_tables(rows: list[Row]) -> list[str]:
    lines: list[str] = []
    by_level = level_rows(rows)
    levels = sorted({lv for by in by_level.values() for lv in by})
    if levels:
        lines += ["", "Query games by level (mean score over the games played at the level, no probe):", ""]
        lines += ["| agent | " + " | ".join(f"L{lv}" for lv in levels) + " |", "|---|" + "---|" * len(levels)]
        lines += [
            f"| {a} | " + " | ".join(_fmt(by.get(lv)) for lv in levels) + " |" for a, by in sorted(by_level.items())
        ]
    by_cell = cell_rows(rows)
    cells = sorted({c for by in by_cell.values() for c in by})
    if cells:
        agents = sorted(by_cell)
        lines += [
            "",
            "Query games by cell (structure × inference; mean score over its games and levels, no probe):",
            "",
        ]
        lines += ["| cell | " + " | ".join(agents) + " |", "|---|" + "---|" * len(agents)]
        lines += [f"| {c} | " + " | ".join(_fmt(by_cell[a].get(c)) for a in agents) + " |" for c in cells]
    probes = probe_rows(rows)
    if probes:
        lines += [
            "",
            "Probes (success rate, each against the same agent's clean run on the same games, levels and "
            "configurations; counterfactual and necessity: their own tables):",
            "",
        ]
        lines += ["| agent | probe | tasks | configurations | clean | probed | drop |", "|---|---|---|---|---|---|---|"]
        lines += [
            f"| {p['agent']} | {p['probe']} | {p['tasks']} | {p['configs']} | {_fmt(p['clean'])} "
            f"| {_fmt(p['probed'])} | {_fmt(p['drop'])} |"
            for p in probes
        ]
    lines += _probe_tables(rows)
    return lines


def _short(env_id: str) -> str:
    return env_id.split("/", 1)[-1].rsplit("-v", 1)[0]


#: Figures stay within this many pixels on a side, whatever the number of tasks and agents.
MAX_PX = 2000
DPI = 100


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _plain_text(plot: Any) -> Any:
    """``plot`` with every label drawn as plain text: agent names and tasks come from logs, and
    matplotlib would read ``$...$`` in them as mathtext (and fail on a malformed one)."""

    @wraps(plot)
    def drawn(*args: Any, **kwargs: Any) -> Any:
        import matplotlib

        with matplotlib.rc_context({"text.parse_math": False}):
            return plot(*args, **kwargs)

    return drawn


def _save(plt: Any, fig: Any, path: Path) -> tuple[int, int]:
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    from PIL import Image  # matplotlib's own dependency

    with Image.open(path) as image:
        return image.size


def _agents(rows: list[Row]) -> list[str]:
    order = {a: i for i, a in enumerate(BASELINES, start=1)}
    return sorted(dict.fromkeys(r.agent for r in rows), key=lambda a: (order.get(a, 0), a))


def _panels(rows: list[Row]) -> dict[str, list[tuple]]:
    """Panel name -> its tasks, in suite order (Multi-Turn Puzzles, TurnBench, the query cells)."""
    panels: dict[tuple[int, str], list[tuple]] = {}
    for t in sorted({r.task for r in rows}, key=_task_order):
        panels.setdefault(suite_of(t[0]), []).append(t)
    return {name: tasks for (_, name), tasks in sorted(panels.items())}


@_plain_text
def plot_scores(rows: list[Row], path: Path) -> tuple[int, int]:
    """Mean score (95% CI) per task and agent as horizontal bars, one panel per suite
    (Multi-Turn Puzzles, TurnBench-MS, each query-game cell); returns the size in pixels."""
    plt = _pyplot()
    agents = _agents(rows)
    panels = _panels(rows)
    ncols = 1 if len(panels) <= 2 else 2 if len(panels) <= 8 else 3
    grid = [list(panels)[i : i + ncols] for i in range(0, len(panels), ncols)]
    bars_per_task = max(1, len(agents))
    row_units = [max(len(panels[name]) for name in line) * bars_per_task + 3 for line in grid]
    width_in = min(MAX_PX / DPI, 6.5 * ncols)
    bar_in = min(0.2, (MAX_PX / DPI - 1.2) / max(1, sum(row_units)))
    height_in = min(MAX_PX / DPI, sum(row_units) * bar_in + 1.2)
    fig = plt.figure(figsize=(width_in, height_in), dpi=DPI, layout="constrained")
    axes = fig.subplots(len(grid), ncols, squeeze=False, gridspec_kw={"height_ratios": row_units})
    colours = plt.get_cmap("tab10")
    index = {(r.task, r.agent): r for r in rows}
    fontsize = max(5.0, min(9.0, bar_in * 45))
    for line, axrow in zip(grid, axes):
        for ax in axrow[len(line) :]:
            ax.set_visible(False)
        for name, ax in zip(line, axrow):
            tasks = panels[name]
            h = 0.8 / bars_per_task
            for i, agent in enumerate(agents):
                for j, task in enumerate(tasks):
                    y = j + (i - (bars_per_task - 1) / 2) * h
                    r = index.get((task, agent))
                    if r is None:
                        continue
                    if not r.episodes or math.isnan(r.mean_score):
                        ax.text(0.01, y, f"{agent}: no scored episode", va="center", fontsize=fontsize, color="0.4")
                        continue
                    err = None
                    if not math.isnan(r.score_lo):
                        err = [[r.mean_score - r.score_lo], [r.score_hi - r.mean_score]]
                    ax.barh(
                        y,
                        r.mean_score,
                        h,
                        xerr=err,
                        capsize=2,
                        color=colours(i % 10),
                        label=agent if j == 0 else None,
                        error_kw={"elinewidth": 0.8},
                    )
            ax.set_yticks(range(len(tasks)), [task_name(t) for t in tasks], fontsize=fontsize)
            ax.set_ylim(len(tasks) - 0.5, -0.5)
            ax.set_xlim(0, 1.02)
            ax.set_title(name, fontsize=10)
            ax.grid(axis="x", alpha=0.3)
            ax.set_xlabel("score", fontsize=8)
    handles = [plt.Rectangle((0, 0), 1, 1, color=colours(i % 10)) for i in range(len(agents))]
    fig.legend(handles, agents, loc="outside lower center", ncols=min(6, len(agents)), fontsize="small")
    fig.suptitle("Mean score per task (bars: 95% bootstrap CI)", fontsize=11)
    return _save(plt, fig, path)


#: How the turn figure draws each outcome: (marker, colour, label).
OUTCOME_MARKS = {
    "success": ("o", "tab:green", "success"),
    "failure": ("o", "tab:gray", "failure"),
    "timeout": ("^", "tab:orange", "timeout"),
    "format_error": ("x", "tab:red", "format error"),
    "context_overflow": ("s", "tab:purple", "context overflow"),
}


@_plain_text
def plot_turns(rows: list[Row], path: Path) -> tuple[int, int]:
    """Turns per episode, per task and agent: a box over the episodes that ended in a success or
    a failure, and every episode as a point marked by its outcome (timeouts and format errors
    stand apart, never read as quick solves). Returns the size in pixels."""
    plt = _pyplot()
    agents = _agents(rows)
    tasks = sorted({r.task for r in rows}, key=_task_order)
    ncols = max(1, min(len(tasks), math.ceil(math.sqrt(len(tasks) * 1.5))))
    nrows = math.ceil(len(tasks) / ncols)
    side = min(3.0, (MAX_PX / DPI - 0.8) / max(ncols, nrows))
    fig = plt.figure(figsize=(max(5.0, side * ncols), side * nrows + 0.8), dpi=DPI, layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    index = {(r.task, r.agent): r for r in rows}
    jitter = np.random.default_rng(0)
    seen: set[str] = set()
    for ax in axes.flat[len(tasks) :]:
        ax.set_visible(False)
    for ax, task in zip(axes.flat, tasks):
        for i, agent in enumerate(agents, start=1):
            r = index.get((task, agent))
            if r is None or not r.outcome_turns:
                continue
            played = r.outcome_turns.get("success", []) + r.outcome_turns.get("failure", [])
            if played:
                ax.boxplot([played], positions=[i], widths=0.6, showfliers=False, manage_ticks=False)
            for outcome, turns in r.outcome_turns.items():
                marker, colour, label = OUTCOME_MARKS.get(outcome, ("d", "black", outcome))
                xs = i + jitter.uniform(-0.2, 0.2, len(turns))
                ax.scatter(
                    xs,
                    turns,
                    s=8,
                    marker=marker,
                    color=colour,
                    alpha=0.6,
                    linewidths=0.8,
                    label=label if label not in seen else None,
                )
                seen.add(label)
        ax.set_xticks(range(1, len(agents) + 1), agents, rotation=30, ha="right", fontsize=6)
        ax.set_xlim(0.4, len(agents) + 0.6)
        ax.set_title(task_name(task), fontsize=8)
        ax.tick_params(axis="y", labelsize=6)
    fig.legend(loc="outside lower center", ncols=len(seen) or 1, fontsize="small", markerscale=2)
    fig.suptitle("Turns per episode (box: episodes that ended in success or failure)", fontsize=11)
    return _save(plt, fig, path)


@_plain_text
def plot_levels(rows: list[Row], path: Path) -> tuple[int, int] | None:
    """Query games, no probe: mean score against level, one line per agent, over all games and
    per inference type; ``None`` (no file) unless some agent played two or more levels."""
    by: dict[str, dict[str, dict[int, list[float]]]] = {}
    for r in rows:
        if r.level is None or r.probe is not None or not r.episodes:
            continue
        inference = suite_of(r.env)[1].split(" × ")[-1]
        for panel in ("all query games", inference):
            by.setdefault(panel, {}).setdefault(r.agent, {}).setdefault(r.level, []).append(r.mean_score)
    if not any(len(levels) > 1 for agents in by.values() for levels in agents.values()):
        return None
    plt = _pyplot()
    panels = ["all query games"] + sorted(p for p in by if p != "all query games")
    fig = plt.figure(figsize=(3.6 * len(panels), 3.4), dpi=DPI, layout="constrained")
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, panel in zip(axes, panels):
        for agent, levels in sorted(by[panel].items()):
            xs = sorted(levels)
            ax.plot(xs, [_mean(levels[x]) for x in xs], marker="o", label=agent)
        ax.set_title(panel, fontsize=10)
        ax.set_xlabel("level")
        ax.set_xticks(range(1, 6))
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("mean score")
    axes[0].legend(fontsize="small")
    fig.suptitle("Query games: score by level", fontsize=11)
    return _save(plt, fig, path)


FIGURES = ("scores.png", "turns.png", "levels.png")


def write_report(rows: list[Row], out: str | Path, plots: bool = True) -> str:
    """Write report.md, report.csv, macro.csv (and the figures, :data:`FIGURES`; levels.png
    only when some agent played several levels) into ``out``; return the Markdown."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    macro = macro_rows(rows)
    text = markdown(rows, macro)
    (out / "report.md").write_text(text + "\n")
    with open(out / "report.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(r.as_dict() for r in rows)
    with open(out / "macro.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(macro[0]) if macro else ["agent"])
        w.writeheader()
        w.writerows({**m, "missing": ";".join(m["missing"])} for m in macro)
    if plots and rows:
        plot_scores(rows, out / "scores.png")
        plot_turns(rows, out / "turns.png")
        if plot_levels(rows, out / "levels.png") is None:
            (out / "levels.png").unlink(missing_ok=True)
    return text
