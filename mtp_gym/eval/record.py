"""The episode record: one finished episode as the log, the report, the page and human play keep it.

:class:`EpisodeRecord` is the one shape of a logged episode. It is built from the episode
loop's :class:`~mtp_gym.episode.EpisodeResult` by whoever knows what was played
(:func:`episode_record`: the harness, the human log), which stamps the task (env id, and a
query game's ``level`` and ``probe``, read from the env kwargs by :func:`task_of`) into it. It
is written as one JSON object per line (:meth:`EpisodeRecord.to_json`) and read back, old logs
included, by :meth:`EpisodeRecord.from_json`: nothing else turns records into JSON or back.

Versions (``record_version``):

* 0 (the field absent): logs written before the record was versioned. They carry no task:
  :meth:`~EpisodeRecord.from_json` rebuilds ``level`` and ``probe`` from the run's env kwargs
  (its ``config.json``), as the report always did.
* 1: ``level``, ``probe`` and ``record_version`` added; every other key as in version 0.

An :class:`EpisodeRecord` also reads as a (read-only) mapping of its JSON fields
(``record["score"]``, ``record.get("sample", 0)``, ``dict(record)``), so code written
against the old dict records keeps working; ``record | {"agent": "x"}`` is a copy with those
fields replaced.

Not the same thing, and kept apart: :class:`~mtp_gym.episode.EpisodeResult` is what the episode
loop returns in memory (per-step rewards, no agent, no task); :class:`mtp_gym.rollout.Episode`
is a trainer's view of a rollout (chat messages as the policy saw them, per-step rewards, group
and policy seeds, token-level extras); ``integrations.session.EpisodeScore`` is the live score
an adapter hands its framework while a session runs. Each can be turned into a record
(:func:`episode_record`, ``Episode.to_record()``, ``EnvSession.record()``).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from functools import cache
from typing import Any

__all__ = [
    "RECORD_VERSION",
    "EpisodeRecord",
    "Task",
    "episode_record",
    "probe_result",
    "task_of",
    "task_name",
    "short_name",
]

#: The version :meth:`EpisodeRecord.to_json` writes (see the module docstring).
RECORD_VERSION = 1
#: What the agents are compared on: (env id, a query game's level or ``None``, its probe or ``None``).
Task = tuple[str, int | None, str | None]


@dataclass(slots=True, eq=True)
class EpisodeRecord(Mapping[str, Any]):
    """One finished episode of one agent on one task, as logged (``episodes.jsonl``, one per line)."""

    #: The agent's label (``oracle``, ``openai:gpt-4o``, ``a>b@3`` for a hand-off, ``human:alice``).
    agent: str
    #: The registered env id (``MTP/WordGuess-v0``).
    env_id: str
    #: The benchmark configuration played.
    config_id: int
    #: Which episode of the configuration (0 … K-1 with ``--samples K``).
    sample: int = 0
    #: The reset seed of the episode.
    seed: int | None = None
    #: ``success``, ``failure``, ``timeout``, ``format_error``, ``context_overflow`` or ``infra_error``.
    outcome: str = ""
    #: The env's final score (the paper's metric); ``None`` only on ``infra_error``.
    score: float | None = None
    #: Turns played (legal moves).
    turns: int = 0
    #: Malformed actions over the episode.
    format_errors: int = 0
    #: Tokens the model read over the episode (0 for scripted agents).
    prompt_tokens: int | float = 0
    #: Tokens the model wrote over the episode.
    completion_tokens: int | float = 0
    #: Wall-clock seconds of the episode.
    seconds: float = 0.0
    #: What ended the episode early (``infra_error``, ``context_overflow``), else ``None``.
    error: str | None = None
    #: Who produced each action in a hand-off run (``first`` / ``finisher``), else empty.
    actors: list[str] = field(default_factory=list)
    #: The conversation (``{"role", "content"}``, with ``reasoning`` where the model sent some);
    #: empty in a slim record (:meth:`slim`).
    transcript: list[dict[str, Any]] = field(default_factory=list)
    #: The secret state at the end (``info["hidden"]``); ``None`` in a slim record.
    hidden: dict[str, Any] | None = None
    #: The scalar figures of a query-game probe (:func:`probe_result`), else ``None``.
    probe_result: dict[str, Any] | None = None
    #: When the episode was logged (seconds since the epoch).
    finished_at: float | None = None
    #: A query game's level (its ``difficulty``), ``None`` for other puzzles.
    level: int | None = None
    #: A query game's probe (``noise``, ``necessity`` ...), ``None`` without one.
    probe: str | None = None
    #: The format of the record (:data:`RECORD_VERSION`; 0 for logs written before it).
    record_version: int = RECORD_VERSION

    # -- identity -------------------------------------------------------------------------

    @property
    def task(self) -> Task:
        """What the agents are compared on: (env id, level, probe)."""
        return self.env_id, self.level, self.probe

    @property
    def key(self) -> tuple[str, int, int]:
        """What one episode of a run is: (env id, config id, sample)."""
        return self.env_id, self.config_id, self.sample

    @property
    def success(self) -> bool:
        return self.outcome == "success"

    # -- JSON -------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The record as the log writes it (keys in a fixed order; values as held)."""
        return {name: getattr(self, name) for name in _NAMES}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any], env_kwargs: Mapping[str, Any] | None = None) -> EpisodeRecord:
        """A record from a log line's object, whatever version wrote it. Values are taken as they
        are (a report checks their types first); missing ones get their defaults. A record that
        carries no task (``level``/``probe``: version 0) gets it from ``env_kwargs``, the kwargs
        its run played the env with, when they are given (:func:`task_of`)."""
        if isinstance(obj, EpisodeRecord):
            return obj
        values = {name: obj[name] for name in _NAMES if name in obj}
        values.setdefault("agent", "")
        values.setdefault("record_version", 0)
        if env_kwargs is not None and "level" not in obj and "probe" not in obj:
            values["level"], values["probe"] = task_of(obj["env_id"], env_kwargs)[1:]
        return cls(**values)

    def slim(self) -> EpisodeRecord:
        """The record without its large fields (transcript, hidden state): what a resume keeps."""
        if not self.transcript and self.hidden is None:
            return self
        return dataclasses.replace(self, transcript=[], hidden=None)

    def replace(self, **changes: Any) -> EpisodeRecord:
        """A copy with ``changes`` (field name -> value)."""
        return dataclasses.replace(self, **changes)

    # -- the read-only mapping of the JSON fields -------------------------------------------

    def __getitem__(self, name: str) -> Any:
        if name not in _NAME_SET:
            raise KeyError(name)
        return getattr(self, name)

    def __iter__(self) -> Iterator[str]:
        return iter(_NAMES)

    def __len__(self) -> int:
        return len(_NAMES)

    def __contains__(self, name: object) -> bool:
        return name in _NAME_SET

    def __or__(self, changes: Mapping[str, Any]) -> EpisodeRecord:
        return dataclasses.replace(self, **changes)


