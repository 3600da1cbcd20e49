"""``mtp-gym report``: the papers' tables and figures from run directories.

Per task and agent: score mean with a 95% percentile-bootstrap interval, success rate with a
Wilson interval, average turns over all and over successful episodes, efficiency (success rate
in % / average turns of successful episodes, as the interactive-reasoning paper defines it),
format errors per episode, failure attribution (share of episodes ending in ``failure`` /
``format_error`` / ``timeout`` / ``context_overflow``), tokens per episode and, with prices,
cost. Episodes with outcome ``infra_error`` are counted apart and left out of every number.
The macro average is the unweighted mean over the tasks every agent has scores on. Query
games add the interactive-reasoning paper's tables: by level, by cell, each probe against the
same agent's clean run, the isomorphic drop per level (Table 3), the counterfactual drop over
the episodes where an answer was falsified with the vacuous share (Table 7) and the necessity
probe's Table 8, read from each record's ``probe_result`` ("n/a" for logs written before it).

The package, by concern:

* :mod:`.load`: run directories -> :class:`~mtp_gym.eval.record.EpisodeRecord`\\ s (bad records named);
* :mod:`.stats`: one :class:`Row` of numbers per agent and task, intervals, macro averages;
* :mod:`.probes`: the query games' tables as numbers (levels, cells, probes, Tables 3, 7, 8);
* :mod:`.tables`: tables as data (:class:`~.tables.Table`) and one renderer per format;
* :mod:`.document`: the report's tables and notes, in order;
* :mod:`.figures`: ``scores.png``, ``turns.png``, ``levels.png``;
* :mod:`.stream`: the report in one streamed pass over the logs (the tables' numbers and the
  page's index of episodes: a few numbers per episode, on disk).

:func:`write_report` writes ``report.md``, ``report.csv``, ``macro.csv`` and the figures;
``report.html`` is :func:`mtp_gym.eval.html.write_html`.
"""

from __future__ import annotations

from pathlib import Path

from mtp_gym.eval.record import task_name
from mtp_gym.eval.report.document import csv_tables, markdown, report_blocks, summary_blocks
from mtp_gym.eval.report.figures import FIGURES, MAX_PX, plot_levels, plot_scores, plot_turns
from mtp_gym.eval.report.load import FIELDS, MAX_NAMED, find_run_dirs, load_runs, record_problem, run_env_kwargs
from mtp_gym.eval.report.probes import (
    cell_rows,
    counterfactual_rows,
    isomorphic_level_rows,
    level_rows,
    necessity_rows,
    probe_rows,
)
from mtp_gym.eval.report.stats import (
    BASELINES,
    COLUMNS,
    Row,
    bootstrap_ci,
    compute_rows,
    macro_rows,
    parse_prices,
    pass_at_k,
    suite_of,
    wilson_ci,
)
from mtp_gym.eval.report.tables import Block, to_markdown, write_csv

__all__ = [
    "BASELINES",
    "COLUMNS",
    "FIELDS",
    "FIGURES",
    "MAX_NAMED",
    "MAX_PX",
    "ReportText",
    "Row",
    "bootstrap_ci",
    "cell_rows",
    "compute_rows",
    "counterfactual_rows",
    "find_run_dirs",
    "isomorphic_level_rows",
    "level_rows",
    "load_runs",
    "macro_rows",
    "markdown",
    "necessity_rows",
    "parse_prices",
    "pass_at_k",
    "plot_levels",
    "plot_scores",
    "plot_turns",
    "probe_rows",
    "record_problem",
    "run_env_kwargs",
    "suite_of",
    "task_name",
    "wilson_ci",
    "write_report",
]


class ReportText(str):
    """The report's Markdown, carrying its :attr:`blocks` (the tables as data), so the page
    (:func:`mtp_gym.eval.html.write_html`) renders them itself instead of parsing the Markdown,
    and its :attr:`summary` (the macro averages and any note on them, as Markdown)."""

    blocks: list[Block]
    summary: str

    def __new__(cls, blocks: list[Block], summary: list[Block] | None = None) -> ReportText:
        text = super().__new__(cls, to_markdown(blocks))
        text.blocks = blocks
        text.summary = to_markdown(summary if summary is not None else blocks[:1])
        return text


def write_report(rows: list[Row], out: str | Path, plots: bool = True) -> ReportText:
    """Write report.md, report.csv, macro.csv (and the figures, :data:`FIGURES`; levels.png
    only when some agent played several levels) into ``out``; return the Markdown."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    macro = macro_rows(rows)
    text = ReportText(report_blocks(rows, macro), summary_blocks(rows, macro))
    (out / "report.md").write_text(text + "\n")
    report_csv, macro_csv = csv_tables(rows, macro)
    write_csv(report_csv, out / "report.csv")
    write_csv(macro_csv, out / "macro.csv")
    if plots and rows:
        plot_scores(rows, out / "scores.png")
        plot_turns(rows, out / "turns.png")
        if plot_levels(rows, out / "levels.png") is None:
            (out / "levels.png").unlink(missing_ok=True)
    return text
