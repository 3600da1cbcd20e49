"""What ``mtp-gym eval`` and ``mtp-gym report`` run once their arguments are read.

* :func:`eval_agents`: every agent's run (:func:`~mtp_gym.eval.harness.run_eval`), one run
  directory each, counting the episodes still lacking a result (``infra_error``).
* :func:`build_report`: the report of run directories, with random and oracle episodes played
  on every configuration a model played where they lack it (:func:`baseline_records`; the
  report compares each model with them on its own configurations), and ``report.html`` beside it
  (its episodes in blocks, ``report_episodes/``), the logs read once, streamed.

Messages for the person running the command go through ``warn`` (default: stderr).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mtp_gym.eval.harness import AgentConfig, run_eval
from mtp_gym.eval.record import EpisodeRecord, Task

__all__ = ["AgentRun", "EvalDone", "baseline_records", "build_report", "eval_agents", "foreign_code"]

Warn = Callable[[str], None]


def _stderr(message: str) -> None:
    print(message, file=sys.stderr)


@dataclass(frozen=True)
class AgentRun:
    """One agent of an eval: what plays, and the env kwargs of each env id."""

    config: AgentConfig
    env_kwargs: dict[str, dict[str, Any]]


@dataclass
class EvalDone:
    """The run directories written, in order, and the episodes still ending in ``infra_error``."""

    dirs: list[Path] = field(default_factory=list)
    infra: int = 0


def eval_agents(
    env_ids: Sequence[str], runs: Sequence[AgentRun], out: Path, warn: Warn = _stderr, **options: Any
) -> EvalDone:
    """Play every run over ``env_ids`` into ``out/<agent slug>`` (``options``: :func:`run_eval`'s);
    an agent whose episodes end in ``infra_error`` is named through ``warn``."""
    done = EvalDone()
    for run in runs:
        log = run_eval(env_ids, run.config, out / run.config.slug, env_kwargs=run.env_kwargs, **options)
        done.dirs.append(log.dir)
        missing = log.infra_errors
        done.infra += missing
        if missing:
            warn(
                f"{run.config.label}: {missing} episode(s) ended in infra_error (endpoint failure): they stay out of "
                "the scores; re-run the same command to play them again"
            )
    return done


def build_report(
    records: list[EpisodeRecord] | None,
    dirs: list[Path],
    out: Path,
    prices: dict[str, tuple[float, float]],
    baselines: bool,
    progress: bool = False,
    trust_code: bool = False,
    warn: Warn = _stderr,
    block_episodes: int | None = None,
) -> str:
    """Write the report of ``dirs`` into ``out`` and return its text. A run directory is data:
    unless ``trust_code``, no baseline is played where its env kwargs name code outside mtp_gym
    (``"module:Class"``).

    ``records=None`` reads the logs once, streamed (:class:`~mtp_gym.eval.report.stream.ReportStream`):
    one pass feeds the tables, the figures and the page's episode blocks, in memory that does not
    grow with the episodes (a few numbers of each in a temporary file in ``out``; what is
    skipped is named through ``warn``, as :func:`~mtp_gym.eval.report.load_runs` names it).
    Given ``records`` (:func:`~mtp_gym.eval.report.load_runs` of ``dirs``), the tables are
    computed from them and the logs are streamed once more for the page alone.
    ``block_episodes``: episodes per block file of the page (default :data:`mtp_gym.eval.html.BLOCK_EPISODES`)."""
    from mtp_gym.eval import report
    from mtp_gym.eval.html import BLOCK_EPISODES, EpisodeBlocks, write_page
    from mtp_gym.eval.report.load import find_run_dirs, iter_runs
    from mtp_gym.eval.report.stream import ReportStream

    page = out / "report.html"
    out.mkdir(parents=True, exist_ok=True)
    blocks = EpisodeBlocks(page, prices, block_episodes or BLOCK_EPISODES)
    stream = ReportStream(blocks.add, where=out)
    streamed = records is None
    if records is None:
        stream.add_all(iter_runs(dirs, warn=lambda m: warn(f"warning: {m}"), slim=False))
        facts: Any = stream.facts
    else:
        stream.add_all(iter_runs(dirs, warn=lambda m: None, slim=False), table=False)
        facts = _facts_of(records)
    extra = _baselines(facts, dirs, out, progress, trust_code, warn) if baselines else []
    if streamed:
        stream.add_all(extra, page=False, dedup=False)
        rows = stream.rows(prices)
    else:
        rows = report.compute_rows(list(records or []) + extra, prices)
    if (out / "baselines").exists():  # the baselines' episodes on the page, as played
        shown = set(find_run_dirs(dirs))
        stream.add_all(iter_runs([out / "baselines"], warn=lambda m: None, slim=False, exclude=shown), table=False)
    text = report.write_report(rows, out)
    del rows  # their per-configuration dicts, before the page's index is built
    blocks.close()
    write_page(text, stream.page_index(), blocks, page, [out / f for f in report.FIGURES])
    stream.close()
    return text


def _baselines(
    facts: Any, dirs: list[Path], out: Path, progress: bool, trust_code: bool, warn: Warn
) -> list[EpisodeRecord]:
    """The baselines' records on what ``facts`` saw played, skipping envs whose kwargs name
    code outside mtp_gym unless ``trust_code``."""
    from mtp_gym.eval import report

    env_kwargs = report.run_env_kwargs(dirs)
    untrusted = {e: refs for e, kw in env_kwargs.items() if (refs := foreign_code(kw))}
    if untrusted and not trust_code:
        for (env_id, _, _), refs in untrusted.items():
            warn(
                f"report: no baselines for {env_id}: its env kwargs name code outside mtp_gym ({', '.join(refs)}); "
                "pass --trust-code to run it"
            )
        facts = _trusted(facts, untrusted)
    return baseline_records(facts, env_kwargs, out / "baselines", report.BASELINES, progress, warn)


Fact = tuple[str, Task, int, str]


def _facts_of(records: Sequence[Mapping[str, Any]]) -> Callable[[], Iterable[Fact]]:
    """(agent, task, config id, outcome) of each record, read again on each call."""
    return lambda: ((r["agent"], _task(r), r["config_id"], r["outcome"]) for r in records)


def _trusted(facts: Callable[[], Iterable[Fact]], untrusted: Mapping[Task, Any]) -> Callable[[], Iterable[Fact]]:
    return lambda: (f for f in facts() if f[1] not in untrusted)


_CODE_REF_RE = re.compile(r"^([A-Za-z_][\w.]*):[A-Za-z_][\w.]*$")


def foreign_code(value: Any) -> list[str]:
    """The ``"module:Attr"`` strings in (nested) kwargs whose module is not part of mtp_gym."""
    if isinstance(value, dict):
        return [ref for v in value.values() for ref in foreign_code(v)]
    if isinstance(value, (list, tuple)):
        return [ref for v in value for ref in foreign_code(v)]
    if isinstance(value, str):
        m = _CODE_REF_RE.match(value)
        if m and m.group(1).split(".")[0] != "mtp_gym":
            return [value]
    return []


def _task(record: Mapping[str, Any]) -> Task:
    return record["env_id"], record.get("level"), record.get("probe")


def _wanted(facts: Callable[[], Iterable[Fact]], kinds: Sequence[str], kind: str) -> dict[Task, set[int]]:
    """The configurations of each task that the models played and baseline ``kind`` lacks (a
    baseline row beside a model's is then on every configuration of the model's, whatever else
    it covers: a person's one game beside an eval's split, say)."""
    from mtp_gym.agents import agent_kinds

    have = {(task, config) for agent, task, config, outcome in facts() if agent == kind and outcome != "infra_error"}
    wanted: dict[Task, set[int]] = {}
    for agent, task, config, _ in facts():
        if agent not in kinds and (task, config) not in have and kind in agent_kinds(task[0]):
            wanted.setdefault(task, set()).add(config)
    return wanted


def baseline_records(
    records: Sequence[Mapping[str, Any]] | Callable[[], Iterable[Fact]],
    env_kwargs: dict[Any, dict[str, Any]],
    out: Path,
    kinds: Sequence[str],
    progress: bool,
    warn: Warn = _stderr,
) -> list[EpisodeRecord]:
    """Random and oracle episodes (sample 0) on the configurations the models played that the
    baseline lacks; one run directory per baseline and task (env, level, probe). ``records``: the
    models' records, or a function giving (agent, task, config id, outcome) of each, each call."""
    from mtp_gym.eval.log import latest

    facts = records if callable(records) else _facts_of(records)

    extra: list[EpisodeRecord] = []
    for kind in kinds:
        wanted = _wanted(facts, kinds, kind)
        for (env_id, level, probe), ids in sorted(wanted.items(), key=lambda kv: repr(kv[0])):
            # One directory under out/kind whatever a log names its probe (never a path of its own).
            name = "_".join(str(p) for p in (env_id, level and f"L{level}", probe) if p)
            slug = re.sub(r"[^A-Za-z0-9._@-]+", "_", name)
            try:
                log = run_eval(
                    [env_id],
                    AgentConfig(kind),
                    out / kind / slug,
                    env_kwargs={env_id: env_kwargs.get((env_id, level, probe), {})},
                    config_ids={env_id: sorted(ids)},
                    progress=progress,
                )
            except (ValueError, TypeError) as err:  # env kwargs from a log that no env accepts
                warn(f"report: no {kind} baseline for {name}: {err}")
                continue
            extra += [
                r | {"agent": kind, "level": level, "probe": probe}
                for r in latest(log.records)
                if r["config_id"] in ids and r.get("sample", 0) == 0
            ]
    return extra
