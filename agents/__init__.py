"""Agents: thin policies around the envs (random floors, oracle ceilings, later LLMs).

>>> from mtp_gym.agents import make_agent
>>> oracle = make_agent("oracle", "MTP/WordGuess-v0")
"""

from mtp_gym.agents import registry as _registry  # noqa: F401  (registers every scripted agent)
from mtp_gym.agents.base import Policy, agent_kinds, make_agent, register_agent

__all__ = ["Policy", "agent_kinds", "make_agent", "register_agent"]
