"""Inspect AI tasks for every env: ``inspect eval mtp_gym/word_guess --model openai/gpt-4o``.

Install with ``pip install "mtp-gym[inspect]"``. Every registered id has a task named by
:func:`~mtp_gym.integrations.session.task_name` (``mtp_gym/word_guess``,
``mtp_gym/turing_machine``, ``mtp_gym/hidden_number``, ...), found by ``inspect eval``
through the package's ``inspect_ai`` entry point, and :func:`mtp_task` builds one for any
id and kwargs from Python.

* dataset: the env's benchmark configurations (``-T split=100`` for the stratified subset
  ``mtp-gym eval --split 100`` plays), each sample's input the env's first message;
* solver: the multi-turn loop through Inspect's model API: the model's reply is played, the
  env's answer comes back as the next user message, until the episode ends (the env's own
  turn budget and re-prompts, exactly as ``mtp-gym eval`` plays it); where the env starts a
  fresh context (``info["context_reset"]``, the necessity probe's phase 2) the model is sent
  that message alone (after the system prompt), while the log keeps the whole episode;
* scorer: the env's score (``score``) and whether the episode was a success (``success``),
  with the outcome, turns, format errors and configuration id as the score's metadata. A
  prompt that outgrows the model's context window (an empty reply stopped for length) ends
  the episode as ``context_overflow`` with score 0, as ``mtp-gym eval`` records it; a model
  API error is Inspect's sample error, never a score.

Task arguments (``-T name=value``): ``split``, ``max_history`` (see :mod:`mtp_gym.history`),
``system_prompt``, and any env kwarg (``-T level=3``, ``-T probe=noise``).
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser
from inspect_ai.scorer import Score, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver

from mtp_gym.episode import CONTEXT_OVERFLOW
from mtp_gym.history import cap_history, check_max_history
from mtp_gym.integrations.session import EnvSession, configurations, env_id_of, registered_ids, task_name

__all__ = ["mtp_env_score", "mtp_play", "mtp_task"]

#: Where the solver leaves the episode's result for the scorer.
RESULT_KEY = "mtp_gym_result"


def _dataset(env_id: str, env_kwargs: dict[str, Any], split: str | int, system_prompt: str | None) -> MemoryDataset:
    session = EnvSession(env_id, env_kwargs)
    samples = []
    for config_id in configurations(env_id, env_kwargs, split):
        first: list[ChatMessage] = [ChatMessageUser(content=session.start(config_id))]
        if system_prompt:
            first.insert(0, ChatMessageSystem(content=system_prompt))
        samples.append(Sample(input=first, id=config_id, metadata={"config_id": config_id}))
    session.close()
    return MemoryDataset(samples, name=task_name(env_id))


@solver
def mtp_play(env_id: str, env_kwargs: dict[str, Any] | None = None, max_history: int | None = None) -> Solver:
    """Play the sample's configuration to the end, the env answering every model reply."""
    max_history = check_max_history(max_history)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        session = EnvSession(env_id, env_kwargs)
        try:
            session.start(state.metadata["config_id"])
            messages = list(state.messages)  # the whole episode, for the log
            system = [m for m in messages if m.role == "system"]
            context = len(system)  # where the model's current context starts in `messages`
            overflow = False
            while not session.done:
                state.messages = cap_history(system + messages[context:], max_history)
                state = await generate(state)
                if state.output.stop_reason == "model_length" and not state.output.completion:
                    overflow = True  # the prompt outgrew the context window: no reply to play
                    break
                messages.append(state.messages[-1])
                answer = session.send(state.output.completion)
                if not session.done:
                    if session.context_reset:  # a fresh context: the model sees this message alone
                        context = len(messages)
                    messages.append(ChatMessageUser(content=answer))
            state.messages = messages
            result = session.result().as_dict()
            if overflow:  # as `mtp-gym eval` records it: the model's failure, score 0
                result.update(score=0.0, outcome=CONTEXT_OVERFLOW)
            state.store.set(RESULT_KEY, {**result, "config_id": session.config_id})
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
    **env_kwargs: Any,
) -> Task:
    """An Inspect task for env ``env`` (a registered id or its task name) with ``env_kwargs``."""
    env_id = env_id_of(env)
    return Task(
        dataset=_dataset(env_id, env_kwargs, split, system_prompt),
        solver=mtp_play(env_id, env_kwargs, max_history),
        scorer=mtp_env_score(),
        name=task_name(env_id),
        metadata={"env_id": env_id, "env_kwargs": env_kwargs, "split": split, "max_history": max_history},
    )


def _register(env_id: str) -> None:
    def factory(
        split: str | int = "full", max_history: int | None = None, system_prompt: str | None = None, **env_kwargs: Any
    ) -> Task:
        return mtp_task(env_id, split, max_history, system_prompt, **env_kwargs)

    factory.__doc__ = f"{env_id} (mtp-gym): the benchmark configurations, played to the end, scored by the env."
    factory.__name__ = factory.__qualname__ = task_name(env_id)
    globals()[factory.__name__] = task(name=factory.__name__)(factory)


for _id in registered_ids():
    _register(_id)
