"""The run directory: ``config.json`` (what was run) and ``episodes.jsonl`` (one line per episode).

Each finished episode is appended at once as one JSON line written with a single ``write``
on an ``O_APPEND`` descriptor, so a run killed at any instant leaves every earlier line whole;
at most a last partial line, which :class:`RunLog` cuts off when it reopens the file.
Re-opening a directory resumes it: episodes already logged (outcome other than
``infra_error``) are skipped, a changed agent or env config is refused.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["RunLog", "ConfigMismatch", "read_episodes", "to_jsonable", "LOG_NAME", "CONFIG_NAME"]

LOG_NAME = "episodes.jsonl"
CONFIG_NAME = "config.json"


class ConfigMismatch(ValueError):
    """The directory holds a run of a different agent or env configuration."""


def to_jsonable(value: Any) -> Any:
    """Plain JSON values for logs (sets sorted, numpy scalars/arrays unwrapped, NaN as None)."""
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else value
    if isinstance(value, (str, int, bool)) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((to_jsonable(v) for v in value), key=repr)
    if hasattr(value, "tolist"):
        return to_jsonable(value.tolist())
    return str(value)


def read_episodes(path: Path) -> tuple[list[dict[str, Any]], int]:
    """The whole lines of a log and the byte offset just after the last one."""
    if not path.exists():
        return [], 0
    data = path.read_bytes()
    records, good = [], 0
    for line in data.splitlines(keepends=True):
        if not line.endswith(b"\n"):
            break
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            break
        good += len(line)
    return records, good


class RunLog:
    """One run directory: one agent (or hand-off pair) over one or more envs.

    ``config`` holds ``agent`` (the label) and the agent's settings; ``envs`` maps each
    env id to its kwargs. Opening an existing directory checks that the agent settings and
    the kwargs of every env already in it are unchanged (new envs may be added).
    """

    def __init__(self, directory: str | Path, agent_config: dict[str, Any], envs: dict[str, dict[str, Any]]) -> None:
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.config_path = self.dir / CONFIG_NAME
        self.path = self.dir / LOG_NAME
        agent_config, envs = to_jsonable(agent_config), to_jsonable(envs)
        if self.config_path.exists():
            old = json.loads(self.config_path.read_text())
            if old.get("agent_config") != agent_config:
                raise ConfigMismatch(
                    f"--out {self.dir}: holds a run of agent config {old.get('agent_config')}, "
                    f"not {agent_config}; give a new --out directory"
                )
            for env_id, kwargs in envs.items():
                if env_id in old.get("envs", {}) and old["envs"][env_id] != kwargs:
                    raise ConfigMismatch(
                        f"--out {self.dir}: {env_id} was run with env kwargs {old['envs'][env_id]}, "
                        f"not {kwargs}; give a new --out directory"
                    )
            envs = {**old.get("envs", {}), **envs}
        self.agent_config, self.envs = agent_config, envs
        tmp = self.config_path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"agent_config": agent_config, "envs": envs}, indent=2, sort_keys=True))
        os.replace(tmp, self.config_path)
        self.records, good = read_episodes(self.path)
        if self.path.exists() and self.path.stat().st_size > good:
            os.truncate(self.path, good)  # a line cut short by a kill
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    @property
    def label(self) -> str:
        return self.agent_config["agent"]

    def done(self) -> set[tuple[str, int]]:
        """(env id, config id) of every episode that needs no replay."""
        return {(r["env_id"], r["config_id"]) for r in self.records if r["outcome"] != "infra_error"}

    def append(self, record: dict[str, Any]) -> None:
        line = json.dumps(to_jsonable(record), separators=(",", ":")) + "\n"
        os.write(self._fd, line.encode())
        self.records.append(record)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> RunLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def latest(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """One record per (env, config): the last real one, else the last ``infra_error``."""
    best: dict[tuple[str, int], dict[str, Any]] = {}
    for r in records:
        key = (r["env_id"], r["config_id"])
        if key not in best or r["outcome"] != "infra_error" or best[key]["outcome"] == "infra_error":
            best[key] = r
    return list(best.values())
