"""``mtp-gym report``: the papers' tables and figures from run directories.

Per task and agent: score mean ± 95% CI (normal approximation, ``1.96 · s / √n`` with the
sample standard deviation), success rate, average turns over all and over successful
episodes, efficiency (success rate in % / average turns of successful episodes, as the
interactive-reasoning paper defines it), format errors per episode, failure attribution
(share of episodes ending in ``failure`` / ``format_error`` / ``timeout``), tokens per
episode and, with prices, cost. Episodes with outcome ``infra_error`` are counted apart and
left out of every number. The macro average is the unweighted mean over the tasks an agent
played. Random and oracle rows stand beside every model (played on the same configurations
when the directories lack them). Writes ``report.md``, ``report.csv``, ``macro.csv``,
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
from pathlib import Path
from typing import Any

import numpy as np

from mtp_gym.eval.log import CONFIG_NAME, LOG_NAME, LogScan, keep_latest, scan_episodes

__all__ = ["Row", "load_runs", "compute_rows", "macro_rows", "markdown", "write_report", "parse_prices", "BASELINES"]

BASELINES = ("random", "oracle")
ATTRIBUTION = ("failure", "format_error", "timeout", "context_overflow")

COLUMNS = (
    "env",
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
)


@dataclass
class Row:
    """The numbers of one agent on one task."""

    env: str
    agent: str
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


def load_runs(paths: Iterable[str | Path], warn: Any = None) -> list[dict[str, Any]]:
    """Every episode record of the run dirs (the latest one per agent, env and config), without
    transcripts. Unreadable lines are skipped and reported through ``warn`` (default: stderr)."""
    by_agent: dict[str, dict[tuple[str, int], dict[str, Any]]] = {}
    for d in find_run_dirs(paths):
        label = json.loads((d / CONFIG_NAME).read_text())["agent_config"]["agent"]
        kept = by_agent.setdefault(label, {})
        scan = LogScan()
        for r in scan_episodes(d / LOG_NAME, scan, slim=True):
            keep_latest(kept, r)
        message = scan.warning(d / LOG_NAME)
        if message:
            (warn or (lambda m: print(f"warning: {m}", file=sys.stderr)))(message)
    return [r | {"agent": label} for label, recs in by_agent.items() for r in recs.values()]


def run_env_kwargs(paths: Iterable[str | Path]) -> dict[str, dict[str, Any]]:
    """The env kwargs each env was played with (first run dir that has it)."""
    kwargs: dict[str, dict[str, Any]] = {}
    for d in find_run_dirs(paths):
        for env_id, kw in json.loads((d / CONFIG_NAME).read_text())["envs"].items():
            kwargs.setdefault(env_id, kw)
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


def compute_rows(records: list[dict[str, Any]], prices: dict[str, tuple[float, float]] | None = None) -> list[Row]:
    """One :class:`Row` per (env, agent): models first, then random, then oracle."""
    prices = prices or {}
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in records:
        groups.setdefault((r["env_id"], r["agent"]), []).append(r)
    rows = []
    for (env, agent), recs in groups.items():
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
        rows.append(
            Row(
                env=env,
                agent=agent,
                episodes=n,
                mean_score=mean,
                **dict(zip(("score_lo", "score_hi"), bootstrap_ci(scores))),
                success_rate=success,
                **dict(zip(("success_lo", "success_hi"), wilson_ci(len(wins), n))),
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
            )
        )
    order = {a: i for i, a in enumerate(BASELINES, start=1)}
    rows.sort(key=lambda r: (r.env, order.get(r.agent, 0), r.agent))
    return rows


def macro_rows(rows: list[Row]) -> list[dict[str, Any]]:
    """Per agent: unweighted means over the tasks that EVERY agent has scored episodes on, so
    the agents' averages cover the same tasks; ``missing`` names the tasks an agent lacks
    (they are left out of every agent's average)."""
    agents: dict[str, dict[str, Row]] = {}
    for r in rows:
        agents.setdefault(r.agent, {})
        if r.episodes:
            agents[r.agent][r.env] = r
    every = sorted({r.env for r in rows})
    common = [e for e in every if all(e in scored for scored in agents.values())]
    out = []
    order = {a: i for i, a in enumerate(BASELINES, start=1)}
    for agent in sorted(agents, key=lambda a: (order.get(a, 0), a)):
        rs = [agents[agent][e] for e in common]
        costs = [r.cost for r in rows if r.agent == agent and r.cost is not None]
        out.append(
            {
                "agent": agent,
                "tasks": len(rs),
                "mean_score": _mean([r.mean_score for r in rs]),
                "success_rate": _mean([r.success_rate for r in rs]),
                "mean_turns": _mean([r.mean_turns for r in rs]),
                "cost": sum(costs) if costs else None,
                "missing": [e for e in every if e not in agents[agent]],
            }
        )
    return out


#: What outcome "success" (the report's success %) means on each task; the score is the paper's metric.
SUCCESS_MEANS = {
    "MTP/WordGuess-v0": "the secret word guessed within the turn budget (score: 1 - (n-1)/(max_turns-1))",
    "MTP/MovieRec-v0": "the user's best movie of the new set picked (score: 1 - (rank-1)/(n_unseen-1))",
    "MTP/CircuitDecoding-v0": "every circuit's truth table right (score: the fraction right)",
    "MTP/WordChain-v0": "the game ended without a loss by the agent (score the same)",
    "MTP/TwentyQuestions-v0": "every answer consistent until the questioner found the word (score the same)",
    "MTP/TuringMachine-v0": "the secret code submitted (score the same)",
}
#: The query games: success = score = a correct final answer.
GAME_SUCCESS = "a correct final answer (score the same)"


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


def markdown(rows: list[Row], macro: list[dict[str, Any]]) -> str:
    """The per-task table and the macro-average table as Markdown."""
    head = (
        "| task | agent | n | score [95% CI] | success % [95% CI] | turns (all) | turns (success) | efficiency "
        "| format errors/ep | failure % | format_error % | timeout % | context overflow % | infra errors "
        "| tokens in/out per ep | cost $ |"
    )
    lines = [head, "|" + "---|" * 16]
    for r in rows:
        lines.append(
            f"| {r.env} | {r.agent} | {r.episodes} | {_fmt(r.mean_score)} {_interval(r.score_lo, r.score_hi)} "
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
    unscored = [f"{r.agent} on {_short(r.env)}" for r in rows if not r.episodes]
    if unscored:
        lines += ["", f"No scored episode (shown as -, not 0): {'; '.join(unscored)}."]
    gaps = {m["agent"]: m["missing"] for m in macro if m["missing"]}
    if gaps:
        left_out = sorted({e for tasks in gaps.values() for e in tasks})
        lines += [
            "",
            f"Macro averages cover the {macro[0]['tasks']} task(s) every agent has scored episodes on; left out: "
            + "; ".join(f"{agent} has none on {', '.join(_short(e) for e in tasks)}" for agent, tasks in gaps.items())
            + f" ({len(left_out)} task(s) in all).",
        ]
    envs = sorted({r.env for r in rows})
    lines += [
        "",
        "Intervals: percentile bootstrap of the mean score (2000 resamples, seeded), Wilson for rates. Success means:",
    ]
    lines += [f"- {_short(e)}: {SUCCESS_MEANS.get(e, GAME_SUCCESS)}" for e in envs]
    return "\n".join(lines)


def _short(env_id: str) -> str:
    return env_id.split("/", 1)[-1].rsplit("-v", 1)[0]


def plot_scores(rows: list[Row], path: Path) -> None:
    """Figure 1 style: grouped bars of mean score (± 95% CI) per task and agent."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    envs = sorted({r.env for r in rows})
    agents = list(dict.fromkeys(r.agent for r in rows))
    width = 0.8 / max(1, len(agents))
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(envs) * max(1, len(agents)) / 2), 4))
    for i, agent in enumerate(agents):
        xs, ys, below, above = [], [], [], []
        for j, env in enumerate(envs):
            row = next((r for r in rows if r.env == env and r.agent == agent and r.episodes), None)
            if row:
                xs.append(j + (i - (len(agents) - 1) / 2) * width)
                ys.append(row.mean_score)
                known = not math.isnan(row.score_lo)
                below.append(row.mean_score - row.score_lo if known else 0.0)
                above.append(row.score_hi - row.mean_score if known else 0.0)
        ax.bar(xs, ys, width, yerr=[below, above], capsize=2, label=agent)
    ax.set_xticks(range(len(envs)), [_short(e) for e in envs], rotation=20, ha="right")
    ax.set_ylabel("score")
    ax.set_ylim(0, 1.05)
    ax.set_title("Score per task (mean, 95% bootstrap CI)")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_turns(rows: list[Row], path: Path) -> None:
    """Figure 4 style: the distribution of turns per episode, per task and agent."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    envs = sorted({r.env for r in rows})
    ncols = min(4, max(1, len(envs)))
    nrows = math.ceil(len(envs) / ncols) or 1
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.4 * ncols, 3.4 * nrows), squeeze=False)
    for ax in axes.flat[len(envs) :]:
        ax.set_visible(False)
    for ax, env in zip(axes.flat, envs):
        rs = [r for r in rows if r.env == env and r.turns]
        if rs:
            ax.boxplot([r.turns for r in rs], showmeans=True)
            ax.set_xticks(range(1, len(rs) + 1), [r.agent for r in rs], rotation=30, ha="right", fontsize="small")
        ax.set_title(_short(env))
        ax.set_ylabel("turns")
    fig.suptitle("Turns per episode")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_report(rows: list[Row], out: str | Path, plots: bool = True) -> str:
    """Write report.md, report.csv, macro.csv (and the two figures) into ``out``; return the Markdown."""
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
    return text
