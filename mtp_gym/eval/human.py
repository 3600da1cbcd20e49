"""Games people play (``mtp-gym serve``, ``mtp-gym play --out``), logged like an agent's.

Each finished game is appended to ``OUT/human_<name>/episodes.jsonl`` (the run directory of
agent ``human:<name>``, through :class:`~mtp_gym.eval.log.RunLog`'s lock), so
``mtp-gym report OUT`` puts the human rows beside the models, with random and oracle rows on
the same configurations. A person who plays a configuration again adds a new sample of it.
Games one player finishes at once are logged one after the other: writers in this process
queue on a lock per directory, and a writer of another process (``mtp-gym play --out``) is
waited for up to :data:`LOG_WAIT_SECONDS`.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

from mtp_gym.episode import EpisodeResult
from mtp_gym.eval.harness import AgentConfig
from mtp_gym.eval.log import RunLog
from mtp_gym.eval.record import EpisodeRecord, episode_record

__all__ = ["human_config", "log_human_episode", "check_name"]

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")
#: Seconds a finished game waits for another process that is writing the same player's log.
LOG_WAIT_SECONDS = 10.0

_DIR_LOCKS: dict[Path, threading.Lock] = {}
_DIR_LOCKS_LOCK = threading.Lock()


def _dir_lock(directory: Path) -> threading.Lock:
    with _DIR_LOCKS_LOCK:
        return _DIR_LOCKS.setdefault(directory.resolve(), threading.Lock())


def check_name(name: object) -> str:
    """``name`` if it can label a player (letters, digits, ``_ . -``; 1-40 characters), else a ValueError."""
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise ValueError(
            f"name must be 1-40 letters, digits, '_', '.' or '-' (starting with a letter or digit), got {name!r}"
        )
    return name


def human_config(name: str) -> AgentConfig:
    """The agent config of player ``name``: label ``human:<name>``."""
    return AgentConfig(f"human:{check_name(name)}")


def log_human_episode(
    out: str | Path, name: str, env_id: str, env_kwargs: dict[str, Any], result: EpisodeResult
) -> EpisodeRecord:
    """Append ``result`` to player ``name``'s run directory under ``out``; return the record
    (stamped with the task ``env_kwargs`` make, as the harness does)."""
    config = human_config(name)
    directory = Path(out) / config.slug
    with (
        _dir_lock(directory),
        RunLog(directory, config.identity(), {env_id: env_kwargs}, lock_timeout=LOG_WAIT_SECONDS) as log,
    ):
        taken = {r.sample for r in log.records if (r.env_id, r.config_id) == (env_id, result.config_id)}
        sample = min(set(range(len(taken) + 1)) - taken)
        record = episode_record(config, env_id, sample, result, env_kwargs)
        log.append(record)
    return record
