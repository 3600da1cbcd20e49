"""The report's tables as :class:`~.tables.Table` data, in the order ``report.md`` shows them:
macro averages, per task and agent, the baselines on each agent's own configurations (where
they differ), the query games by level and by cell, the probes, Tables 3,
7 and 8, mean@K / pass@K, then the notes (what was left out, what success means)."""

from __future__ import annotations

import math
from typing import Any

from mtp_gym.eval.record import short_name
from mtp_gym.eval.report.probes import (
    NECESSITY_SUCCESS,
    cell_rows,
    counterfactual_rows,
    isomorphic_level_rows,
    level_rows,
    necessity_rows,
    probe_rows,
)
from mtp_gym.eval.report.stats import BASELINES, COLUMNS, Row, agent_order, success_means, task_order
from mtp_gym.eval.report.tables import Block, Note, Table, to_markdown

__all__ = ["config_mismatches", "csv_tables", "markdown", "report_blocks", "summary_blocks"]

MAIN_COLUMNS = (
    *("task", "agent", "n", "score [95% CI]", "success % [95% CI]", "turns (all)", "turns (success)"),
    *("efficiency", "format errors/ep", "failure %", "format_error %", "timeout %", "context overflow %"),
    *("infra errors", "tokens in/out per ep", "cost $"),
)


def fmt(v: Any, pct: bool = False) -> str:
    """A number as the tables show it (3 decimals, or a rate in % with one); ``-`` for none."""
    if v is None:
        return "-"
    if isinstance(v, float):
        if math.isnan(v):
            return "-"
        return f"{100 * v:.1f}" if pct else f"{v:.3f}"
    return str(v)


def _interval(lo: float, hi: float, pct: bool = False) -> str:
    return "" if math.isnan(lo) else f"[{fmt(lo, pct)}, {fmt(hi, pct)}]"


def _cost(v: float | None) -> str:
    return "-" if v is None else f"{v:.4g}"


def _pct(v: float | None) -> str:
    """A rate in %, or ``n/a``."""
    return "n/a" if v is None else f"{100 * v:.1f}"


def _points(v: float | None) -> str:
    """A difference of rates in percentage points, or ``n/a``."""
    return "n/a" if v is None else f"{100 * v:+.1f}"


def _share(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.3f}"


def main_table(rows: list[Row]) -> Table:
    """Per task and agent (models first, then random, then oracle)."""
    order = agent_order()
    body = []
    for r in sorted(rows, key=lambda r: (task_order(r.task), order(r.agent), r.agent)):
        body.append(
            [r.task_name, r.agent, str(r.episodes), f"{fmt(r.mean_score)} {_interval(r.score_lo, r.score_hi)}"]
            + [f"{fmt(r.success_rate, True)} {_interval(r.success_lo, r.success_hi, True)}"]
            + [fmt(v) for v in (r.mean_turns, r.mean_turns_success, r.efficiency, r.format_errors)]
            + [fmt(v, True) for v in (r.failure, r.format_error, r.timeout, r.context_overflow)]
            + [str(r.infra_errors), f"{r.prompt_tokens:.0f} / {r.completion_tokens:.0f}", _cost(r.cost)]
        )
    return Table(MAIN_COLUMNS, body, PER_TASK)


MACRO = "Macro averages (unweighted mean over the tasks every agent has scored episodes on):"
PER_TASK = "Per task and agent:"
OWN_CONFIGS = (
    "On each agent's own configurations: the baselines' mean score on exactly the configurations the agent "
    "played, where their rows above cover other ones (=: the row above is on the same configurations; n/a: the "
    "baseline lacks some of them):"
)


def macro_table(macro: list[dict[str, Any]]) -> Table:
    columns = ["agent", "tasks", "macro score", "macro success %", "macro turns", "cost $"]
    body = [
        [m["agent"], str(m["tasks"]), fmt(m["mean_score"]), fmt(m["success_rate"], True)]
        + [fmt(m["mean_turns"]), _cost(m["cost"])]
        for m in macro
    ]
    return Table(columns, body, MACRO)


def config_mismatches(rows: list[Row]) -> list[tuple[Row, dict[str, float | None]]]:
    """Per model row (task, agent) whose configurations some baseline row of the task does not
    match exactly: each such baseline's mean score on the model's configurations (``None``:
    the baseline lacks some of them)."""
    base = {(r.task, r.agent): r for r in rows if r.agent in BASELINES}
    out = []
    for r in sorted(rows, key=lambda r: (task_order(r.task), r.agent)):
        if r.agent in BASELINES or not r.config_scores:
            continue
        mine = set(r.config_scores)
        scores: dict[str, float | None] = {}
        for kind in BASELINES:
            b = base.get((r.task, kind))
            if b is None or set(b.config_scores or {}) == mine:
                continue
            theirs = b.config_scores or {}
            scores[kind] = sum(theirs[c] for c in mine) / len(mine) if mine <= set(theirs) else None
        if scores:
            out.append((r, scores))
    return out


