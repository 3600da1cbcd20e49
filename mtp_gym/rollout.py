"""Rollouts for LLM trainers: seeded groups of episodes, chat messages, per-turn rewards, export.

Collect
    :func:`collect` plays ``group_size`` episodes of each configuration (one *group*, as GRPO
    compares completions of the same prompt) with any :class:`mtp_gym.episode.Policy`, concurrently,
    and returns one :class:`Episode` per episode, ordered by ``(group_id, member)`` whatever the
    concurrency. Episodes are played by :func:`mtp_gym.episode.run_episode` (the same loop as
    every evaluation: the policy sees ``info`` without ``hidden``)::

        from mtp_gym.rollout import collect, to_dataset, to_sft

        eps = collect("MTP/HiddenNumber-v0", "oracle", config_ids=range(8), group_size=4,
                      seed=0, workers=2, env_kwargs={"difficulty": 1})
        ds = to_dataset(eps)                # a datasets.Dataset, one row per episode
        sft = to_sft(eps)                   # TRL conversational SFT rows: {"messages": [...]}

Policies
    ``policy`` is an agent spec for :func:`mtp_gym.agents.make_agent` (``"oracle"``, ``"random"``,
    ``"hf:smollm2"``, ``"openai:MODEL"``, ``"py:module:factory"``), an
    :class:`mtp_gym.eval.harness.AgentConfig`, or a zero-argument callable returning a policy.
    Each worker builds its env and policy once per :func:`collect` call and reuses them across
    its episodes, so a callable must return a new policy on every call when ``workers`` > 1
    (a shared stateful policy would mix the concurrent episodes' conversations).

Seeds
    Group ``g`` of a run with ``seed`` gets the env seed ``env_seed = SeedSequence([seed, g, 0])``
    (its first 32-bit word), shared by all its members: they play the same configuration (benchmark
    ``config_ids[g]``, or with ``config_ids=None`` the generated configuration that
    ``reset(seed=env_seed)`` draws) with the same env randomness. Member ``k`` gets its own
    policy seed ``SeedSequence([seed, g, 1, k])``, passed to ``policy.reset(seed)``, so sampled
    policies differ within a group and every run with the same arguments repeats exactly
    (scripted policies, and sampled models on the same hardware).

Concurrency
    ``workers`` > 1 runs episodes on a bounded pool (at most ``2 × workers`` episodes in flight):
    threads for model agents and callables (they wait on an endpoint or share one model),
    processes for scripted agent specs (CPU-bound), as the ``mtp-gym eval`` harness chooses
    (``executor="auto"``; ``"thread"`` / ``"process"`` force one; a callable must be picklable
    for processes).

Records
    :class:`Episode` fields: ``env_id``, ``agent``, ``group_id``, ``member``, ``config_id``
    (``None`` for generated configurations), ``env_seed``, ``policy_seed``, ``messages`` (chat
    messages ``{"role", "content"}``: the policy's system prompt if it has one, then the env
    transcript, the env's text as ``user`` and each action as ``assistant``, passed through the
    policy's prompt style as the model saw it; format-error re-prompts included), ``rewards``
    (one per ``env.step``, i.e. per assistant message), ``reward`` (their sum), ``score`` (the
    env's final score; equal to ``reward`` for every env here), ``outcome``, ``turns``,
    ``format_errors``, ``seconds``, token counts and ``error`` (``infra_error`` episodes: score
    ``None``; :func:`collect` keeps them, filter them out before training) and ``extra`` (what
    the policy's optional ``rollout_extra()`` returns after the episode: token ids, masks, ...).
    The secret state (``info["hidden"]``) is not recorded.

    An :class:`Episode` is a trainer's view of a rollout (messages as the policy saw them,
    per-step rewards, group and policy seeds, token-level extras), not the evaluation log's
    record: :meth:`Episode.to_record` gives the :class:`mtp_gym.eval.record.EpisodeRecord`
    of a benchmark episode, for the log and the report.

Export
    :func:`save_jsonl` / :func:`load_jsonl` (one JSON object per line) and :func:`to_dataset` /
    :func:`from_dataset` (Hugging Face ``datasets``, optional: ``pip install datasets``) round-trip
    the records. :func:`to_sft` turns episodes into TRL's conversational SFT format (``messages``
    ending with the last assistant turn; by default successful episodes only, so oracle rollouts
    are expert demonstrations). :func:`prompt_rows` builds GRPO prompt rows (the first
    observation of each configuration as a conversational ``prompt``).
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, cast

import gymnasium as gym
import numpy as np

import mtp_gym  # noqa: F401  (registers the ids)
from mtp_gym.core import check_choice, check_int
from mtp_gym.episode import INFRA_ERROR, run_episode
from mtp_gym.eval.harness import EXECUTORS, AgentConfig, bounded_map, process_worker
from mtp_gym.eval.log import to_jsonable
from mtp_gym.eval.record import EpisodeRecord, task_of

__all__ = [
    "Episode",
    "collect",
    "group_seeds",
    "save_jsonl",
    "load_jsonl",
    "to_dataset",
    "from_dataset",
    "to_sft",
    "prompt_rows",
]

PolicySource = str | AgentConfig | Callable[[], Any]


@dataclass
class Episode:
    """One collected episode, as a trainer reads it (see the module docstring for the fields)."""

    env_id: str
    agent: str
    group_id: int
    member: int
    config_id: int | None
    env_seed: int
    policy_seed: int
    messages: list[dict[str, str]]
    rewards: list[float]
    reward: float
    score: float | None
    outcome: str
    turns: int
    format_errors: int
    seconds: float
    prompt_tokens: int = 0
    completion_tokens: int = 0
    error: str | None = None
    #: What the policy's ``rollout_extra()`` returned after the episode (e.g. token ids and
    #: loss masks for an RL trainer), else ``None``.
    extra: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Episode:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in names})

    def to_record(self, env_kwargs: dict[str, Any] | None = None) -> EpisodeRecord:
        """The evaluation record of this episode (a benchmark configuration's), its task stamped
        from ``env_kwargs`` (those :func:`collect` was given); member ``k`` of its group is
        sample ``k`` of the configuration. The chat messages stand for the transcript."""
        if self.config_id is None:
            raise ValueError("to_record: a generated configuration (config_id None) has no benchmark record")
        _, level, probe = task_of(self.env_id, env_kwargs or {})
        return EpisodeRecord(
            agent=self.agent,
            env_id=self.env_id,
            config_id=self.config_id,
            sample=self.member,
            seed=self.env_seed,
            outcome=self.outcome,
            score=self.score,
            turns=self.turns,
            format_errors=self.format_errors,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            seconds=self.seconds,
            error=self.error,
            transcript=list(self.messages),
            level=level,
            probe=probe,
        )


def group_seeds(seed: int, group_id: int, group_size: int) -> tuple[int, list[int]]:
    """``(env_seed, [policy_seed per member])`` of group ``group_id`` (see "Seeds" above)."""
    env_seed = int(np.random.SeedSequence([seed, group_id, 0]).generate_state(1)[0])
    members = [int(np.random.SeedSequence([seed, group_id, 1, k]).generate_state(1)[0]) for k in range(group_size)]
    return env_seed, members


class _FixedSeed:
    """Passes a fixed seed to the wrapped policy's ``reset``: the env gets the group's seed,
    the policy its member seed. Everything else is the wrapped policy's."""

    def __init__(self, policy: Any, seed: int) -> None:
        self.policy, self.seed = policy, seed

    def reset(self, seed: int | None = None) -> None:
        self.policy.reset(seed=self.seed)

    def act(self, observation: str, info: dict[str, Any]) -> str:
        return self.policy.act(observation, info)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.policy, name)


