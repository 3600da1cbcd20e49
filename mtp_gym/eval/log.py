"""The run directory: ``config.json`` (what was run) and ``episodes.jsonl`` (one line per episode).

Each finished episode is appended at once as one JSON line written with a single ``write``
on an ``O_APPEND`` descriptor, so a run killed at any instant leaves every earlier line whole;
at most a last partial line, which :class:`RunLog` cuts off when it reopens the file.
Re-opening a directory resumes it: episodes already logged (outcome other than
``infra_error``) are skipped, a changed agent or env config is refused.

Nothing finished is lost: a line that cannot be read (garbage, a blank line, invalid UTF-8,
a record without its keys) is skipped and reported, never a reason to drop what follows;
only an incomplete last line is cut. Logs are read line by line, and what a resume keeps in
memory is one small record per configuration (no transcripts).

This module handles lines, bytes and the lock: :func:`scan_episodes` yields each line's JSON
object as it stands; :class:`~mtp_gym.eval.record.EpisodeRecord` (``to_json`` / ``from_json``)
is the one place that writes and reads a record's fields, old logs included. One run at a time writes a
directory: :class:`RunLog` holds an exclusive lock (``.lock``) until it is closed, and a second
run on the same directory is refused (:class:`RunLocked`).
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from mtp_gym.eval.record import EpisodeRecord

__all__ = [
    "RunLog",
    "RunLocked",
    "ConfigMismatch",
    "LogScan",
    "keep_latest",
    "latest",
    "record_key",
    "read_episodes",
    "scan_episodes",
    "to_jsonable",
    "LOG_NAME",
    "CONFIG_NAME",
]

LOG_NAME = "episodes.jsonl"
CONFIG_NAME = "config.json"
LOCK_NAME = ".lock"
#: How often a run waiting for the lock (``lock_timeout``) tries again.
LOCK_POLL_SECONDS = 0.02
#: Keys every episode record has; a line without them is unreadable.
REQUIRED = ("env_id", "config_id", "outcome")
#: The large fields of a record, left out where only the numbers are needed.
HEAVY = ("transcript", "hidden")


class ConfigMismatch(ValueError):
    """The directory holds a run of a different agent or env configuration."""


class RunLocked(ValueError):
    """Another run is writing to the directory."""


def to_jsonable(value: Any) -> Any:
    """Plain JSON values for logs (sets sorted, numpy scalars/arrays unwrapped, NaN as None)."""
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else value
    if isinstance(value, (str, int, bool)) or value is None:
        return value
    if isinstance(value, EpisodeRecord):
        return to_jsonable(value.to_json())
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((to_jsonable(v) for v in value), key=repr)
    if hasattr(value, "tolist"):
        return to_jsonable(value.tolist())
    return str(value)


@dataclass
class LogScan:
    """What reading a log found besides its records."""

    #: 1-based numbers of the lines that could not be read (skipped).
    skipped: list[int] = field(default_factory=list)
    #: Byte offset just after the last complete line.
    end: int = 0
    #: Whether the file ends with an incomplete line (a write cut short by a kill).
    partial: bool = False

    def warning(self, path: Path) -> str | None:
        """A one-line account of the skipped lines, or ``None``."""
        if not self.skipped:
            return None
        shown = ", ".join(map(str, self.skipped[:10])) + (", ..." if len(self.skipped) > 10 else "")
        return f"{path}: skipped {len(self.skipped)} unreadable line(s) (line {shown}); every other episode is kept"


def _record(line: bytes) -> dict[str, Any] | None:
    try:
        record = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(record, dict) or any(k not in record for k in REQUIRED):
        return None
    return record


def scan_episodes(path: Path, scan: LogScan | None = None, slim: bool = False) -> Iterator[dict[str, Any]]:
    """The readable records of a log, in order, streamed; ``scan`` collects what was skipped.

    ``slim`` drops the large fields (:data:`HEAVY`). An incomplete last line is neither a
    record nor a skipped line: ``scan.partial`` says it is there.
    """
    scan = scan if scan is not None else LogScan()
    if not path.exists():
        return
    with open(path, "rb") as f:
        for number, line in enumerate(f, 1):
            if not line.endswith(b"\n"):
                scan.partial = True
                return
            scan.end += len(line)
            record = _record(line) if line.strip() else None
            if record is None:
                scan.skipped.append(number)
                continue
            if slim:
                for key in HEAVY:
                    record.pop(key, None)
            yield record


def read_episodes(path: Path, slim: bool = False) -> tuple[list[dict[str, Any]], int]:
    """The readable records of a log and the byte offset just after its last complete line."""
    scan = LogScan()
    records = list(scan_episodes(path, scan, slim))
    return records, scan.end


def _lock(directory: Path, timeout: float = 0.0) -> int:
    """The directory's exclusive lock (a descriptor); waits up to ``timeout`` seconds for it."""
    fd = os.open(directory / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() < deadline:
                time.sleep(LOCK_POLL_SECONDS)
                continue
            holder = os.pread(fd, 64, 0).decode(errors="replace").strip()
            os.close(fd)
            who = f" (pid {holder})" if holder.isdigit() else ""
            waited = f" (waited {timeout:g} s)" if timeout > 0 else ""
            raise RunLocked(
                f"--out {directory}: another mtp-gym run{who} is writing to it{waited}; wait for it to finish "
                "(it resumes from the same directory) or give another --out"
            ) from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, str(os.getpid()).encode(), 0)
    return fd