def own_config_table(rows: list[Row]) -> list[Block]:
    """Where a baseline row covers other configurations than a model's row of the same task: the
    baselines' scores on the model's own configurations."""
    body = [
        [r.task_name, r.agent, str(len(r.config_scores or {})), fmt(r.mean_score)]
        + [("n/a" if scores[k] is None else fmt(scores[k])) if k in scores else "=" for k in BASELINES]
        for r, scores in config_mismatches(rows)
    ]
    if not body:
        return []
    columns = ["task", "agent", "configurations", "agent score", *(f"{k} score" for k in BASELINES)]
    return [Table(columns, body, OWN_CONFIGS)]


def query_tables(rows: list[Row]) -> list[Block]:
    """The query games by level and by cell, and each probe against the clean run."""
    blocks: list[Block] = []
    by_level = level_rows(rows)
    levels = sorted({lv for by in by_level.values() for lv in by})
    if levels:
        body = [[a] + [fmt(by.get(lv)) for lv in levels] for a, by in sorted(by_level.items())]
        caption = "Query games by level (mean score over the games played at the level, no probe):"
        blocks.append(Table(["agent"] + [f"L{lv}" for lv in levels], body, caption))
    by_cell = cell_rows(rows)
    cells = sorted({c for by in by_cell.values() for c in by})
    if cells:
        agents = sorted(by_cell)
        body = [[c] + [fmt(by_cell[a].get(c)) for a in agents] for c in cells]
        caption = "Query games by cell (structure × inference; mean score over its games and levels, no probe):"
        blocks.append(Table(["cell"] + agents, body, caption))
    probes = probe_rows(rows)
    if probes:
        caption = (
            "Probes (success rate, each against the same agent's clean run on the same games, levels and "
            "configurations; counterfactual and necessity: their own tables):"
        )
        columns = ["agent", "probe", "tasks", "configurations", "clean", "probed", "drop"]
        body = [
            [p["agent"], p["probe"], str(p["tasks"]), str(p["configs"])]
            + [fmt(p[k]) for k in ("clean", "probed", "drop")]
            for p in probes
        ]
        blocks.append(Table(columns, body, caption))
    return blocks + probe_tables(rows)


ISOMORPHIC = (
    "Isomorphic perturbation by level (Table 3; success %, the same games and configurations "
    "clean and retold; drop in percentage points, positive = worse under the story):"
)
COUNTERFACTUAL = (
    "Counterfactual revision (Table 7) over the revised episodes only: vacuous = episodes in which "
    "no answer was falsified (the clean game), left out of the drop; clean % = the same agent's clean "
    "success on those configurations; all episodes % counts the vacuous ones too:"
)
NECESSITY = (
    "Necessity judgment (Table 8): clean % = the same agent's clean success on the same configurations; "
    "complete evidence % = the phase-1 answer (every observation) right; after pruning % = the phase-2 "
    "answer right AND the kept observations still determine it (the episode's success); pruning ratio = "
    "removed / observations; optimal ratio = the largest removable share (pool minus a minimum "
    "sufficient subset); score = removed / max removable on success, else 0 (1 = an optimal pruner, "
    "0 = keeps everything):"
)


def probe_tables(rows: list[Row]) -> list[Block]:
    """Table 3 (isomorphic, by level), Table 7 (counterfactual, revised episodes) and Table 8
    (necessity); nothing for a probe no run played."""
    blocks: list[Block] = []
    iso = isomorphic_level_rows(rows)
    if iso:
        columns = ["agent", "level", "games", "configurations", "clean %", "isomorphic %", "drop"]
        body = [
            [p["agent"], f"L{p['level']}", str(p["games"]), str(p["configs"])]
            + [_pct(p["clean"]), _pct(p["isomorphic"]), _points(p["drop"])]
            for p in iso
        ]
        blocks.append(Table(columns, body, ISOMORPHIC))
    cf = counterfactual_rows(rows)
    if cf:
        columns = ["agent", "task", "episodes", "vacuous %", "revised", "clean %", "counterfactual %", "drop"]
        body = [
            [
                p["agent"],
                p["task"],
                str(p["episodes"]),
                _pct(p["vacuous"]),
                "n/a" if p["revised"] is None else str(p["revised"]),
            ]
            + [_pct(p["clean"]), _pct(p["probed"]), _points(p["drop"]), _pct(p["all_episodes"])]
            for p in cf
        ]
        blocks.append(Table(columns + ["all episodes %"], body, COUNTERFACTUAL))
    nec = necessity_rows(rows)
    if nec:
        columns = ["agent", "task", "episodes", "clean %", "complete evidence %", "after pruning %"]
        body = [
            [p["agent"], p["task"], str(p["episodes"])]
            + [_pct(p[k]) for k in ("clean", "complete_evidence", "after_pruning")]
            + [_share(p[k]) for k in ("pruning_ratio", "optimal_ratio", "score")]
            for p in nec
        ]
        blocks.append(Table(columns + ["pruning ratio", "optimal ratio", "score"], body, NECESSITY))
    return blocks


