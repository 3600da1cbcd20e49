"""The run directory: ``config.json`` (what was run) and ``episodes.jsonl`` (one line per episode).

Each finished episode is appended at once as one JSON line written with a single ``write``
on an ``O_APPEND`` descriptor, so a run killed at any instant leaves every earlier line whole;
at most a last partial line, which :class:`RunLog` cuts off when it reopens the file.
Re-opening a directory resumes it: episodes already logged (outcome other than
``infra_error``) are skipped, a changed agent or env config is refused.

Nothing finished is lost: a line that cannot be read (garbage, a blank line, invalid UTF-8,
a record without its keys) is skipped and reported, never a reason to drop what follows;
only an incomplete last line is cut. Logs are read line by line, and what a resume keeps in
memory is a few numbers per episode (its key, whether it is done, its score and tokens), read
from each line without parsing its transcript.

This module handles lines, bytes and the lock: :func:`scan_episodes` yields each line's JSON
object as it stands; :class:`~mtp_gym.eval.record.EpisodeRecord` (``to_json`` / ``from_json``)
is the one place that writes and reads a record's fields, old logs included. One run at a time writes a
directory: :class:`RunLog` holds an exclusive lock (``.lock``) until it is closed, and a second
run on the same directory is refused (:class:`RunLocked`).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import math
import os
import sys
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, overload

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
    kind = type(value)  # the exact built-in types first: a record is mostly str, int, list, dict
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float:
        return None if math.isnan(value) or math.isinf(value) else value
    if kind is dict:
        return {k if type(k) is str else str(k): to_jsonable(v) for k, v in value.items()}
    if kind is list:
        return [to_jsonable(v) for v in value]
    return _to_jsonable(value)


def _to_jsonable(value: Any) -> Any:
    """:func:`to_jsonable` of anything but the exact built-in types (subclasses, numpy, sets)."""
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
    #: Whole lines read (readable or not).
    lines: int = 0

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


#: Where the large fields start in a line :meth:`RunLog.append` wrote (every field a resume
#: needs comes before them).
_HEAVY_START = b',"transcript":'


def _head(line: bytes) -> dict[str, Any] | None:
    """The fields of a log line before its transcript, parsed without the transcript (a line
    :meth:`RunLog.append` wrote); else the whole line (:func:`_record`)."""
    cut = line.find(_HEAVY_START)
    if cut > 0 and line.rstrip().endswith(b"}"):
        try:
            head = json.loads(line[:cut] + b"}")
        except (UnicodeDecodeError, ValueError):
            head = None
        if isinstance(head, dict) and all(k in head for k in REQUIRED):
            return head
    return _record(line)


#: What a resume keeps per (env id, config id, sample): (``infra_error``?, score, tokens, the
#: number of the log line it comes from).
Kept = tuple[bool, Any, Any, int]


def _kept(record: Mapping[str, Any], line: int) -> Kept:
    tokens = _number(record.get("prompt_tokens")) + _number(record.get("completion_tokens"))
    return record["outcome"] == "infra_error", record.get("score"), tokens, line


def _number(value: Any) -> int | float:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


def scan_episodes(path: Path, scan: LogScan | None = None, slim: bool = False) -> Iterator[dict[str, Any]]:
    """The readable records of a log, in order, streamed; ``scan`` collects what was skipped.

    ``slim`` drops the large fields (:data:`HEAVY`). An incomplete last line is neither a
    record nor a skipped line: ``scan.partial`` says it is there.
    """
    for _, record in _scan(path, scan if scan is not None else LogScan(), _record):
        if slim:
            for key in HEAVY:
                record.pop(key, None)
        yield record


def _scan(path: Path, scan: LogScan, parse: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    """:func:`scan_episodes` with each line read by ``parse`` (``None``: unreadable), and the
    line's number (from 1) with each record."""
    if not path.exists():
        return
    with open(path, "rb") as f:
        for number, line in enumerate(f, 1):
            if not line.endswith(b"\n"):
                scan.partial = True
                return
            scan.end += len(line)
            scan.lines = number
            record = parse(line) if line.strip() else None
            if record is None:
                scan.skipped.append(number)
                continue
            yield number, record