def _chat_messages(transcript: list[dict[str, str]], policy: Any) -> list[dict[str, str]]:
    """The episode as the policy's model saw it, plus the env's last reply.

    A chat policy (``history``: its system prompt, any in-context examples, the env's text as
    its prompt style rewrote it, its replies) gives its own history when its replies are the
    transcript's actions; any other policy gets the env transcript (with the ``style``'s
    system prompt and suffix if it has one).
    """
    style: Any = getattr(policy, "style", None)
    history = getattr(policy, "history", None)
    actions = [m["content"] for m in transcript if m["role"] == "assistant"]
    if (
        isinstance(history, list)
        and actions
        and [m["content"] for m in history if m["role"] == "assistant"][-len(actions) :] == actions
    ):
        messages = [dict(m) for m in history]
        last = transcript[-1]
        if last["role"] == "user" and messages[-1]["role"] == "assistant":
            content = style.user_message(last["content"]) if hasattr(style, "user_message") else last["content"]
            messages.append({"role": "user", "content": content})
        return messages
    messages = []
    if style is not None and getattr(style, "system_prompt", None):
        messages.append({"role": "system", "content": style.system_prompt})
    for m in transcript:
        content = m["content"]
        if m["role"] == "user" and hasattr(style, "user_message"):
            content = style.user_message(content)
        messages.append({"role": m["role"], "content": content})
    return messages


# Per-worker (thread or process) envs and policies, built once and reused across episodes.
_LOCAL = threading.local()