class RunLog:
    """One run directory: one agent (or hand-off pair) over one or more envs.

    ``config`` holds ``agent`` (the label) and the agent's settings; ``envs`` maps each
    env id to its kwargs. Opening an existing directory checks that the agent settings and
    the kwargs of every env already in it are unchanged (new envs may be added).
    ``lock_timeout``: seconds to wait for a directory another writer holds (default 0: refuse
    at once with :class:`RunLocked`; short writers such as the human log wait their turn).
    """

    def __init__(
        self,
        directory: str | Path,
        agent_config: dict[str, Any],
        envs: dict[str, dict[str, Any]],
        lock_timeout: float = 0.0,
    ) -> None:
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.config_path = self.dir / CONFIG_NAME
        self.path = self.dir / LOG_NAME
        self._fd = -1
        self._lock_fd = _lock(self.dir, lock_timeout)
        try:
            self._open(to_jsonable(agent_config), to_jsonable(envs))
        except BaseException:
            self.close()
            raise

    def _open(self, agent_config: dict[str, Any], envs: dict[str, dict[str, Any]]) -> None:
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
        self.scan = LogScan()
        self._latest: dict[tuple[str, int, int], EpisodeRecord] = {}
        for record in scan_episodes(self.path, self.scan, slim=True):
            keep_latest(self._latest, self._read(record))
        if self.scan.partial:
            os.truncate(self.path, self.scan.end)  # a line cut short by a kill
        warning = self.scan.warning(self.path)
        if warning:
            print(f"warning: {warning}", file=sys.stderr)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def _read(self, obj: Mapping[str, Any]) -> EpisodeRecord:
        """A log object as a record; an old one gets its task from this run's env kwargs."""
        env_id = obj["env_id"]
        return EpisodeRecord.from_json(obj, self.envs.get(env_id, {}) if isinstance(env_id, str) else {})

    @property
    def records(self) -> list[EpisodeRecord]:
        """The latest record per (env, config, sample) (see :func:`latest`), without transcripts."""
        return list(self._latest.values())

    @property
    def label(self) -> str:
        return self.agent_config["agent"]

    def done(self) -> set[tuple[str, int, int]]:
        """(env id, config id, sample) of every episode that needs no replay."""
        return {k for k, r in self._latest.items() if r.outcome != "infra_error"}

    def append(self, record: EpisodeRecord | Mapping[str, Any]) -> None:
        """Write ``record`` as one line at once (a mapping in the record's JSON form is read first)."""
        if not isinstance(record, EpisodeRecord):
            record = self._read(record)
        line = json.dumps(to_jsonable(record.to_json()), separators=(",", ":")) + "\n"
        os.write(self._fd, line.encode())
        keep_latest(self._latest, record.slim())

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        if self._lock_fd >= 0:
            os.close(self._lock_fd)  # releases the lock
            self._lock_fd = -1

    def __del__(self) -> None:
        if hasattr(self, "_lock_fd"):
            self.close()

    def __enter__(self) -> RunLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def record_key(record: Mapping[str, Any]) -> tuple[str, int, int]:
    """What one episode of a run is: (env id, config id, sample index; 0 without ``--samples``)."""
    return record["env_id"], record["config_id"], record.get("sample", 0)


R = TypeVar("R", bound=Mapping[str, Any])


def keep_latest(kept: dict[tuple[str, int, int], R], record: R) -> None:
    """Put ``record`` in ``kept`` under its :func:`record_key` unless it is an ``infra_error`` and
    a real record is held: the last real record wins, else the last ``infra_error``."""
    key = record_key(record)
    held = kept.get(key)
    if held is None or record["outcome"] != "infra_error" or held["outcome"] == "infra_error":
        kept[key] = record


def latest(records: Iterable[R]) -> list[R]:
    """One record per (env, config, sample): the last real one, else the last ``infra_error``."""
    best: dict[tuple[str, int, int], R] = {}
    for r in records:
        keep_latest(best, r)
    return list(best.values())