def read_episodes(path: Path, slim: bool = False) -> tuple[list[dict[str, Any]], int]:
    """The readable records of a log and the byte offset just after its last complete line."""
    scan = LogScan()
    records = list(scan_episodes(path, scan, slim))
    return records, scan.end


#: The lock descriptors this process holds. A forked child (a worker of the process pool) closes
#: its copies at once: a lock lives while any copy is open, so a worker still shutting down would
#: otherwise keep the directory locked after the run has ended (and refuse the resume).
_HELD_LOCKS: set[int] = set()


def _drop_inherited_locks() -> None:
    for fd in _HELD_LOCKS:
        with contextlib.suppress(OSError):
            os.close(fd)  # this copy only: the parent's lock stays
    _HELD_LOCKS.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_drop_inherited_locks)


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
    _HELD_LOCKS.add(fd)
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
        # Per episode only what a resume needs (is it done, its score and tokens for the bar), not
        # its record: the lines are read without their transcripts (_head).
        self._kept: dict[tuple[str, int, int], Kept] = {}
        env_ids: dict[Any, Any] = {}  # one string per env id, not one per line
        for line, record in _scan(self.path, self.scan, _head):
            env_id, config_id, sample = record_key(record)
            self._keep((env_ids.setdefault(env_id, env_id), config_id, sample), _kept(record, line))
        self._lines = self.scan.lines  # the whole lines of the log (a cut-off last one is removed)
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

    def _keep(self, key: tuple[str, int, int], kept: Kept) -> None:
        """:func:`keep_latest`'s rule on what a resume keeps."""
        held = self._kept.get(key)
        if held is None or not kept[0] or held[0]:
            self._kept[key] = kept

    @property
    def records(self) -> Sequence[EpisodeRecord]:
        """The latest record per (env, config, sample) (see :func:`latest`), without transcripts,
        in log order: read from the log as they are iterated (a run keeps only a few numbers
        per episode in memory, :meth:`finished`)."""
        return _Records(self)

    def finished(self, key: tuple[str, int, int]) -> Kept | None:
        """``(False, score, tokens)`` of a logged episode that needs no replay, else ``None``."""
        kept = self._kept.get(key)
        return None if kept is None or kept[0] else kept

    @property
    def infra_errors(self) -> int:
        """Episodes whose latest record is an ``infra_error`` (to be replayed)."""
        return sum(kept[0] for kept in self._kept.values())

    @property
    def label(self) -> str:
        return self.agent_config["agent"]

    def done(self) -> set[tuple[str, int, int]]:
        """(env id, config id, sample) of every episode that needs no replay."""
        return {k for k, kept in self._kept.items() if not kept[0]}

    def append(self, record: EpisodeRecord | Mapping[str, Any]) -> None:
        """Write ``record`` as one line at once (a mapping in the record's JSON form is read first)."""
        if not isinstance(record, EpisodeRecord):
            record = self._read(record)
        line = json.dumps(to_jsonable(record.to_json()), separators=(",", ":")) + "\n"
        os.write(self._fd, line.encode())
        self._lines += 1
        self._keep(record.key, _kept(record, self._lines))

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        if self._lock_fd >= 0:
            _HELD_LOCKS.discard(self._lock_fd)
            os.close(self._lock_fd)  # releases the lock
            self._lock_fd = -1

    def __del__(self) -> None:
        if hasattr(self, "_lock_fd"):
            self.close()

    def __enter__(self) -> RunLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Records(Sequence[EpisodeRecord]):
    """:attr:`RunLog.records`: the log's kept lines, each read (without its transcript) when
    iterated; indexing reads them all."""

    def __init__(self, log: RunLog) -> None:
        self.log = log

    def __len__(self) -> int:
        return len(self.log._kept)

    def __iter__(self) -> Iterator[EpisodeRecord]:
        kept = self.log._kept
        for line, record in _scan(self.log.path, LogScan(), _record):
            try:
                held = kept.get(record_key(record))
            except TypeError:  # an unhashable key: never kept
                continue
            if held is not None and held[3] == line:
                for key in HEAVY:
                    record.pop(key, None)
                yield self.log._read(record)

    @overload
    def __getitem__(self, index: int) -> EpisodeRecord: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[EpisodeRecord]: ...

    def __getitem__(self, index: int | slice) -> EpisodeRecord | Sequence[EpisodeRecord]:
        return list(self)[index]


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