def _build_policy(source: AgentConfig | Callable[[], Any], env_id: str) -> Any:
    if isinstance(source, AgentConfig):
        return source.build(env_id)
    return source()


def _play(
    source: AgentConfig | Callable[[], Any], label: str, env_id: str, env_kwargs: dict[str, Any], run: str, task: tuple
) -> dict[str, Any]:
    """Play one group member and return its record as a dict (worker entry point).

    Each worker keeps the env and policy of the current :func:`collect` call (``run``) only.
    """
    group_id, member, config_id, env_seed, policy_seed = task
    if getattr(_LOCAL, "run", None) != run:
        _LOCAL.run = run
        _LOCAL.pair = (gym.make(env_id, **env_kwargs), _build_policy(source, env_id))
    env, policy = _LOCAL.pair
    result = run_episode(env, _FixedSeed(policy, policy_seed), config_id=config_id, seed=env_seed)
    score = None if result.outcome == INFRA_ERROR else float(result.score)
    return Episode(
        env_id=env_id,
        agent=label,
        group_id=group_id,
        member=member,
        config_id=result.config_id,
        env_seed=env_seed,
        policy_seed=policy_seed,
        messages=_chat_messages(result.transcript, policy),
        rewards=result.rewards,
        reward=float(sum(result.rewards)),
        score=score,
        outcome=result.outcome,
        turns=result.turns,
        format_errors=result.format_errors,
        seconds=result.seconds,
        prompt_tokens=result.prompt_tokens,
        completion_tokens=result.completion_tokens,
        error=result.error,
        extra=policy.rollout_extra() if hasattr(policy, "rollout_extra") else None,
    ).to_dict()


def collect(
    env_id: str,
    policy: PolicySource,
    config_ids: Iterable[int] | None = None,
    group_size: int = 1,
    seed: int = 0,
    workers: int = 1,
    env_kwargs: dict[str, Any] | None = None,
    *,
    num_groups: int | None = None,
    executor: str = "auto",
    agent_kwargs: dict[str, Any] | None = None,
) -> list[Episode]:
    """Play ``group_size`` episodes per configuration with ``policy`` and return them all.

    Args:
        env_id: a registered ``MTP/*`` id; ``env_kwargs`` go to ``gym.make``.
        policy: an agent spec (with ``agent_kwargs``), an ``AgentConfig``, or a zero-argument
            callable returning a policy.
        config_ids: benchmark configurations, one group each; ``None``: ``num_groups``
            generated configurations (``reset(seed=env_seed)``; pass ``configs="generated"``
            in ``env_kwargs`` for an env that has a benchmark split).
        group_size: episodes per group (GRPO's number of generations).
        seed: base seed of the run (see "Seeds" in the module docstring).
        workers: concurrent episodes; ``executor``: ``"auto"``, ``"thread"`` or ``"process"``.
    """
    check_int("group_size", group_size)
    check_int("workers", workers)
    check_choice("executor", executor, EXECUTORS)
    env_kwargs = dict(env_kwargs or {})
    if config_ids is None:
        check_int("num_groups (with config_ids=None)", num_groups)
        group_configs: list[int | None] = [None for _ in range(cast(int, num_groups))]
    else:
        if num_groups is not None:
            raise ValueError("give config_ids or num_groups, not both")
        group_configs = [int(c) for c in config_ids]
    if isinstance(policy, str):
        policy = AgentConfig(policy, dict(agent_kwargs or {}))
    elif agent_kwargs:
        raise ValueError("agent_kwargs go with an agent spec string only")
    label = policy.label if isinstance(policy, AgentConfig) else getattr(policy, "__name__", type(policy).__name__)

    tasks = []
    for group_id, config_id in enumerate(group_configs):
        env_seed, member_seeds = group_seeds(seed, group_id, group_size)
        tasks += [(group_id, k, config_id, env_seed, s) for k, s in enumerate(member_seeds)]

    run = uuid.uuid4().hex
    kind = executor
    if kind == "auto":
        # Endpoints and shared models wait or serialize (threads); scripted agents use the CPU.
        kind = "process" if isinstance(policy, AgentConfig) and not policy.is_model() else "thread"
    records: list[dict[str, Any]] = []
    if workers == 1 and executor != "process":
        try:
            records = [_play(policy, label, env_id, env_kwargs, run, t) for t in tasks]
        finally:
            _LOCAL.run = _LOCAL.pair = None
    else:
        pool = (
            ThreadPoolExecutor(workers)
            if kind == "thread"
            else ProcessPoolExecutor(workers, initializer=process_worker)  # one BLAS thread each
        )
        try:
            calls = ((policy, label, env_id, env_kwargs, run, task) for task in tasks)
            bounded_map(pool, _play, calls, 2 * workers, records.append)
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
    records.sort(key=lambda r: (r["group_id"], r["member"]))
    return [Episode.from_dict(r) for r in records]


