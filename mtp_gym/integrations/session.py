"""One env as a conversation: what every framework adapter drives.

A framework owns the model loop; the env stays the single source of rules, replies and
scores. :class:`EnvSession` starts a benchmark configuration the way the harness does
(``reset(seed=config_id, options={"config_id": config_id})``), takes the model's reply
text, returns the env's next message, and reports the same score, outcome, turns and
format errors as ``mtp-gym eval`` (:meth:`EnvSession.result`, live, for the framework's
scorer); :meth:`EnvSession.record` gives the finished episode as ``mtp-gym eval`` logs it.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

import gymnasium as gym

from mtp_gym import ENV_IDS
from mtp_gym.episode import EpisodeResult, public_info
from mtp_gym.eval.record import EpisodeRecord, episode_record
from mtp_gym.eval.splits import benchmark_subset

__all__ = ["EnvSession", "EpisodeScore", "configurations", "env_id_of", "registered_ids", "task_name"]


def registered_ids() -> list[str]:
    """Every text env id (the 32 of ``mtp-gym eval --env all``), sorted."""
    return sorted(ENV_IDS)


def task_name(env_id: str) -> str:
    """A framework-friendly name for an id: ``"MTP/WordGuess-v0"`` -> ``"word_guess"``."""
    name = env_id.removeprefix("MTP/").rsplit("-v", 1)[0]
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def env_id_of(name: str) -> str:
    """The registered id for a :func:`task_name` or an id (``ValueError`` naming the allowed ones)."""
    if name in ENV_IDS:
        return name
    by_name = {task_name(i): i for i in registered_ids()}
    if name not in by_name:
        raise ValueError(f"env {name!r} is not registered; allowed: {sorted(by_name)} or their MTP/ ids")
    return by_name[name]


def configurations(env_id: str, env_kwargs: dict[str, Any] | None = None, split: str | int = "full") -> list[int]:
    """The benchmark configuration ids of ``split`` (``"full"`` or ``N``, stratified like ``--split N``)."""
    env = gym.make(env_id, **(env_kwargs or {}))
    try:
        return benchmark_subset(env, split)
    finally:
        env.close()


@dataclass
class EpisodeScore:
    """The score of a session so far, as an adapter hands it to its framework's scorer (outcome
    ``None`` until the end). Not a log record: the four numbers a scorer reads, at any step;
    :meth:`EnvSession.record` gives the finished episode's
    :class:`~mtp_gym.eval.record.EpisodeRecord`."""

    score: float
    outcome: str | None
    turns: int
    format_errors: int

    def as_dict(self) -> dict[str, Any]:
        return {"score": self.score, "outcome": self.outcome, "turns": self.turns, "format_errors": self.format_errors}


class EpisodeOver(RuntimeError):
    """A reply was sent to an episode that has already ended."""


class EnvSession:
    """A registered env played as a conversation: :meth:`start`, then :meth:`send` per reply."""

    def __init__(self, env_id: str, env_kwargs: dict[str, Any] | None = None) -> None:
        self.env_id = env_id_of(env_id)
        self.env_kwargs = dict(env_kwargs or {})
        self.env = gym.make(self.env_id, **self.env_kwargs)
        self.info: dict[str, Any] = {}
        self.done = False
        self.reward = 0.0
        self.seed: int | None = None
        self.started = time.time()

    def start(self, config_id: int | None = None, seed: int | None = None) -> str:
        """Reset to benchmark ``config_id`` (or a generated configuration from ``seed``); the first message."""
        if seed is None:
            seed = config_id
        options = None if config_id is None else {"config_id": int(config_id)}
        obs, self.info = self.env.reset(seed=seed, options=options)
        self.done, self.reward, self.seed, self.started = False, 0.0, seed, time.time()
        return obs

    def send(self, reply: str) -> str:
        """Play the model's reply; the env's next message (its last one once :attr:`done`)."""
        if self.done:
            raise EpisodeOver(f"the episode of {self.env_id} has ended; start() a new one")
        obs, reward, terminated, truncated, self.info = self.env.step(reply)
        self.reward = float(reward)
        self.done = bool(terminated or truncated)
        return obs

    @property
    def context_reset(self) -> bool:
        """Whether the env's last message starts a fresh context (the necessity probe's phase 2):
        the model must then see it without the conversation before it."""
        return bool(self.info.get("context_reset"))

    @property
    def public_info(self) -> dict[str, Any]:
        """``info`` without the secret."""
        return public_info(self.info)

    @property
    def config_id(self) -> int | None:
        return self.info.get("config_id")

    def result(self) -> EpisodeScore:
        """The episode's score as ``mtp-gym eval`` records it (score 0.0 and outcome ``None`` until the end)."""
        info = self.info
        return EpisodeScore(float(info["score"]), info["outcome"], int(info["turn"]), int(info["format_errors"]))

    def record(self, agent: str, sample: int = 0) -> EpisodeRecord:
        """The finished episode as ``mtp-gym eval`` logs it, played by ``agent`` (a label), its task
        stamped from the session's env kwargs. A ``ValueError`` before the episode has ended."""
        if not self.done:
            raise ValueError(f"record: the episode of {self.env_id} has not ended; send() until done")
        score = self.result()
        result = EpisodeResult(
            env_id=self.env_id,
            config_id=self.config_id,
            outcome=score.outcome or "",
            score=score.score,
            turns=score.turns,
            format_errors=score.format_errors,
            seconds=time.time() - self.started,
            transcript=list(getattr(self.env.unwrapped, "transcript", [])),
            seed=self.seed,
            hidden=self.info.get("hidden", {}),
        )
        return episode_record(agent, self.env_id, sample, result, self.env_kwargs)

    def close(self) -> None:
        self.env.close()
