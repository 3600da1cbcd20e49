"""LLM agents: thin chat policies around the envs.

* :class:`OpenAIChatAgent`: any OpenAI-compatible endpoint (``make_agent("openai:MODEL", env_id)``).
* :class:`TransformersAgent`: a local Hugging Face causal LM (``make_agent("hf:PATH", env_id)``).
* :class:`HandoffAgent`: one agent plays the first turns, another finishes the conversation.

Both LLM agents send the env's instructions as the first user message (see
:mod:`mtp_gym.agents.llm.prompts` for the answer-only / chain-of-thought styles), keep the chat history
of the episode and count tokens in ``agent.usage``. An endpoint failure raises
:class:`mtp_gym.episode.InfrastructureError` (the harness logs ``infra_error``, never a loss).
Heavy imports (``transformers``) happen only when an agent is built.
"""

from mtp_gym.agents.llm.chat import ChatAgent
from mtp_gym.agents.llm.handoff import HandoffAgent
from mtp_gym.agents.llm.models import smollm2_gguf
from mtp_gym.agents.llm.prompts import PROMPT_STYLES, PromptStyle, get_prompt_style
from mtp_gym.episode import InfrastructureError

__all__ = [
    "ChatAgent",
    "HandoffAgent",
    "InfrastructureError",
    "OpenAIChatAgent",
    "PROMPT_STYLES",
    "PromptStyle",
    "TransformersAgent",
    "get_prompt_style",
    "smollm2_gguf",
]


def __getattr__(name: str):
    if name == "OpenAIChatAgent":
        from mtp_gym.agents.llm.openai_agent import OpenAIChatAgent

        return OpenAIChatAgent
    if name == "TransformersAgent":
        from mtp_gym.agents.llm.hf_agent import TransformersAgent

        return TransformersAgent
    raise AttributeError(name)
