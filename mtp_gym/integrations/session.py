"""One env as a conversation: what every framework adapter drives.

A framework owns the model loop; the env stays the single source of rules, replies and
scores. :class:`EnvSession` starts a configuration the way the harness does (a benchmark
one: ``reset(seed=episode_seed(config_id, sample, seed), options={"config_id": config_id})``;
a generated one: ``reset(seed=...)`` with ``configs="generated"``), takes the model's reply
text, returns the env's next message, and reports the same score, outcome, turns and
format errors as ``mtp-gym eval`` (:meth:`EnvSession.result`, live, for the framework's
scorer); :meth:`EnvSession.record` gives the finished episode as ``mtp-gym eval`` logs it.

The harness's chat settings (:class:`ChatSettings`: ``--prompt-style`` with its suffix,
``--system-prompt``, ``--max-history``) shape what the model is sent:
:meth:`EnvSession.prompt` is the request ``mtp-gym eval``'s chat agents would send now, and
:func:`draws` lists the episodes of a run (``--split``, ``--samples``, ``--seed``, or
generated configurations for training), so every adapter replays what ``mtp-gym eval`` plays.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np

from mtp_gym import ENV_IDS, puzzle_info
from mtp_gym.agents.llm.prompts import PROMPT_STYLES, get_prompt_style
from mtp_gym.core import check_int
from mtp_gym.episode import EpisodeResult, public_info
from mtp_gym.eval.record import EpisodeRecord, episode_record
from mtp_gym.eval.splits import benchmark_subset, episode_seed
from mtp_gym.history import cap_history, check_max_history

__all__ = [
    "CONFIG_SOURCES",
    "ChatSettings",
    "Draw",
    "EnvSession",
    "EpisodeScore",
    "configurations",
    "draws",
    "env_id_of",
    "registered_ids",
    "source_kwargs",
    "styled_env_kwargs",
    "task_name",
]

#: Where an adapter's configurations come from: the benchmark split (evaluation) or fresh
#: configurations generated from seeds (training: never the test set).
CONFIG_SOURCES = ("benchmark", "generated")


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


def styled_env_kwargs(env_id: str, env_kwargs: dict[str, Any] | None, prompt_style: str = "plain") -> dict[str, Any]:
    """``env_kwargs`` plus the env's own variant of ``prompt_style`` where the paper has one
    (TurnBench's Answer-Only and CoT prompts), as ``mtp-gym eval --prompt-style`` sets it for a
    model agent; an explicit ``prompt_style`` env kwarg wins."""
    get_prompt_style(prompt_style)  # a ValueError naming the allowed styles
    return puzzle_info(env_id_of(env_id)).styled(env_kwargs or {}, prompt_style)


@dataclass(frozen=True)
class ChatSettings:
    """How the env's messages become the model's requests, as ``mtp-gym eval`` sends them:
    ``prompt_style`` (``plain``, ``answer_only``, ``cot``: a suffix after every user message),
    ``system_prompt``, and ``max_history`` (the rules and the last N turns, :mod:`mtp_gym.history`)."""

    prompt_style: str = "plain"
    system_prompt: str | None = None
    max_history: int | None = None

    def __post_init__(self) -> None:
        if self.prompt_style not in PROMPT_STYLES:
            raise ValueError(f"prompt_style={self.prompt_style!r} is not supported; allowed: {sorted(PROMPT_STYLES)}")
        check_max_history(self.max_history)

    def user_message(self, text: str) -> str:
        """An env message as the model reads it (the style's suffix appended)."""
        return get_prompt_style(self.prompt_style).user_message(text)

    def head(self) -> list[dict[str, str]]:
        """The messages a conversation starts with (the system prompt, if any)."""
        return [{"role": "system", "content": self.system_prompt}] if self.system_prompt else []


@dataclass(frozen=True)
class Draw:
    """One episode of a run: ``config_id`` (a benchmark configuration, ``None`` for a generated
    one), ``index`` (the configuration: the benchmark id, or the generated one's number),
    ``sample`` and the reset ``seed`` (:func:`~mtp_gym.eval.splits.episode_seed`)."""

    config_id: int | None
    index: int
    sample: int
    seed: int

    @property
    def name(self) -> str:
        """A unique label: ``"3"``, ``"3.1"`` (sample 1), ``"g3"`` (generated configuration 3)."""
        kind = "" if self.config_id is not None else "g"
        return f"{kind}{self.index}" + (f".{self.sample}" if self.sample else "")


def _check_source(configs: str) -> None:
    if configs not in CONFIG_SOURCES:
        raise ValueError(f"configs={configs!r} is not supported; allowed: {list(CONFIG_SOURCES)}")


def source_kwargs(env_kwargs: dict[str, Any] | None, configs: str = "benchmark") -> dict[str, Any]:
    """``env_kwargs`` for a source of configurations (``"generated"`` sets ``configs="generated"``)."""
    _check_source(configs)
    kwargs = dict(env_kwargs or {})
    if configs == "generated":
        kwargs["configs"] = "generated"
    return kwargs


def draws(
    env_id: str,
    env_kwargs: dict[str, Any] | None = None,
    split: str | int = "full",
    samples: int = 1,
    seed: int | None = None,
    configs: str = "benchmark",
) -> list[Draw]:
    """The episodes ``mtp-gym eval --split SPLIT --samples K --seed S`` plays (``configs="benchmark"``),
    in its order; or, for training, ``split`` (an int N) times ``samples`` generated configurations
    none of which is a configuration of the benchmark split (:func:`generated_seeds` from ``seed``).
    Either way configuration by configuration, each one's ``samples`` draws in a row (the Inspect
    dataset slices them so)."""
    _check_source(configs)
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise ValueError(f"samples must be a positive int, got {samples!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise ValueError(f"seed must be None or a non-negative int, got {seed!r}")
    if configs == "benchmark":
        ids = configurations(env_id, env_kwargs, split)
        return [Draw(c, c, k, episode_seed(c, k, seed)) for c in ids for k in range(samples)]
    n = int(split) if isinstance(split, int) or (isinstance(split, str) and split.isdigit()) else 0
    if isinstance(split, bool) or n < 1:
        raise ValueError(f"split: configs='generated' needs a positive int (how many to generate), got {split!r}")
    seeds = generated_seeds(env_id, n * samples, env_kwargs, seed or 0)
    return [Draw(None, i, k, seeds[i * samples + k]) for i in range(n) for k in range(samples)]


#: Consecutive generated configurations that all coincide with the benchmark before
#: :func:`generated_seeds` gives up (the kwargs leave nothing outside the benchmark split).
MAX_COINCIDING = 2000


def _canonical(value: Any) -> Any:
    """A JSON-able form of ``info["hidden"]`` that is equal exactly when the values are."""
    if isinstance(value, Mapping):
        return {str(k): _canonical(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, set | frozenset):
        return sorted((_canonical(v) for v in value), key=repr)
    if isinstance(value, list | tuple):
        return [_canonical(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return repr(value)


def _puzzle_key(obs: str, info: dict[str, Any]) -> str:
    """What a configuration is: the env's first message and its secret."""
    return obs + "\x00" + json.dumps(_canonical(info.get("hidden")), sort_keys=True)


def without_configs(env_kwargs: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in env_kwargs.items() if k != "configs"}


def generated_seeds(env_id: str, n: int, env_kwargs: Mapping[str, Any] | None = None, seed: int = 0) -> list[int]:
    """``n`` reset seeds of generated configurations (``configs="generated"``) none of which is a
    configuration of the benchmark split of the same kwargs (same first message and same
    secret, ``info["hidden"]``). Candidate ``i`` is the first word of
    ``SeedSequence([seed, i])``; a candidate that coincides is skipped. Two seeds may still
    draw the same generated configuration when the kwargs allow few. A ``ValueError`` when
    :data:`MAX_COINCIDING` candidates in a row coincide (e.g. Hidden Number at difficulty 1:
    four numbers, all in the benchmark split)."""
    check_int("n", n)
    env_id = env_id_of(env_id)
    kwargs = without_configs(env_kwargs or {})
    bench = gym.make(env_id, disable_env_checker=True, **kwargs)
    taken: set[str] = set()
    try:
        count = int(getattr(bench.unwrapped, "num_configs", 0))
        for c in range(count):
            taken.add(_puzzle_key(*bench.reset(seed=c, options={"config_id": c})))
    finally:
        bench.close()
    env = gym.make(env_id, disable_env_checker=True, **{**kwargs, "configs": "generated"})
    seeds: list[int] = []
    coinciding, i = 0, 0
    try:
        while len(seeds) < n:
            s = int(np.random.SeedSequence([seed, i]).generate_state(1)[0])
            i += 1
            if _puzzle_key(*env.reset(seed=s)) in taken:
                coinciding += 1
                if coinciding >= MAX_COINCIDING:
                    raise ValueError(
                        f"generated_seeds: {MAX_COINCIDING} generated configurations of {env_id} with "
                        f"env_kwargs={kwargs} in a row are all benchmark configurations; these kwargs leave "
                        "nothing to train on outside the benchmark split (pick a harder level)"
                    )
                continue
            coinciding = 0
            seeds.append(s)
    finally:
        env.close()
    return seeds


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
    """A registered env played as a conversation: :meth:`start`, then :meth:`send` per reply.

    ``chat`` (:class:`ChatSettings`) shapes the model's side: :attr:`messages` is the
    conversation as ``mtp-gym eval``'s chat agents hold it (system prompt, styled user
    messages, replies; a fresh one where the env says ``context_reset``) and :meth:`prompt`
    the request they would send now (capped by ``max_history``). ``chat.prompt_style`` also
    sets the env's own variant of the style where it has one (:func:`styled_env_kwargs`)."""

    def __init__(self, env_id: str, env_kwargs: dict[str, Any] | None = None, chat: ChatSettings | None = None) -> None:
        self.env_id = env_id_of(env_id)
        self.chat = chat or ChatSettings()
        self.given_kwargs = dict(env_kwargs or {})  # as given; env_kwargs adds the style's variant
        self.env_kwargs = styled_env_kwargs(self.env_id, env_kwargs, self.chat.prompt_style)
        self.env = gym.make(self.env_id, **self.env_kwargs)
        self.info: dict[str, Any] = {}
        self.done = False
        self.reward = 0.0
        self.seed: int | None = None
        self.started = time.time()
        self.messages: list[dict[str, str]] = []

    def start(self, config_id: int | None = None, seed: int | None = None) -> str:
        """Reset to benchmark ``config_id`` (or a generated configuration from ``seed``); the first message."""
        if seed is None:
            seed = config_id
        options = None if config_id is None else {"config_id": int(config_id)}
        obs, self.info = self.env.reset(seed=seed, options=options)
        self.done, self.reward, self.seed, self.started = False, 0.0, seed, time.time()
        self.messages = [*self.chat.head(), {"role": "user", "content": self.chat.user_message(obs)}]
        return obs

    def start_draw(self, draw: Draw) -> str:
        """:meth:`start` one episode of :func:`draws`."""
        return self.start(draw.config_id, draw.seed)

    def send(self, reply: str) -> str:
        """Play the model's reply; the env's next message (its last one once :attr:`done`)."""
        if self.done:
            raise EpisodeOver(f"the episode of {self.env_id} has ended; start() a new one")
        obs, reward, terminated, truncated, self.info = self.env.step(reply)
        self.reward = float(reward)
        self.done = bool(terminated or truncated)
        self.messages.append({"role": "assistant", "content": reply})
        if not self.done:
            if self.context_reset:  # the model sees the conversation from here on only
                self.messages = self.chat.head()
            self.messages.append({"role": "user", "content": self.chat.user_message(obs)})
        return obs

    def prompt(self) -> list[dict[str, str]]:
        """The request for the model's next reply, as ``mtp-gym eval``'s chat agents send it."""
        return cap_history(self.messages, self.chat.max_history)

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
