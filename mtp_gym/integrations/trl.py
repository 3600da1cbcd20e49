"""TRL's GRPO on any env: a token-exact multi-turn rollout, train and eval datasets (``[rl]``).

TRL's ``GRPOTrainer`` scores single completions; an mtp-gym episode is a conversation. This
module gives the trainer what its ``rollout_func`` hook expects, one whole episode per
completion::

    from trl import GRPOConfig, GRPOTrainer
    from mtp_gym.integrations.trl import EnvRollout, REWARD_FUNCS, grpo_dataset

    env = "MTP/HiddenNumber-v0"
    trainer = GRPOTrainer(
        model=model,                                        # a causal LM
        processing_class=tokenizer,                         # with a chat template
        args=GRPOConfig(num_generations=4, per_device_train_batch_size=4, ...),
        train_dataset=grpo_dataset(env, "train", size=256, env_kwargs={"difficulty": 2}),
        eval_dataset=grpo_dataset(env, "eval", env_kwargs={"difficulty": 2}),
        reward_funcs=REWARD_FUNCS,                          # the env's score, the well-formed share
        rollout_func=EnvRollout(tokenizer, max_new_tokens=32),
    )

Datasets
    :func:`grpo_dataset` (or :func:`task_rows` for plain rows) makes one row per episode to
    play. ``"train"``: generated configurations (``configs="generated"``, reset from a seed),
    drawn so that none is a configuration of the benchmark split (same first message and same
    secret, :func:`generated_seeds`); ``"eval"``: the benchmark split that ``mtp-gym eval``
    plays (``split="full"`` or ``N``, stratified like ``--split N``), reset as the harness
    resets it. A row's ``prompt`` is a system message naming the task (:class:`Task`: env id,
    kwargs, configuration or seed) followed by the env's first message: the rollout reads the
    task from it, and TRL logs it. Envs, levels and splits can be mixed in one dataset.

Rollout
    :class:`EnvRollout` is ``rollout_func(prompts, trainer)``. TRL hands it each prompt
    ``num_generations`` times in a row (one GRPO group); it plays every episode of the batch in
    lockstep, one batched ``model.generate`` per round over the episodes still running, with the
    model being trained (sampling at ``GRPOConfig.temperature``, ``top_p``, ``top_k``). Each
    episode is kept as token ids from its first prompt on: the model's sampled tokens are
    appended as sampled, the env's replies and the chat template's glue (end of turn, the next
    user message, the next assistant header) as the template renders them. So
    ``prompt_ids + completion_ids`` are exactly the tokens the model was conditioned on and
    sampled, with ``env_mask`` 1 on the model's tokens and 0 on the env's (TRL keeps only the
    former in the loss). The completion ends with the model's last reply.

Rewards
    Each row's extras reach TRL's reward functions as keyword arguments: ``env_score`` (the
    env's final score, 1 = solved), ``valid_share`` (share of the model's replies the env read as
    well-formed), ``outcome``, ``turns``, ``format_errors``, ``replies``. :data:`REWARD_FUNCS`
    is ``[env_score, valid_share]``; weight them with ``GRPOConfig(reward_weights=...)``.

Limits
    No ``max_history``: an episode that outgrows the model's context window
    (``max_position_embeddings``) ends there, outcome ``"context_overflow"``, on the model's
    last reply. A probe that restarts the conversation (``info["context_reset"]``) cannot be
    one token sequence: the rollout raises a ``ValueError`` for it. Generation runs inside
    TRL's ``unwrap_model_for_generation`` (gradient checkpointing off, so the KV cache is
    used); ``logprobs`` is ``None`` (the sampler is the trained model itself, as in TRL's own
    non-vLLM generation).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mtp_gym.core import check_int
from mtp_gym.integrations.session import (
    ChatSettings,
    EnvSession,
    configurations,
    env_id_of,
    generated_seeds,
    without_configs,
)

__all__ = [
    "REWARD_FUNCS",
    "TASK_TAG",
    "EnvRollout",
    "Task",
    "TokenConversation",
    "TokenEpisode",
    "env_score",
    "generated_seeds",
    "grpo_dataset",
    "task_rows",
    "valid_share",
]


#: The start of the system message that names a row's task in its ``prompt``.
TASK_TAG = "mtp-gym task: "
SPLIT_ROLES = ("train", "eval")


# ------------------------------------------------------------------------------------ tasks
@dataclass(frozen=True)
class Task:
    """One episode to play: benchmark ``config_id`` (reset with ``seed=config_id``, as the
    harness does), or a generated configuration (``config_id`` ``None``) reset from ``seed``."""

    env_id: str
    env_kwargs: Mapping[str, Any] = field(default_factory=dict)
    config_id: int | None = None
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.config_id is None and self.seed is None:
            raise ValueError("Task: give config_id (a benchmark configuration) or seed (a generated one)")

    def to_json(self) -> str:
        return json.dumps(
            {
                "env_id": self.env_id,
                "env_kwargs": dict(self.env_kwargs),
                "config_id": self.config_id,
                "seed": self.seed,
            },
            sort_keys=True,
        )

    @classmethod
    def from_json(cls, text: str) -> Task:
        d = json.loads(text)
        return cls(d["env_id"], dict(d.get("env_kwargs") or {}), d.get("config_id"), d.get("seed"))

    @classmethod
    def from_prompt(cls, prompt: Any) -> Task:
        """The task a :func:`task_rows` prompt names (its message starting with :data:`TASK_TAG`)."""
        messages = [prompt] if isinstance(prompt, str) else list(prompt)
        for m in messages:
            content = m if isinstance(m, str) else m.get("content")
            if isinstance(content, str) and content.startswith(TASK_TAG):
                return cls.from_json(content[len(TASK_TAG) :])
        raise ValueError(
            f"a prompt without a task: its messages must include one starting with {TASK_TAG!r} "
            "(build the dataset with mtp_gym.integrations.trl.grpo_dataset or task_rows)"
        )

    def start(self, session: EnvSession) -> str:
        """Reset ``session`` to this task; the env's first message."""
        return session.start(config_id=self.config_id, seed=self.seed)


