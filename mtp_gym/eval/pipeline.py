"""What ``mtp-gym eval`` and ``mtp-gym report`` run once their arguments are read.

* :func:`eval_agents`: every agent's run (:func:`~mtp_gym.eval.harness.run_eval`), one run
  directory each, counting the episodes still lacking a result (``infra_error``).
* :func:`build_report`: the report of run directories, with random and oracle episodes played
  on every configuration a model played where they lack it (:func:`baseline_records`; the
  report compares each model with them on its own configurations), and ``report.html`` beside it.

Messages for the person running the command go through ``warn`` (default: stderr).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping, Sequence
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
        missing = sum(r["outcome"] == "infra_error" for r in log.records)
        done.infra += missing
        if missing:
            warn(
                f"{run.config.label}: {missing} episode(s) ended in infra_error (endpoint failure): they stay out of "
                "the scores; re-run the same command to play them again"
            )
    return done


def build_report(
    records: list[EpisodeRecord],
    dirs: list[Path],
    out: Path,
    prices: dict[str, tuple[float, float]],
    baselines: bool,
    progress: bool = False,
    trust_code: bool = False,
    warn: Warn = _stderr,
) -> str:
    """Write the report of ``records`` (read from ``dirs``) into ``out`` and return its text. A run
    directory is data: unless ``trust_code``, no baseline is played where its env kwargs name
    code outside mtp_gym (``"module:Class"``)."""
    from mtp_gym.eval.report import BASELINES, compute_rows, run_env_kwargs, write_report

    if baselines:
        env_kwargs = run_env_kwargs(dirs)
        untrusted = {e: refs for e, kw in env_kwargs.items() if (refs := foreign_code(kw))}
        if untrusted and not trust_code:
            for (env_id, _, _), refs in untrusted.items():
                warn(
                    f"report: no baselines for {env_id}: its env kwargs name code outside mtp_gym ({', '.join(refs)}); "
                    "pass --trust-code to run it"
                )
            records_for = [r for r in records if (r["env_id"], r.get("level"), r.get("probe")) not in untrusted]
        else:
            records_for = records
        records += baseline_records(records_for, env_kwargs, out / "baselines", BASELINES, progress, warn)
    text = write_report(compute_rows(records, prices), out)
    _write_html(text, dirs + ([out / "baselines"] if (out / "baselines").exists() else []), out, prices)
    return text


def _write_html(text: str, dirs: list[Path], out: Path, prices: dict[str, tuple[float, float]]) -> None:
    """``report.html`` next to ``report.md``: the tables, the figures, every episode's conversation."""
    from mtp_gym.eval.html import write_html
    from mtp_gym.eval.report import FIGURES, load_runs

    records = load_runs(dirs, warn=lambda m: None, slim=False)
    write_html(text, records, out / "report.html", [out / f for f in FIGURES], prices)


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


def _wanted(records: Sequence[Mapping[str, Any]], kinds: Sequence[str], kind: str) -> dict[Task, set[int]]:
    """The configurations of each task that the models played and baseline ``kind`` lacks (a
    baseline row beside a model's is then on every configuration of the model's, whatever else
    it covers: a person's one game beside an eval's split, say)."""
    from mtp_gym.agents import agent_kinds

    have = {(_task(r), r["config_id"]) for r in records if r["agent"] == kind and r["outcome"] != "infra_error"}
    wanted: dict[Task, set[int]] = {}
    for r in records:
        if r["agent"] not in kinds and (_task(r), r["config_id"]) not in have and kind in agent_kinds(r["env_id"]):
            wanted.setdefault(_task(r), set()).add(r["config_id"])
    return wanted


def baseline_records(
    records: Sequence[EpisodeRecord],
    env_kwargs: dict[Any, dict[str, Any]],
    out: Path,
    kinds: Sequence[str],
    progress: bool,
    warn: Warn = _stderr,
) -> list[EpisodeRecord]:
    """Random and oracle episodes (sample 0) on the configurations the models played that the
    baseline lacks; one run directory per baseline and task (env, level, probe)."""
    from mtp_gym.eval.log import latest

    extra: list[EpisodeRecord] = []
    for kind in kinds:
        wanted = _wanted(records, kinds, kind)
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
