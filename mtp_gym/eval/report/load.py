"""Reading run directories for a report: every readable record, the bad ones named.

A log is data: a record with a missing or wrong-typed field (:func:`record_problem`) is
skipped and named, and so is a run whose ``config.json`` cannot be read. What is kept becomes
an :class:`~mtp_gym.eval.record.EpisodeRecord` (:meth:`~mtp_gym.eval.record.EpisodeRecord.from_json`:
a record written before the task was stamped gets it from its run's env kwargs).
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeGuard

from mtp_gym.eval.log import CONFIG_NAME, HEAVY, LOG_NAME, LogScan, keep_latest, scan_episodes
from mtp_gym.eval.record import EpisodeRecord, Task, task_of

__all__ = ["FIELDS", "MAX_NAMED", "find_run_dirs", "iter_runs", "load_runs", "record_problem", "run_env_kwargs"]

#: Records named one per warning line per log file; the rest are counted in one summary line.
MAX_NAMED = 20


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


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_count(v: Any) -> bool:
    return _is_int(v) and v >= 0


def is_number(v: Any) -> TypeGuard[int | float]:
    """A finite int or float (not a bool)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _is_transcript(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(m, dict) for m in v)


#: What each field a report reads must be: (required, test, what it should be). A record that
#: breaks one is skipped and named (:func:`load_runs`); ``score`` is checked apart (``null``
#: is allowed on ``infra_error``).
FIELDS: dict[str, tuple[bool, Callable[[Any], bool], str]] = {
    "env_id": (True, lambda v: isinstance(v, str) and bool(v), "a non-empty string"),
    "config_id": (True, _is_count, "a non-negative integer"),
    "outcome": (True, lambda v: isinstance(v, str) and bool(v), "a non-empty string"),
    "turns": (True, _is_count, "a non-negative integer"),
    "format_errors": (True, _is_count, "a non-negative integer"),
    "sample": (False, _is_count, "a non-negative integer"),
    "prompt_tokens": (False, lambda v: is_number(v) and v >= 0, "a non-negative number"),
    "completion_tokens": (False, lambda v: is_number(v) and v >= 0, "a non-negative number"),
    "error": (False, lambda v: v is None or isinstance(v, str), "a string or null"),
    "transcript": (False, _is_transcript, "a list of messages (objects)"),
    "probe_result": (False, lambda v: v is None or isinstance(v, dict), "an object or null"),
    "level": (False, lambda v: v is None or _is_int(v), "an integer or null"),
    "probe": (False, lambda v: v is None or isinstance(v, str), "a string or null"),
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
    if not is_number(score) and not (score is None and record["outcome"] == "infra_error"):
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


def _run_records(d: Path, config: dict[str, Any], slim: bool, say: Callable[[str], Any]) -> Iterator[EpisodeRecord]:
    """The readable records of run ``d`` in log order, streamed, as agent ``config``'s label
    (every one, before :func:`~mtp_gym.eval.log.keep_latest`); once the log is read, what was
    skipped is named through ``say``."""
    label = config["agent_config"]["agent"]
    envs = config.get("envs", {})
    scan = LogScan()
    bad: list[str] = []
    skipped = 0
    for seen, r in enumerate(scan_episodes(d / LOG_NAME, scan), 1):
        problem = record_problem(r)
        if problem is not None:
            skipped += 1
            if len(bad) < MAX_NAMED:
                bad.append(f"{d / LOG_NAME}:{seen + len(scan.skipped)}: skipped: {problem}")
            continue
        if slim:
            for key in HEAVY:
                r.pop(key, None)
        yield EpisodeRecord.from_json(r, envs.get(r["env_id"], {})).replace(agent=label)
    message = scan.warning(d / LOG_NAME)
    if message:
        say(message)
    for line in bad:
        say(line)
    if skipped > MAX_NAMED:
        say(f"{d / LOG_NAME}: skipped {skipped - MAX_NAMED} more record(s) with a missing or wrong-typed field")


def iter_runs(
    paths: Iterable[str | Path], warn: Any = None, slim: bool = True, exclude: Iterable[Path] = ()
) -> Iterator[EpisodeRecord]:
    """Every readable record of the run dirs at or under ``paths`` (but the run dirs in
    ``exclude``), in log order, streamed: the one pass :func:`load_runs` and the streamed report
    (:class:`~.stream.ReportStream`) read. No record is dropped as superseded here; what is
    skipped is reported through ``warn`` (default: stderr) as :func:`load_runs` says."""
    say = warn or (lambda m: print(f"warning: {m}", file=sys.stderr))
    skip = set(exclude)
    for d in find_run_dirs(paths):
        if d in skip:
            continue
        config, why = _read_config(d)
        if config is None:
            say(why)
            continue
        yield from _run_records(d, config, slim, say)


def load_runs(paths: Iterable[str | Path], warn: Any = None, slim: bool = True) -> list[EpisodeRecord]:
    """Every episode record of the run dirs (the latest one per agent, task and configuration),
    with its task (``level`` and ``probe``: stamped by the harness; rebuilt from the run's env
    kwargs for older logs) and without transcripts unless not ``slim``. Unreadable lines, and
    records with a missing or wrong-typed field (:func:`record_problem`: ``turns: "7"``,
    ``score: null``, ...), are skipped and reported through ``warn`` (default: stderr), one
    line per record naming the file, line and field (the first :data:`MAX_NAMED` of a file,
    then a count); so is a run whose ``config.json`` cannot be read."""
    kept: dict[tuple[Any, ...], dict[tuple[str, int, int], EpisodeRecord]] = {}
    for record in iter_runs(paths, warn, slim):
        keep_latest(kept.setdefault((record.agent, record.level, record.probe), {}), record)
    return [r for recs in kept.values() for r in recs.values()]


def run_env_kwargs(paths: Iterable[str | Path]) -> dict[Task, dict[str, Any]]:
    """The env kwargs each task (env id, level, probe; see :func:`~mtp_gym.eval.record.task_of`)
    was played with (the first run dir that has it; a run whose config cannot be read has none)."""
    kwargs: dict[Task, dict[str, Any]] = {}
    for d in find_run_dirs(paths):
        config, _ = _read_config(d)
        for env_id, kw in (config or {}).get("envs", {}).items():
            kwargs.setdefault(task_of(env_id, kw), kw)
    return kwargs