def task_rows(
    env_id: str,
    split: str = "train",
    *,
    size: int | None = None,
    env_kwargs: Mapping[str, Any] | None = None,
    benchmark: str | int = "full",
    seed: int = 0,
) -> list[dict[str, Any]]:
    """One row per episode: ``{"prompt", "env_id", "config_id", "seed"}`` (see the module docstring).

    Args:
        env_id: a registered id or task name (``"hidden_number"``).
        split: ``"train"`` (``size`` generated configurations, :func:`generated_seeds` from
            ``seed``) or ``"eval"`` (the benchmark ``benchmark`` split: ``"full"`` or ``N``).
        env_kwargs: ``gym.make`` kwargs (a level, ``max_turns``, a probe); for ``"train"``
            ``configs="generated"`` is added.
    """
    env_id = env_id_of(env_id)
    kwargs = without_configs(env_kwargs or {})
    if split == "train":
        if size is None:
            raise ValueError("task_rows: split='train' needs size (how many generated configurations)")
        kwargs["configs"] = "generated"
        tasks = [Task(env_id, kwargs, None, s) for s in generated_seeds(env_id, size, kwargs, seed)]
    elif split == "eval":
        ids = configurations(env_id, kwargs, benchmark)
        tasks = [Task(env_id, kwargs, c, c) for c in (ids if size is None else ids[:size])]
    else:
        raise ValueError(f"split={split!r} is not supported; allowed: {list(SPLIT_ROLES)}")
    session = EnvSession(env_id, kwargs)
    rows = []
    try:
        for task in tasks:
            first = task.start(session)
            rows.append(
                {
                    "prompt": [
                        {"role": "system", "content": TASK_TAG + task.to_json()},
                        {"role": "user", "content": first},
                    ],
                    "env_id": env_id,
                    "config_id": task.config_id,
                    "seed": task.seed,
                }
            )
    finally:
        session.close()
    return rows


def grpo_dataset(
    env_id: str,
    split: str = "train",
    *,
    size: int | None = None,
    env_kwargs: Mapping[str, Any] | None = None,
    benchmark: str | int = "full",
    seed: int = 0,
) -> Any:
    """:func:`task_rows` as a ``datasets.Dataset`` (``train_dataset`` / ``eval_dataset`` of ``GRPOTrainer``)."""
    from datasets import Dataset

    rows = task_rows(env_id, split, size=size, env_kwargs=env_kwargs, benchmark=benchmark, seed=seed)
    return Dataset.from_list(rows)