# ---------------------------------------------------------------------------------- export
def _dicts(episodes: Iterable[Episode | dict[str, Any]]) -> list[dict[str, Any]]:
    return [e.to_dict() if isinstance(e, Episode) else dict(e) for e in episodes]


def save_jsonl(episodes: Iterable[Episode | dict[str, Any]], path: str | Path) -> Path:
    """Write one JSON object per episode (NaN/inf as ``null``); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for d in _dicts(episodes):
            f.write(json.dumps(to_jsonable(d), ensure_ascii=False) + "\n")
    return path


def load_jsonl(path: str | Path) -> list[Episode]:
    """Read what :func:`save_jsonl` wrote."""
    with Path(path).open(encoding="utf-8") as f:
        return [Episode.from_dict(json.loads(line)) for line in f if line.strip()]


def to_dataset(episodes: Iterable[Episode | dict[str, Any]]) -> Any:
    """A Hugging Face ``datasets.Dataset``, one row per episode (needs ``pip install datasets``)."""
    from datasets import Dataset

    rows = [to_jsonable(d) for d in _dicts(episodes)]
    for row in rows:  # its keys vary by policy: one JSON text column keeps the schema fixed
        row["extra"] = None if row.get("extra") is None else json.dumps(row["extra"])
    return Dataset.from_list(rows)


def from_dataset(dataset: Any) -> list[Episode]:
    """The episodes of a dataset made by :func:`to_dataset` (or loaded back from disk / the Hub)."""
    episodes = []
    for row in dataset:
        row = dict(row)
        if isinstance(row.get("extra"), str):
            row["extra"] = json.loads(row["extra"])
        episodes.append(Episode.from_dict(row))
    return episodes


def to_sft(
    episodes: Iterable[Episode | dict[str, Any]],
    *,
    min_score: float | None = 1.0,
    drop_invalid: bool = True,
    as_dataset: bool = False,
) -> list[dict[str, Any]] | Any:
    """TRL's conversational SFT rows ``{"messages": [...]}`` from collected episodes.

    Keeps episodes with ``score >= min_score`` (``None``: all but ``infra_error``); each
    conversation ends with the last assistant message (the env's final reply is dropped).
    ``drop_invalid`` also drops any assistant message the env rejected as malformed, with
    its re-prompt, so a demonstration teaches only well-formed moves. ``as_dataset``
    returns a ``datasets.Dataset``.
    """
    rows = []
    for d in _dicts(episodes):
        if d["outcome"] == INFRA_ERROR or (min_score is not None and (d["score"] is None or d["score"] < min_score)):
            continue
        messages = list(d["messages"])
        if drop_invalid:
            messages = _drop_rejected(messages)
        while messages and messages[-1]["role"] != "assistant":
            messages.pop()
        if any(m["role"] == "assistant" for m in messages):
            rows.append({"messages": messages})
    if as_dataset:
        from datasets import Dataset

        return Dataset.from_list(rows)
    return rows


#: Every re-prompt of a malformed action starts with this (``mtp_gym.core.FormatErrors.reject``).
_REJECT_PREFIX = "Invalid action: "


def _drop_rejected(messages: list[dict[str, str]]) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    i = 0
    while i < len(messages):
        m = messages[i]
        nxt = messages[i + 1] if i + 1 < len(messages) else None
        if (
            m["role"] == "assistant"
            and nxt is not None
            and nxt["role"] == "user"
            and nxt["content"].startswith(_REJECT_PREFIX)
        ):
            i += 2
            continue
        out.append(m)
        i += 1
    return out


def prompt_rows(
    env_id: str,
    config_ids: Sequence[int],
    env_kwargs: dict[str, Any] | None = None,
    system_prompt: str | None = None,
) -> list[dict[str, Any]]:
    """GRPO prompt rows ``{"prompt": [messages], "config_id": i}``: the first observation of each
    benchmark configuration (``datasets.Dataset.from_list`` turns them into a train set)."""
    env = gym.make(env_id, **(env_kwargs or {}))
    rows = []
    for config_id in config_ids:
        obs, _ = env.reset(options={"config_id": int(config_id)})
        head = [{"role": "system", "content": system_prompt}] if system_prompt else []
        rows.append({"prompt": head + [{"role": "user", "content": obs}], "config_id": int(config_id)})
    env.close()
    return rows
