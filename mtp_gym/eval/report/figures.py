"""The report's figures: ``scores.png`` (mean score per task and agent, one panel per suite),
``turns.png`` (turns per episode by outcome) and ``levels.png`` (query games: score by level).
Each stays within :data:`MAX_PX` pixels a side whatever the number of tasks and agents."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import wraps
from pathlib import Path
from typing import Any

import numpy as np

from mtp_gym.eval.record import Task, task_name
from mtp_gym.eval.report.stats import Row, agent_order, mean, suite_of, task_order

__all__ = ["DPI", "FIGURES", "MAX_PX", "OUTCOME_MARKS", "box_stats", "plot_levels", "plot_scores", "plot_turns"]

#: The figure files, in the order the page shows them.
FIGURES = ("scores.png", "turns.png", "levels.png")
#: Figures stay within this many pixels on a side, whatever the number of tasks and agents.
MAX_PX = 2000
DPI = 100
#: Past this many episodes of one outcome, the turn figure draws one point per turn count.
MAX_POINTS = 500


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _plain_text(plot: Callable[..., Any]) -> Callable[..., Any]:
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
    order = agent_order()
    return sorted(dict.fromkeys(r.agent for r in rows), key=lambda a: (order(a), a))


def _panels(rows: list[Row]) -> dict[str, list[Task]]:
    """Panel name -> its tasks, in suite order (Multi-Turn Puzzles, TurnBench, the query cells)."""
    panels: dict[tuple[int, str], list[Task]] = {}
    for t in sorted({r.task for r in rows}, key=task_order):
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
    stand apart, never read as quick solves); past :data:`MAX_POINTS` episodes of an outcome,
    one point per turn count, larger for more episodes. Returns the size in pixels."""
    plt = _pyplot()
    agents = _agents(rows)
    tasks = sorted({r.task for r in rows}, key=task_order)
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
            if r is not None and r.outcome_turns:
                _draw_turns(ax, i, r.outcome_turns, jitter, seen)
        ax.set_xticks(range(1, len(agents) + 1), agents, rotation=30, ha="right", fontsize=6)
        ax.set_xlim(0.4, len(agents) + 0.6)
        ax.set_title(task_name(task), fontsize=8)
        ax.tick_params(axis="y", labelsize=6)
    fig.legend(loc="outside lower center", ncols=len(seen) or 1, fontsize="small", markerscale=2)
    fig.suptitle("Turns per episode (box: episodes that ended in success or failure)", fontsize=11)
    return _save(plt, fig, path)


def _draw_turns(
    ax: Any, x: int, outcome_turns: dict[str, dict[int, int]], jitter: np.random.Generator, seen: set[str]
) -> None:
    """One agent's turns at ``x``: the box over its successes and failures, a point per episode
    (or per turn count past :data:`MAX_POINTS` episodes) marked by outcome; ``seen`` collects the
    labels already in the legend."""
    played: dict[int, int] = {}
    for outcome in ("success", "failure"):
        for t, episodes in outcome_turns.get(outcome, {}).items():
            played[t] = played.get(t, 0) + episodes
    if played:
        stats = box_stats(sorted(played), [played[t] for t in sorted(played)])
        ax.bxp([stats], positions=[x], widths=0.6, showfliers=False, manage_ticks=False)
    for outcome, by_turns in outcome_turns.items():
        marker, colour, label = OUTCOME_MARKS.get(outcome, ("d", "black", outcome))
        turns, counts = np.array(list(by_turns), dtype=float), np.array(list(by_turns.values()))
        if counts.sum() <= MAX_POINTS:  # every episode a point
            ys, sizes = np.repeat(turns, counts), np.full(int(counts.sum()), 8.0)
        else:  # binned: one point per turn count, its area growing with the episodes
            ys, sizes = turns, 8.0 * (1 + np.log2(counts))
        ax.scatter(
            x + jitter.uniform(-0.2, 0.2, len(ys)),
            ys,
            s=sizes,
            marker=marker,
            color=colour,
            alpha=0.6,
            linewidths=0.8,
            label=label if label not in seen else None,
        )
        seen.add(label)


def box_stats(values: Sequence[float], counts: Sequence[int], whis: float = 1.5) -> dict[str, Any]:
    """The box of the data ``np.repeat(values, counts)`` (``values`` ascending and distinct, each
    count at least one) from the counts, as :func:`matplotlib.cbook.boxplot_stats` computes it
    from the data: quartiles by numpy's linear percentile, whiskers at the most extreme values
    within ``whis`` IQR of the box; no fliers (the figure draws none)."""
    x, weights = np.asarray(values), np.asarray(counts, dtype=np.int64)
    n = int(weights.sum())
    ends = np.cumsum(weights)
    virtual = (n - 1) * (np.array([25, 50, 75]) / 100)
    below = np.floor(virtual)
    a = x[np.searchsorted(ends, below, side="right")]
    b = x[np.searchsorted(ends, np.minimum(below + 1, n - 1), side="right")]
    gamma, diff = virtual - below, b - a
    # numpy's interpolation, rounding as it does: from below under half way, from above past it
    q1, med, q3 = np.where(gamma >= 0.5, b - diff * (1 - gamma), a + diff * gamma)
    iqr = q3 - q1
    inside_hi, inside_lo = x[x <= q3 + whis * iqr], x[x >= q1 - whis * iqr]
    whishi = q3 if not len(inside_hi) or np.max(inside_hi) < q3 else np.max(inside_hi)
    whislo = q1 if not len(inside_lo) or np.min(inside_lo) > q1 else np.min(inside_lo)
    return {
        "mean": float(np.dot(x, weights) / n),
        "iqr": iqr,
        "cilo": med - 1.57 * iqr / np.sqrt(n),
        "cihi": med + 1.57 * iqr / np.sqrt(n),
        "whislo": whislo,
        "whishi": whishi,
        "fliers": np.array([]),
        "q1": q1,
        "med": med,
        "q3": q3,
    }


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
            ax.plot(xs, [mean(levels[x]) for x in xs], marker="o", label=agent)
        ax.set_title(panel, fontsize=10)
        ax.set_xlabel("level")
        ax.set_xticks(range(1, 6))
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("mean score")
    axes[0].legend(fontsize="small")
    fig.suptitle("Query games: score by level", fontsize=11)
    return _save(plt, fig, path)