def notes(rows: list[Row], macro: list[dict[str, Any]]) -> list[Block]:
    """mean@K / pass@K, then what was not scored, what the macro averages leave out, what success means."""
    blocks: list[Block] = []
    sampled = [r for r in rows if r.samples > 1]
    if sampled:
        columns = ["task", "agent", "K (episodes per configuration)", "mean@K", "pass@K"]
        body = [[r.task_name, r.agent, str(r.samples), fmt(r.mean_at_k), fmt(r.pass_at_k, True)] for r in sampled]
        blocks.append(Table(columns, body))
        blocks.append(
            Note(
                "With K > 1 episodes per configuration, the intervals resample configurations, not episodes; "
                "pass@K is the unbiased estimator (Chen et al., 2021), in %."
            )
        )
    unscored = [f"{r.agent} on {r.task_name}" for r in rows if not r.episodes]
    if unscored:
        blocks.append(Note(f"No scored episode (shown as -, not 0): {'; '.join(unscored)}."))
    gaps = {m["agent"]: m["missing"] for m in macro if m["missing"]}
    if gaps:
        left_out = sorted({t for tasks in gaps.values() for t in tasks})
        blocks.append(
            Note(
                f"Macro averages cover the {macro[0]['tasks']} task(s) every agent has scored episodes on; left out: "
                + "; ".join(f"{agent} has none on {', '.join(tasks)}" for agent, tasks in gaps.items())
                + f" ({len(left_out)} task(s) in all)."
            )
        )
    means = [f"{short_name(e)}: {success_means(e)}" for e in sorted({r.env for r in rows})]
    if any(r.probe == "necessity" for r in rows):
        means.append(f"under the necessity probe: {NECESSITY_SUCCESS}")
    text = (
        "Intervals: percentile bootstrap of the mean score (2000 resamples, seeded), Wilson for rates. Success means:"
    )
    return blocks + [Note(text, means)]


def summary_blocks(rows: list[Row], macro: list[dict[str, Any]]) -> list[Block]:
    """The report's head: the macro averages, and a note where rows compare different configurations."""
    found = config_mismatches(rows)
    head: list[Block] = [macro_table(macro)]
    if found:
        agents = ", ".join(sorted({r.agent for r, _ in found}))
        tasks = ", ".join(sorted({r.task_name for r, _ in found}))
        head.append(
            Note(
                f"**Not on the same configurations**: the random/oracle rows of {tasks} (and so these macro "
                f"averages) cover other configurations than {agents}; the table on each agent's own "
                "configurations compares them on the same ones."
            )
        )
    return head


def report_blocks(rows: list[Row], macro: list[dict[str, Any]]) -> list[Block]:
    """Every table and note of the report, in order: the macro averages first."""
    return [
        *summary_blocks(rows, macro),
        main_table(rows),
        *own_config_table(rows),
        *query_tables(rows),
        *notes(rows, macro),
    ]


def markdown(rows: list[Row], macro: list[dict[str, Any]]) -> str:
    """The per-task table, the macro averages and, for query games, the tables by level, by
    cell and under each probe, as Markdown."""
    return to_markdown(report_blocks(rows, macro))


def csv_tables(rows: list[Row], macro: list[dict[str, Any]]) -> tuple[Table, Table]:
    """``report.csv`` (:data:`~.stats.COLUMNS` per row, values unformatted) and ``macro.csv``."""
    report = Table(COLUMNS, [[getattr(r, c) for c in COLUMNS] for r in rows])
    columns = list(macro[0]) if macro else ["agent"]
    body = [[";".join(v) if k == "missing" else v for k, v in m.items()] for m in macro]
    return report, Table(columns, body)
