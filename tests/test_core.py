"""The base class on a minimal puzzle: abstract hooks, the format-hint hook, budget ends."""

from __future__ import annotations

from typing import Any

import pytest
from gymnasium.utils.env_checker import check_env

from mtp_gym.core import InvalidAction, Reply, TextPuzzleEnv


class Countdown(TextPuzzleEnv):
    """Say numbers; "stop" ends the game on its own budget (outcome ``timeout``)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_turns=kwargs.pop("max_turns", 5), **kwargs)

    @property
    def num_configs(self) -> int:
        return 0

    def _setup_benchmark(self, config_id: int) -> None:
        raise AssertionError("no benchmark split")

    def _setup_generated(self) -> None:
        self.said: list[int] = []

    def _instructions(self) -> str:
        return "Say a number."

    def _parse(self, action: str) -> Any:
        if action.strip() == "stop":
            return "stop"
        if not action.strip().isdigit():
            raise InvalidAction("not a number.")
        return int(action)

    def _play(self, move: Any) -> Reply:
        if move == "stop":
            return Reply("Out of rounds.", {}, "timeout", 0.0)
        self.said.append(move)
        if move == 0:
            return Reply("Zero!", {}, "success", 1.0)
        return Reply(f"{move - 1} next.", {})

    def _hidden(self) -> dict[str, Any]:
        return {"said": list(getattr(self, "said", []))}

    def _format_hint(self) -> str:
        return f"Say a number below {self.said[-1]}." if self.said else "Say any number."


def test_a_puzzle_missing_a_hook_cannot_be_built():
    class NoParse(Countdown):
        _parse = TextPuzzleEnv._parse

    with pytest.raises(TypeError, match="_parse"):
        NoParse()
    assert set(TextPuzzleEnv.__abstractmethods__) == {
        "num_configs",
        "_setup_benchmark",
        "_setup_generated",
        "_instructions",
        "_parse",
        "_play",
        "_hidden",
    }


def test_the_format_hint_follows_the_game_state():
    env = Countdown()
    env.reset(seed=0)
    assert "Say any number." in env.step("x")[0]
    env.step("3")
    obs = env.step("x")[0]
    assert "not a number. Say a number below 3." in obs and env.format_hint == "Say a number below 3."


def test_budget_ends_truncate_and_game_ends_terminate():
    env = Countdown(max_turns=2)
    env.reset(seed=0)
    _, _, term, trunc, info = env.step("stop")  # the puzzle's own budget
    assert (term, trunc, info["outcome"]) == (False, True, "timeout")
    env.reset(seed=0)
    env.step("5")
    _, _, term, trunc, info = env.step("4")  # the turn budget
    assert (term, trunc, info["outcome"]) == (False, True, "timeout")
    env.reset(seed=0)
    _, reward, term, trunc, info = env.step("0")
    assert (term, trunc, info["outcome"], reward) == (True, False, "success", 1.0)


def test_the_minimal_puzzle_passes_the_env_checker():
    check_env(Countdown(), skip_render_check=True)


@pytest.mark.parametrize(
    ("reply", "kept"),
    [
        ("<think>7?</think> 3", "  3"),  # a block becomes one space
        ("<THINK>7?</THINK> 3", "  3"),
        ("<Thinking>\n7 or 3\n</Thinking>3", " 3"),
        ("<think>peut-être 7 — non</think> 3", "  3"),  # not ASCII: the full pattern path
        ("reasoning cut off</think>3", "3"),
        ("3 <think>and then", "3 "),
        ("I think it is 3", "I think it is 3"),  # the word alone is not a tag
        ("3", "3"),
    ],
)
def test_strip_reasoning_removes_every_reasoning_block(reply, kept):
    from mtp_gym.parsing import strip_reasoning

    assert strip_reasoning(reply) == kept


@pytest.mark.parametrize(
    ("text", "shown"),
    [("a\tb\nc\r", "a\tb\nc\r"), ("bell\x07 nul\x00 del\x7f", "bell? nul? del?"), ("caf\u00e9 \u2014", "caf? ?")],
)
def test_observation_text_keeps_layout_and_masks_what_the_space_refuses(text, shown):
    from mtp_gym.core import TEXT_CHARSET, to_charset

    assert to_charset(text) == shown and all(c in TEXT_CHARSET for c in shown)
