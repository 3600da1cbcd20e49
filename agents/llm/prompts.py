"""Prompt styles: how the env's text becomes chat messages.

Every style sends the env's own instructions as the first user message and each env reply
as the next user message, unchanged, so the model sees what the papers' models saw. A
style may add an optional system prompt and a short suffix:

* ``"plain"`` (default): the env's text alone (the Multi-Turn Puzzles setting; each
  task prompt already says how to answer).
* ``"answer_only"``: TurnBench's Answer-Only (OA) variant: reply with the required
  format only, no explanation.
* ``"cot"``: TurnBench's Chain-of-Thought variant: reason step by step first, then give
  the action in the required format (the envs' parsers tolerate the reasoning text).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PromptStyle", "PROMPT_STYLES", "get_prompt_style"]


@dataclass(frozen=True)
class PromptStyle:
    """A named way of turning env text into user messages."""

    name: str
    suffix: str = ""
    system_prompt: str | None = None

    def user_message(self, observation: str) -> str:
        """The user message for one env observation (instructions or reply)."""
        return f"{observation}\n\n{self.suffix}" if self.suffix else observation


PROMPT_STYLES: dict[str, PromptStyle] = {
    "plain": PromptStyle("plain"),
    "answer_only": PromptStyle(
        "answer_only",
        "Reply with your action in the required response format only. DO NOT include any explanation.",
    ),
    "cot": PromptStyle(
        "cot",
        "Explain your reasoning step by step first, then give your action in the required response format.",
    ),
}


def get_prompt_style(style: str | PromptStyle, system_prompt: str | None = None) -> PromptStyle:
    """Look a style up by name (``ValueError`` naming the allowed ones) and set the system prompt."""
    if isinstance(style, str):
        if style not in PROMPT_STYLES:
            raise ValueError(f"prompt_style={style!r} is not supported; allowed: {sorted(PROMPT_STYLES)}")
        style = PROMPT_STYLES[style]
    if system_prompt is not None:
        style = PromptStyle(style.name, style.suffix, system_prompt)
    return style
