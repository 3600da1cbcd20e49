"""Inspect AI tasks for every env: ``inspect eval mtp_gym/word_guess --model openai/gpt-4o``.

Install with ``pip install "mtp-gym[inspect]"``. Every registered id has a task named by
:func:`~mtp_gym.integrations.session.task_name` (``mtp_gym/word_guess``,
``mtp_gym/turing_machine``, ``mtp_gym/hidden_number``, ...), found by ``inspect eval``
through the package's ``inspect_ai`` entry point, and :func:`mtp_task` builds one for any
id and kwargs from Python.

* dataset: the env's benchmark configurations (``-T split=100`` for the stratified subset
  ``mtp-gym eval --split 100`` plays; ``-T configs=generated -T split=N``: N configurations
  generated from seeds, for training apart from the benchmark), each sample's input the
  first request;
* solver: the multi-turn loop through Inspect's model API: the model's reply is played, the
  env's answer comes back as the next user message, until the episode ends (the env's own
  turn budget and re-prompts, exactly as ``mtp-gym eval`` plays it). Each request is the one
  ``mtp-gym eval``'s chat agents send (:meth:`~mtp_gym.integrations.session.EnvSession.prompt`:
  the prompt style's suffix, the system prompt, the ``max_history`` cap); where the env starts
  a fresh context (``info["context_reset"]``, the necessity probe's phase 2) the model is sent
  that message alone (after the system prompt), while the log keeps the whole episode.
  Epoch ``e`` (``--epochs K`` or ``-T samples=K``) is ``mtp-gym eval --samples K``'s sample
  ``e - 1``: its reset seed is :func:`~mtp_gym.eval.splits.episode_seed` (with ``-T seed=S``
  as ``--seed S``), so the K epochs are K draws, not one draw K times;
* scorer: the env's score (``score``) and whether the episode was a success (``success``),
  with the outcome, turns, format errors, configuration id and reset seed as the score's
  metadata. A prompt that outgrows the model's context window ends the episode as
  ``context_overflow`` with score 0, as ``mtp-gym eval`` records it (Inspect's
  OpenAI-compatible providers turn the endpoint's 400 ``context_length_exceeded`` into an
  output stopped for ``model_length`` whose text is the error message: never played as a
  move); a model API error is Inspect's sample error, never a score.

Task arguments (``-T name=value``), as ``mtp-gym eval``'s options: ``split``, ``samples``,
``seed``, ``prompt_style`` (``plain``, ``answer_only``, ``cot``: the suffix, and the env's own
variant where it has one), ``system_prompt``, ``max_history`` (see :mod:`mtp_gym.history`),
``configs`` (``benchmark`` or ``generated``), and any env kwarg (``-T difficulty=3``,
``-T probe=noise``).

Against a local OpenAI-compatible server (llama.cpp, vLLM) use Inspect's ``openai-api``
provider (``--model openai-api/local/MODEL`` with ``LOCAL_BASE_URL`` and ``LOCAL_API_KEY``);
``openai/...`` speaks the Responses API, which such servers lack.
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser
from inspect_ai.scorer import Score, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver

from mtp_gym.episode import CONTEXT_OVERFLOW
from mtp_gym.eval.splits import episode_seed
from mtp_gym.integrations.session import (
    ChatSettings,
    EnvSession,
    draws,
    env_id_of,
    registered_ids,
    source_kwargs,
    task_name,
)

__all__ = ["mtp_env_score", "mtp_play", "mtp_task"]

#: Where the solver leaves the episode's result for the scorer.
RESULT_KEY = "mtp_gym_result"


def _chat(messages: list[dict[str, str]]) -> list[ChatMessage]:
    kinds = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}
    return [kinds[m["role"]](content=m["content"]) for m in messages]


def _dataset(
    env_id: str,
    env_kwargs: dict[str, Any],
    split: str | int,
    chat: ChatSettings,
    configs: str,
    epochs: int = 1,
    seed: int | None = None,
) -> MemoryDataset:
    """A sample per configuration (its input: sample 0's first message), with the reset seed of
    each of its ``epochs`` (:func:`~mtp_gym.integrations.session.draws`: generated
    configurations are never benchmark ones)."""
    session = EnvSession(env_id, env_kwargs, chat)
    samples = []
    every = draws(env_id, env_kwargs, split, epochs, seed, configs)  # each configuration's epochs in a row
    for start in range(0, len(every), epochs):
        draw = every[start]  # sample 0 of the configuration
        session.start_draw(draw)
        seeds = [d.seed for d in every[start : start + epochs]]
        metadata = {"config_id": draw.config_id, "index": draw.index, "seeds": seeds}
        sample_id = draw.index if draw.config_id is not None else draw.name  # generated: "g3"
        samples.append(Sample(input=_chat(session.messages), id=sample_id, metadata=metadata))
    session.close()
    return MemoryDataset(samples, name=task_name(env_id))


@solver
def mtp_play(
    env_id: str,
    env_kwargs: dict[str, Any] | None = None,
    max_history: int | None = None,
    prompt_style: str = "plain",
    system_prompt: str | None = None,
    seed: int | None = None,
) -> Solver:
    """Play the sample's configuration to the end, the env answering every model reply; epoch
    ``e`` is sample ``e - 1`` of ``mtp-gym eval --samples`` (reset seed
    :func:`~mtp_gym.eval.splits.episode_seed` of the configuration, the sample and ``seed``)."""
    chat = ChatSettings(prompt_style, system_prompt, max_history)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        session = EnvSession(env_id, env_kwargs, chat)
        try:
            meta = state.metadata
            k = state.epoch - 1  # past the task's samples (`--epochs` above them): the harness's seeds
            seeds = meta.get("seeds", [])
            session.start(meta["config_id"], seeds[k] if k < len(seeds) else episode_seed(meta["index"], k, seed))
            log = _chat(session.messages)  # the whole episode, for the log
            overflow = False
            while not session.done:
                state.messages = _chat(session.prompt())
                state = await generate(state)
                if state.output.stop_reason == "model_length":
                    # the prompt outgrew the context window: Inspect's providers turn the
                    # endpoint's 400 into this stop reason, the error message as the text
                    overflow = True
                    break
                log.append(state.messages[-1])
                session.send(state.output.completion)
                if not session.done:
                    log.append(ChatMessageUser(content=session.messages[-1]["content"]))
            state.messages = log
            result = session.result().as_dict()
            if overflow:  # as `mtp-gym eval` records it: the model's failure, score 0
                result.update(score=0.0, outcome=CONTEXT_OVERFLOW)
            state.store.set(RESULT_KEY, {**result, "config_id": session.config_id, "seed": session.seed})
        finally:
            session.close()
        return state

    return solve


@scorer(metrics={"score": [mean(), stderr()], "success": [mean()]})
def mtp_env_score() -> Any:
    """The env's own score of the episode (and success), never re-judged."""

    async def score(state: TaskState, target: Target) -> Score:
        result = state.store.get(RESULT_KEY)
        if result is None:  # the solver did not finish (a limit or an error ended the sample)
            return Score(value={"score": 0.0, "success": 0.0}, explanation="episode not finished")
        return Score(
            value={"score": result["score"], "success": float(result["outcome"] == "success")},
            answer=state.output.completion if state.output else None,
            explanation=result["outcome"],
            metadata=result,
        )

    return score


def mtp_task(
    env: str,
    split: str | int = "full",
    max_history: int | None = None,
    system_prompt: str | None = None,
    prompt_style: str = "plain",
    samples: int = 1,
    seed: int | None = None,
    configs: str = "benchmark",
    **env_kwargs: Any,
) -> Task:
    """An Inspect task for env ``env`` (a registered id or its task name) with ``env_kwargs``,
    played as ``mtp-gym eval --split --max-history --system-prompt --prompt-style --samples --seed``
    plays it (``samples``: Inspect's epochs; ``--epochs K`` does the same); ``configs="generated"``
    plays ``split`` generated configurations instead of the benchmark's."""
    env_id = env_id_of(env)
    chat = ChatSettings(prompt_style, system_prompt, max_history)
    kwargs = source_kwargs(env_kwargs, configs)
    return Task(
        dataset=_dataset(env_id, kwargs, split, chat, configs, samples, seed),  # bad arguments fail here, named
        solver=mtp_play(env_id, kwargs, max_history, prompt_style, system_prompt, seed),
        scorer=mtp_env_score(),
        epochs=samples,
        name=task_name(env_id),
        metadata={
            "env_id": env_id,
            "env_kwargs": env_kwargs,
            "split": split,
            "configs": configs,
            "max_history": max_history,
            "prompt_style": prompt_style,
            "seed": seed,
        },
    )


def _register(env_id: str) -> None:
    def factory(
        split: str | int = "full",
        max_history: int | None = None,
        system_prompt: str | None = None,
        prompt_style: str = "plain",
        samples: int = 1,
        seed: int | None = None,
        configs: str = "benchmark",
        **env_kwargs: Any,
    ) -> Task:
        return mtp_task(env_id, split, max_history, system_prompt, prompt_style, samples, seed, configs, **env_kwargs)

    factory.__doc__ = f"{env_id} (mtp-gym): the benchmark configurations, played to the end, scored by the env."
    factory.__name__ = factory.__qualname__ = task_name(env_id)
    globals()[factory.__name__] = task(name=factory.__name__)(factory)


for _id in registered_ids():
    _register(_id)