_NAMES = tuple(f.name for f in fields(EpisodeRecord))
_NAME_SET = frozenset(_NAMES)


@cache
def _levels(env_id: str) -> int | None:
    """The default level of a query game (``None``: the env has no levels, or is unknown here)."""
    from mtp_gym import puzzle_info

    try:
        info = puzzle_info(env_id)
    except ValueError:
        return None
    return info.default_level if info.levels else None


def task_of(env_id: str, env_kwargs: Mapping[str, Any]) -> Task:
    """The task an env id played with ``env_kwargs`` is: a query game's level (its
    ``difficulty``, else its default level, from :func:`mtp_gym.puzzle_info`) and probe;
    ``(env_id, None, None)`` for other puzzles and ids this install does not register."""
    default = _levels(env_id) if isinstance(env_id, str) else None
    if default is None:
        return env_id, None, None
    return env_id, env_kwargs.get("difficulty", default), env_kwargs.get("probe")


def short_name(env_id: str) -> str:
    """``MTP/HiddenNumber-v0`` -> ``HiddenNumber``."""
    return env_id.split("/", 1)[-1].rsplit("-v", 1)[0]


def task_name(task: Task) -> str:
    """``WordGuess``, ``HiddenNumber L3``, ``HiddenNumber L3 noise``."""
    env, level, probe = task
    return " ".join(str(p) for p in (short_name(env), f"L{level}" if level else None, probe) if p)


def probe_result(hidden: Any) -> dict[str, Any] | None:
    """The scalar figures of a query-game probe's end-of-episode record
    (``info["hidden"]["probe"]``: e.g. the necessity probe's ``full_success``,
    ``pruning_ratio``, ``optimal_ratio``, the counterfactual probe's ``revision``), or
    ``None`` without a probe. Kept in the episode record as ``probe_result``, so the report
    reads them without loading the (heavy) hidden state."""
    probe = hidden.get("probe") if isinstance(hidden, dict) else None
    if not isinstance(probe, dict):
        return None
    return {k: v for k, v in probe.items() if v is None or isinstance(v, (bool, int, float, str))}


def episode_record(
    agent: Any, env_id: str, sample: int, result: Any, env_kwargs: Mapping[str, Any] | None = None
) -> EpisodeRecord:
    """The record of one played episode: ``result`` (an :class:`~mtp_gym.episode.EpisodeResult`)
    played by ``agent`` (a label, or an :class:`~mtp_gym.eval.harness.AgentConfig`) on ``env_id``
    built with ``env_kwargs``, stamped with its task (:func:`task_of`)."""
    _, level, probe = task_of(env_id, env_kwargs or {})
    return EpisodeRecord(
        agent=agent if isinstance(agent, str) else agent.label,
        env_id=env_id,
        config_id=result.config_id,
        sample=sample,
        seed=result.seed,
        outcome=result.outcome,
        score=result.score,
        turns=result.turns,
        format_errors=result.format_errors,
        prompt_tokens=result.prompt_tokens,
        completion_tokens=result.completion_tokens,
        seconds=result.seconds,
        error=result.error,
        actors=result.actors,
        transcript=result.transcript,
        hidden=result.hidden,
        probe_result=probe_result(result.hidden),
        finished_at=time.time(),
        level=level,
        probe=probe,
    )