# ------------------------------------------------------------------------ token conversation
class TokenConversation:
    """One episode's conversation kept as the token ids the model saw.

    It opens with the chat template's rendering of ``messages`` (with the generation prompt);
    :meth:`add_reply` appends sampled ids as they are (mask 1), :meth:`add_user` the glue to
    the next generation (mask 0): the text the template puts between an assistant message and
    the next generation prompt, the user message included. Nothing is re-tokenized, so the ids
    are exactly what the model was conditioned on.
    """

    _MARKER = "\x00MTP-GYM-REPLY\x00"

    def __init__(self, tokenizer: Any, messages: list[dict[str, str]], stop_ids: Iterable[int] = ()) -> None:
        self.tokenizer = tokenizer
        self.messages = [dict(m) for m in messages]
        self.ids: list[int] = self._encode(self._render(self.messages))
        self.prompt_len = len(self.ids)
        self.mask: list[int] = []
        #: The tokens a reply stops at (end of turn): one the model sampled replaces the template's.
        self.stop_ids = set(stop_ids) | ({tokenizer.eos_token_id} if tokenizer.eos_token_id is not None else set())

    def _render(self, messages: list[dict[str, str]]) -> str:
        return self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)

    def _encode(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def add_reply(self, ids: Sequence[int]) -> str:
        """Append the model's sampled ``ids``; their text (special tokens dropped)."""
        self.ids += list(ids)
        self.mask += [1] * len(ids)
        text = self.tokenizer.decode(list(ids), skip_special_tokens=True)
        self.messages.append({"role": "assistant", "content": text})
        return text

    def add_user(self, content: str) -> None:
        """Append the env's next message (and the template's glue around it)."""
        head = self.messages[:-1]
        text = self._render(
            [*head, {"role": "assistant", "content": self._MARKER}, {"role": "user", "content": content}]
        )
        if self._MARKER not in text:
            raise ValueError("the tokenizer's chat template drops the assistant's reply; it cannot render an episode")
        glue = text.split(self._MARKER, 1)[1]
        last = self.ids[-1] if self.mask and self.mask[-1] == 1 else None
        if last is not None and last in self.stop_ids:
            # The model ended its turn with the token the template closes it with: keep its own.
            end = self.tokenizer.decode([last], skip_special_tokens=False)
            if end and glue.startswith(end):
                glue = glue[len(end) :]
        ids = self._encode(glue)
        self.ids += ids
        self.mask += [0] * len(ids)
        self.messages.append({"role": "user", "content": content})

    def drop_last_user(self) -> None:
        """Take back the last :meth:`add_user` (the episode ends on the model's last reply)."""
        while self.mask and self.mask[-1] == 0:
            self.mask.pop()
            self.ids.pop()
        if self.messages[-1]["role"] == "user":
            self.messages.pop()

    @property
    def prompt_ids(self) -> list[int]:
        return self.ids[: self.prompt_len]

    @property
    def completion_ids(self) -> list[int]:
        return self.ids[self.prompt_len :]

    @property
    def env_mask(self) -> list[int]:
        """1 on the model's sampled tokens, 0 on the env's and the template's (per completion id)."""
        return list(self.mask)


@dataclass
class TokenEpisode:
    """One played episode: its tokens, mask, text and score."""

    task: Task
    member: int
    prompt_ids: list[int]
    completion_ids: list[int]
    env_mask: list[int]
    #: The conversation as the model saw it (system prompt, examples, env messages, its replies).
    messages: list[dict[str, str]]
    score: float
    #: The env's outcome, or why the rollout ended the episode first: ``"max_turns"`` (its reply
    #: cap) or ``"context_overflow"`` (the next reply would not fit the model's context window).
    outcome: str
    turns: int
    format_errors: int
    replies: int
    seconds: float

    @property
    def valid_share(self) -> float:
        """Share of the model's replies the env read as well-formed."""
        return 1.0 - self.format_errors / max(1, self.replies)


class _Running:
    """An episode in play: its env session and token conversation."""

    def __init__(self, task: Task, member: int, conversation: TokenConversation, session: EnvSession) -> None:
        self.task, self.member, self.conversation, self.session = task, member, conversation, session
        self.replies = 0
        #: Why the rollout ended the episode before the env did (``"max_turns"``, ``"context_overflow"``).
        self.stopped: str | None = None
        self.started = time.perf_counter()

    def episode(self) -> TokenEpisode:
        info = self.session.info
        c = self.conversation
        return TokenEpisode(
            task=self.task,
            member=self.member,
            prompt_ids=c.prompt_ids,
            completion_ids=c.completion_ids,
            env_mask=c.env_mask,
            messages=[dict(m) for m in c.messages],
            score=float(info.get("score", 0.0)),
            outcome=self.stopped or str(info.get("outcome")),
            turns=int(info.get("turn", 0)),
            format_errors=int(info.get("format_errors", 0)),
            replies=self.replies,
            seconds=time.perf_counter() - self.started,
        )


def _context_window(model: Any) -> int | None:
    """The model's context window in tokens (``max_position_embeddings``), if its config says."""
    config = getattr(model, "config", None)
    if config is not None and callable(getattr(config, "get_text_config", None)):
        config = config.get_text_config()
    window = getattr(config, "max_position_embeddings", None)
    return window if isinstance(window, int) and not isinstance(window, bool) and window > 0 else None


def _groups(prompts: Sequence[Any], size: int) -> list[tuple[Task, int]]:
    """``(task, member)`` per prompt: consecutive equal prompts (up to ``size``) are one group."""
    out: list[tuple[Task, int]] = []
    previous: str | None = None
    for p in prompts:
        task = Task.from_prompt(p)
        key = task.to_json()
        member = out[-1][1] + 1 if out and key == previous and out[-1][1] + 1 < size else 0
        out.append((task, member))
        previous = key
    return out


# ----------------------------------------------------------------------------------- rollout
class EnvRollout:
    """TRL's ``rollout_func``: plays each prompt's task as a whole episode (see the module docstring).

    Args:
        tokenizer: the model's tokenizer, with a chat template.
        max_new_tokens: tokens per model reply.
        max_turns: at most this many model replies per episode (format-error re-prompts
            included); the episode then ends with outcome ``"max_turns"`` and the env's score so
            far. ``None``: the env's own limits only.
        prompt_style: ``"plain"``, ``"answer_only"`` or ``"cot"``, as ``mtp-gym eval
            --prompt-style`` sets it (its suffix on every env message, the env's own variant where
            the paper has one); ``system_prompt`` opens the chat.
        examples: messages shown before every episode (an in-context demonstration, e.g. an
            oracle episode from :func:`mtp_gym.rollout.to_sft`); the episode's first message
            then starts with ``"New game."``.
        batch_size: episodes per ``generate`` call (``None``: all running ones).
        seed: base seed of the sampling (with the trainer's step: reruns repeat).

    ``log`` holds one summary per call (step, mode, episodes, mean score and well-formed share,
    outcomes, seconds, each episode's model and completion tokens) and
    ``episodes`` the last call's :class:`TokenEpisode` list.
    """

    def __init__(
        self,
        tokenizer: Any,
        *,
        max_new_tokens: int = 32,
        max_turns: int | None = None,
        prompt_style: str = "plain",
        system_prompt: str | None = None,
        examples: list[dict[str, str]] | None = None,
        batch_size: int | None = None,
        seed: int = 0,
    ) -> None:
        check_int("max_new_tokens", max_new_tokens)
        if max_turns is not None:
            check_int("max_turns", max_turns)
        if batch_size is not None:
            check_int("batch_size", batch_size)
        if tokenizer.eos_token_id is None and tokenizer.pad_token_id is None:
            raise ValueError("tokenizer: needs an eos or pad token")
        self.tokenizer = tokenizer
        self.max_new_tokens = max_new_tokens
        self.max_turns = max_turns
        self.chat = ChatSettings(prompt_style, system_prompt)
        self.examples = [dict(m) for m in examples or []]
        self.batch_size = batch_size
        self.seed = seed
        self.log: list[dict[str, Any]] = []
        self.episodes: list[TokenEpisode] = []
        # TRL warns that ``rollout_func`` is experimental; using that hook is what this class is for.
        os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")

    # -------------------------------------------------------------- TRL's hook
    def __call__(self, prompts: list[Any], trainer: Any) -> dict[str, Any]:
        from trl.models import unwrap_model_for_generation

        training = bool(trainer.model.training)
        size = trainer.num_generations if training else trainer.num_generations_eval
        args = trainer.args
        step = int(trainer.state.global_step)
        start = time.perf_counter()
        # TRL's own generation context: gradient checkpointing off (else no KV cache), ZeRO-3 gathered.
        with unwrap_model_for_generation(
            trainer.model_wrapped,
            trainer.accelerator,
            gather_deepspeed3_params=getattr(args, "ds3_gather_for_generation", True),
            gradient_checkpointing_kwargs=getattr(args, "gradient_checkpointing_kwargs", None),
        ) as model:
            episodes = self.play(
                model,
                _groups(prompts, size),
                temperature=float(getattr(args, "temperature", 1.0)),
                top_p=float(getattr(args, "top_p", 1.0) or 1.0),
                top_k=int(getattr(args, "top_k", 0) or 0),
                round_seed=self.seed * 1_000_003 + step * 2 + (0 if training else 1),
            )
        scores = [e.score for e in episodes]
        self.log.append(
            {
                "step": step + 1 if training else step,
                "mode": "train" if training else "eval",
                "episodes": len(episodes),
                "mean_score": sum(scores) / len(scores),
                "mean_valid_share": sum(e.valid_share for e in episodes) / len(episodes),
                "outcomes": {o: sum(e.outcome == o for e in episodes) for o in sorted({e.outcome for e in episodes})},
                "rollout_seconds": time.perf_counter() - start,
                "model_tokens": [sum(e.env_mask) for e in episodes],
                "completion_tokens": [len(e.completion_ids) for e in episodes],
            }
        )
        return {
            "prompt_ids": [e.prompt_ids for e in episodes],
            "completion_ids": [e.completion_ids for e in episodes],
            "env_mask": [e.env_mask for e in episodes],
            "logprobs": None,  # the sampler is the trained model itself
            "env_score": scores,
            "valid_share": [e.valid_share for e in episodes],
            "outcome": [e.outcome for e in episodes],
            "turns": [e.turns for e in episodes],
            "format_errors": [e.format_errors for e in episodes],
            "replies": [e.replies for e in episodes],
        }

    # -------------------------------------------------------------- the episodes
    def _opening(self, first: str) -> list[dict[str, str]]:
        if self.examples:
            first = f"New game.\n{first}"
        return [*self.chat.head(), *self.examples, {"role": "user", "content": self.chat.user_message(first)}]

    def play(
        self,
        model: Any,
        tasks: Iterable[Task | tuple[Task, int]],
        *,
        temperature: float = 1.0,
        top_p: float = 1.0,
        top_k: int = 0,
        round_seed: int = 0,
    ) -> list[TokenEpisode]:
        """Play every task (a :class:`Task`, or ``(task, group member)``) to its end with
        ``model`` (anything with transformers' ``generate`` and a ``device``), in lockstep;
        the episodes in the order given."""
        stops = self._stop_ids(model)
        running: list[_Running] = []
        for item in tasks:
            task, member = item if isinstance(item, tuple) else (item, 0)
            session = EnvSession(task.env_id, dict(task.env_kwargs), self.chat)
            conversation = TokenConversation(self.tokenizer, self._opening(task.start(session)), stops)
            running.append(_Running(task, member, conversation, session))
        was_training = bool(getattr(model, "training", False))
        if hasattr(model, "eval"):
            model.eval()
        try:
            rounds = 0
            window = _context_window(model)
            while True:
                active = [r for r in running if not r.session.done and r.stopped is None]
                if window is not None:
                    for r in active:
                        if len(r.conversation.ids) + self.max_new_tokens > window:
                            if not r.replies:
                                raise ValueError(
                                    f"{r.task.env_id}: the first prompt ({len(r.conversation.ids)} tokens) and "
                                    f"max_new_tokens={self.max_new_tokens} exceed the model's context ({window})"
                                )
                            r.stopped = "context_overflow"
                            r.conversation.drop_last_user()
                    active = [r for r in active if r.stopped is None]
                if not active:
                    break
                chunk = self.batch_size or len(active)
                for i in range(0, len(active), chunk):
                    part = active[i : i + chunk]
                    seed = int(np.random.SeedSequence([round_seed, rounds, i]).generate_state(1)[0])
                    batch = [r.conversation.ids for r in part]
                    replies = self._generate(model, batch, stops, temperature, top_p, top_k, seed)
                    for r, ids in zip(part, replies):
                        self._step(r, ids)
                rounds += 1
        finally:
            if was_training and hasattr(model, "train"):
                model.train()
            for r in running:
                r.session.close()
        self.episodes = [r.episode() for r in running]
        return self.episodes

    def _step(self, r: _Running, ids: list[int]) -> None:
        text = r.conversation.add_reply(ids)
        r.replies += 1
        obs = r.session.send(text)
        if r.session.done:
            return
        if r.session.context_reset:
            raise ValueError(
                f"{r.task.env_id} with env_kwargs={dict(r.task.env_kwargs)} restarts the conversation "
                "(info['context_reset']); an episode that does cannot be one token sequence"
            )
        if self.max_turns is not None and r.replies >= self.max_turns:
            r.stopped = "max_turns"
            return
        r.conversation.add_user(self.chat.user_message(obs))

    def _stop_ids(self, model: Any) -> set[int]:
        """The tokenizer's end of sequence and the model's generation config's."""
        stops = {self.tokenizer.eos_token_id} if self.tokenizer.eos_token_id is not None else set()
        config_eos = getattr(getattr(model, "generation_config", None), "eos_token_id", None)
        if config_eos is not None:
            stops |= set(config_eos) if isinstance(config_eos, list | tuple) else {int(config_eos)}
        return stops

    def _generate(
        self,
        model: Any,
        batch: list[list[int]],
        eos: set[int],
        temperature: float,
        top_p: float,
        top_k: int,
        seed: int,
    ) -> list[list[int]]:
        """One sampled reply per sequence of ``batch`` (left-padded into one ``generate`` call),
        cut after its first stop token (``eos``)."""
        import torch

        tok = self.tokenizer
        pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
        width = max(len(ids) for ids in batch)
        input_ids = torch.tensor([[pad] * (width - len(ids)) + ids for ids in batch], dtype=torch.long)
        attention = torch.tensor([[0] * (width - len(ids)) + [1] * len(ids) for ids in batch], dtype=torch.long)
        device = getattr(model, "device", None)
        if device is not None:
            input_ids, attention = input_ids.to(device), attention.to(device)
        devices = [device] if device is not None and getattr(device, "type", "cpu") == "cuda" else []
        with torch.random.fork_rng(devices=devices), torch.no_grad():
            torch.manual_seed(seed)
            out = model.generate(
                input_ids=input_ids,
                attention_mask=attention,
                max_new_tokens=self.max_new_tokens,
                do_sample=True,
                temperature=temperature,
                top_p=top_p,
                top_k=top_k,
                pad_token_id=pad,
                use_cache=True,
            )
        replies = []
        for row in out[:, width:].tolist():
            cut = next((i for i, t in enumerate(row) if t in eos), None)
            if cut is not None:
                row = row[: cut + 1]
            elif pad not in eos:
                while row and row[-1] == pad:
                    row.pop()
            replies.append(row)
        return replies


# ----------------------------------------------------------------------------------- rewards
def env_score(completions: list[Any], env_score: list[float], **kwargs: Any) -> list[float]:
    """The env's final score of each episode (1 = solved)."""
    return [float(s) for s in env_score]


def valid_share(completions: list[Any], valid_share: list[float], **kwargs: Any) -> list[float]:
    """Share of the episode's replies the env read as well-formed."""
    return [float(s) for s in valid_share]


#: TRL reward functions over :class:`EnvRollout`'s extras: the env's score, the well-formed share.
REWARD_FUNCS: list[Callable[..., list[float]]] = [env_score, valid_share]
