"""Every agent, registered in one place (the counterpart of mtp_gym/registration.py): the model
providers (``openai:MODEL``, ``hf:PATH``, ``py:module:factory``: one function each), then the
scripted agents of each env: the env-level puzzles' from the table
``mtp_gym.registration.SCRIPTED_AGENTS`` (entry points, imported when an agent is first made),
the query games' generic ones bound to each game class.

A new model prefix is one function here decorated with :func:`~mtp_gym.agents.base.model_provider`:
``make_agent``, the CLI's model options, the harness's executor choice, the Ray workers'
environment and the run directory's identity all read it.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from typing import Any

from mtp_gym.agents.base import Policy, make_agent, model_provider, register_agent
from mtp_gym.agents.oracles.necessity import GameOracle, NecessityOracle
from mtp_gym.agents.oracles.query_games import QueryGameRandomAgent
from mtp_gym.episode import run_episode
from mtp_gym.games.env import GameEnv, resolve_game
from mtp_gym.registration import GAME_IDS, SCRIPTED_AGENTS
from mtp_gym.wrappers.probes.boundary import TranscriptSource, register_transcript_source

#: The ``mtp-gym eval`` options every chat model takes (option dest -> agent kwarg).
_CHAT_OPTIONS = {"prompt_style": "prompt_style", "system_prompt": "system_prompt", "max_history": "max_history"}


def _openai_env_vars(kwargs: Mapping[str, Any]) -> Iterable[str]:
    from mtp_gym.agents.llm.openai_agent import API_KEY_ENV, BASE_URL_ENV

    return (BASE_URL_ENV, kwargs.get("api_key_env", API_KEY_ENV))


def _openai_class(model: str) -> Callable[..., Any]:
    from mtp_gym.agents.llm.openai_agent import OpenAIChatAgent

    return partial(OpenAIChatAgent, model)


@model_provider(
    "openai",
    placeholder="MODEL",
    endpoint=True,
    transport_kwargs=("base_url", "api_key_env", "max_retries", "backoff", "max_backoff", "timeout", "action_timeout"),
    env_vars=_openai_env_vars,
    resolve=_openai_class,
    cli_options={
        "base_url": "base_url",
        "temperature": "temperature",
        "top_p": "top_p",
        "max_tokens": "max_tokens",
        **_CHAT_OPTIONS,
    },
)
def openai_model(model: str, **kwargs: Any) -> Policy:
    """``openai:MODEL``: any OpenAI-compatible endpoint (:class:`~mtp_gym.agents.llm.OpenAIChatAgent`)."""
    from mtp_gym.agents.llm.openai_agent import OpenAIChatAgent

    return OpenAIChatAgent(model=model, **kwargs)


#: What ``hf:`` agents import, none of it in the plain install: the ``[hf]`` extra.
HF_MODULES = ("torch", "transformers")


def _hf_class(path: str) -> Callable[..., Any]:
    """``TransformersAgent`` bound to ``path``; a ``ValueError`` naming the extra when torch or
    transformers is missing (the plain install), before any model is loaded."""
    missing = [m for m in HF_MODULES if importlib.util.find_spec(m) is None]
    if missing:
        raise ValueError(
            f"agent 'hf:{path}' needs {' and '.join(missing)}, which the plain install lacks: "
            'pip install "mtp-gym[hf]"'
        )
    from mtp_gym.agents.llm.hf_agent import TransformersAgent

    return partial(TransformersAgent, path)


@model_provider(
    "hf",
    placeholder="PATH",
    resolve=_hf_class,
    cli_options={"temperature": "temperature", "top_p": "top_p", "max_tokens": "max_new_tokens", **_CHAT_OPTIONS},
)
def hf_model(path: str, **kwargs: Any) -> Policy:
    """``hf:PATH``: a local Hugging Face model (:class:`~mtp_gym.agents.llm.TransformersAgent`)."""
    agent: Policy = _hf_class(path)(**kwargs)
    return agent


def _python_factory(target: str) -> Callable[..., Any]:
    """The factory named by ``py:module:factory``, imported; a ``ValueError`` naming the fix
    when the module cannot be imported or lacks the name."""
    spec = "py:" + target
    module, _, name = target.partition(":")
    if not module or not name:
        raise ValueError(f"agent spec {spec!r}: expected 'py:package.module:factory'")
    try:
        loaded = importlib.import_module(module)
    except ModuleNotFoundError as err:
        if err.name is not None and module != err.name and not module.startswith(err.name + "."):
            raise ValueError(
                f"agent spec {spec!r}: importing {module!r} failed: {err}; pip install what it needs"
            ) from err
        raise ValueError(
            f"agent spec {spec!r}: no module named {module!r}; install it, or put the folder that holds "
            f"{module.split('.')[0]}.py on PYTHONPATH (`PYTHONPATH=. mtp-gym ...` from that folder)"
        ) from None
    factory = getattr(loaded, name, None)
    if not callable(factory):
        raise ValueError(f"agent spec {spec!r}: module {module!r} has no callable {name!r} ({loaded.__file__})")
    return factory


@model_provider("py", placeholder="module:factory", resolve=_python_factory)
def python_factory(target: str, **kwargs: Any) -> Policy:
    """``py:package.module:factory``: your own policy, ``factory(**kwargs)``."""
    agent: Policy = _python_factory(target)(**kwargs)
    return agent


# Env-level puzzles: the table of registration.SCRIPTED_AGENTS (imported when first made).
for _env_id, _kinds in SCRIPTED_AGENTS.items():
    for _kind, _entry in _kinds.items():
        register_agent(_env_id, _kind, _entry)

# Hidden-state query games: one generic oracle and random agent, bound to each game class.
for _game_id, _game_path in GAME_IDS.items():
    register_agent(_game_id, "oracle", partial(GameOracle, resolve_game(_game_path)))
    register_agent(_game_id, "random", partial(QueryGameRandomAgent, resolve_game(_game_path)))
    # a sound player that is not optimal (a random still-informative query): budgets leave room for it
    register_agent(_game_id, "careful", partial(GameOracle, resolve_game(_game_path), strategy="any"))
    # the reference solver of the necessity-judgment probe (mtp_gym.wrappers.probes)
    register_agent(_game_id, "necessity_oracle", partial(NecessityOracle, resolve_game(_game_path)))


def previous_game(kind: str) -> TranscriptSource:
    """The boundary probe's transcript source: agent ``kind`` playing the previous game."""

    def source(env_id: str, level: int, config_id: int, seed: int) -> tuple[list[dict[str, str]], str]:
        env = GameEnv(resolve_game(GAME_IDS[env_id]), difficulty=level)
        result = run_episode(env, make_agent(kind, env_id), config_id=config_id, seed=seed)
        return result.transcript, result.outcome

    source.__name__ = kind
    return source


for _kind in ("oracle", "random"):
    register_transcript_source(_kind, previous_game(_kind))
