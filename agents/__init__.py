"""Agents: thin policies around the envs (random floors, oracle ceilings, model agents).

>>> from mtp_gym.agents import make_agent
>>> oracle = make_agent("oracle", "MTP/WordGuess-v0")

Scripted agents are registered per env (:func:`register_agent`); model specs (``openai:MODEL``,
``hf:PATH``, ``py:module:factory``) by one :func:`model_provider` each, all in
:mod:`mtp_gym.agents.registry`.
"""

from mtp_gym.agents import registry as _registry  # noqa: F401  (registers every agent and model provider)
from mtp_gym.agents.base import (
    ModelProvider,
    Policy,
    agent_kinds,
    is_model_spec,
    make_agent,
    model_provider,
    model_providers,
    register_agent,
)

__all__ = [
    "ModelProvider",
    "Policy",
    "agent_kinds",
    "is_model_spec",
    "make_agent",
    "model_provider",
    "model_providers",
    "register_agent",
]
