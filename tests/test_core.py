"""The base class on a minimal puzzle: abstract hooks, the format-hint hook, budget ends."""

from __future__ import annotations

import string
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import example, given, settings
from hypothesis import strategies as st

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
        ("<think>I think 7, no, I think 3</think> 3", "  3"),  # "think" in the reasoning
        ("<think>I think <b>7</b>, I think</think> 3", "  3"),  # a tag in it: the full scan
        ("So <think>I think 7</think> 3 </think> 4", " 4"),  # a lone closing tag after the block
        ("<think>I think 7</Think>8</think> 3", " 3"),  # the block ends at its first closing tag
        ("reasoning cut off</think>3", "3"),
        ("3 <think>and then", "3 "),
        ("I think it is 3", "I think it is 3"),  # the word alone is not a tag
        ("3", "3"),
    ],
)
def test_strip_reasoning_removes_every_reasoning_block(reply, kept):
    from mtp_gym.parsing import strip_reasoning

    assert strip_reasoning(reply) == kept


_TAG_PIECES = ["<query_a>", "</query_a>", "<QUERY_A >", "< / query_a>", "<query_b>", "</query_b>", "<answer>",
               "</ANSWER>", "<answer x>", "<", ">", "/", "x", " 7 ", "`", "**", "\n", "\u212a", "<query_\u212a>"]  # fmt: skip


@example("<answer> **`7`** </ANSWER>", "answer")  # markdown around the move
@example("<query_a>7</query_b>", "query_a|query_b")  # crossed names
@example("</answer> 7 <answer>", "answer")  # the closing tag first
@settings(max_examples=1500, deadline=None)
@given(
    st.lists(st.sampled_from(_TAG_PIECES), max_size=8).map("".join),
    st.sampled_from(["query_[a-z0-9_]+|answer", "answer", "query_a|query_b"]),
)
def test_find_tags_of_one_tag_pair_reads_as_the_full_scan(reply, names):
    """A reply with two ``<`` is read by one pattern: the same tags (names, contents, spans) as
    the scan of every opening and closing tag, for any names, letter cases, spacing, markdown,
    unpaired or crossed tags."""
    from mtp_gym.parsing import _scan_tags, _tag_scanner, find_tags

    opening, closing, _ = _tag_scanner(names)
    assert find_tags(reply, names) == _scan_tags(reply, opening, closing)


_REASONING_PIECES = ["<think>", "</think>", "<THINK>", "</Think>", "<thinking>", "</thinking>", "< think >",
                     "</ think>", "think", "<", ">", "/", "x", " ", "\n", "\u0131", "\u0130", "\u212a",
                     "<th\u0131nk>", "</thin\u212a>"]  # fmt: skip


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(_REASONING_PIECES), max_size=12).map("".join))
def test_strip_reasoning_shortcuts_read_as_the_full_scan(reply):
    """One canonical block (or a lone closing tag) is cut by string search; any mix of tags,
    letter cases, spacing and look-alike letters (a dotless i, a Kelvin sign: never a tag)
    comes out as the full scan leaves it, and stripping twice changes nothing."""
    from mtp_gym.parsing import _strip_blocks, strip_reasoning

    stripped = strip_reasoning(reply)
    assert stripped == _strip_blocks(reply)
    assert strip_reasoning(stripped) == stripped


@pytest.mark.parametrize(
    ("text", "shown"),
    [("a\tb\nc\r", "a\tb\nc\r"), ("bell\x07 nul\x00 del\x7f", "bell? nul? del?"), ("caf\u00e9 \u2014", "caf? ?")],
)
def test_observation_text_keeps_layout_and_masks_what_the_space_refuses(text, shown):
    from mtp_gym.core import TEXT_CHARSET, to_charset

    assert to_charset(text) == shown and all(c in TEXT_CHARSET for c in shown)


@settings(max_examples=1500, deadline=None)
@given(st.text(st.characters(max_codepoint=300), max_size=60) | st.text(st.sampled_from(string.printable), max_size=60))
@example("a\tb\nc\r\x0b\x0c")
@example("tab\x09 escape\x1b del\x7f")
def test_observation_text_is_the_text_with_each_character_outside_the_charset_masked(text):
    from mtp_gym.core import TEXT_CHARSET, to_charset

    assert to_charset(text) == "".join(c if c in TEXT_CHARSET else "?" for c in text)


class Secret(Countdown):
    """Countdown with a secret drawn at reset that never changes in the episode."""

    hidden_fixed = True

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.hidden_calls = 0

    def _setup_generated(self) -> None:
        super()._setup_generated()
        self.secret = [int(self.np_random.integers(100)), {"nested": [1, 2]}]

    def _hidden(self) -> dict[str, Any]:
        self.hidden_calls += 1
        return {"secret": self.secret, "tags": {"a", "b"}}

    def _episode_info(self) -> dict[str, dict[str, Any]]:
        return {"public": {"first": self.secret[0] % 2, "list": [1, 2]}}


def test_per_episode_info_is_built_once_and_shared_read_only():
    from collections.abc import Mapping

    from mtp_gym.core import FrozenInfo

    env = Secret()
    _, first = env.reset(seed=1)
    _, _, _, _, second = env.step("5")
    _, _, _, _, third = env.step("4")
    assert env.hidden_calls == 1  # once per reset, not per step
    assert first["hidden"] is second["hidden"] is third["hidden"] and first["public"] is third["public"]
    hidden = third["hidden"]
    assert isinstance(hidden, FrozenInfo) and isinstance(hidden, Mapping) and not isinstance(hidden, dict)
    with pytest.raises(TypeError):
        hidden["secret"] = 1  # type: ignore[index]
    # what a caller reads is a copy: changing it never reaches another step's info
    hidden["secret"][1]["nested"].append(3)
    hidden["tags"].add("c")
    dict(hidden)["secret"].clear()
    assert hidden["secret"] == env.secret == [env.secret[0], {"nested": [1, 2]}]
    assert hidden["tags"] == {"a", "b"} and third["public"]["list"] == [1, 2]
    assert hidden == {"secret": env.secret, "tags": {"a", "b"}}  # equal to a plain dict with its items


def test_per_episode_info_is_new_after_reset():
    env = Secret()
    seen = set()
    for seed in range(6):
        _, info = env.reset(seed=seed)
        assert info["hidden"]["secret"] == env.secret and info["public"]["first"] == env.secret[0] % 2
        _, _, _, _, info = env.step("3")
        assert info["hidden"]["secret"] == env.secret
        seen.add(info["hidden"]["secret"][0])
    assert len(seen) > 1 and env.hidden_calls == 6


def test_a_changing_secret_is_read_every_step():
    env = Countdown()  # hidden_fixed is False: _hidden() follows the game
    env.reset(seed=0)
    _, _, _, _, a = env.step("5")
    _, _, _, _, b = env.step("4")
    assert a["hidden"]["said"] == [5] and b["hidden"]["said"] == [5, 4]


def test_frozen_info_copies_and_pickles_as_plain_values():
    import copy
    import json
    import pickle

    from mtp_gym.core import FrozenInfo
    from mtp_gym.eval.log import to_jsonable

    info = FrozenInfo({"secret": "PORTS", "vocabulary": ("A", "B"), "nested": {"xs": [1, 2]}})
    deep = copy.deepcopy(info)
    assert type(deep) is dict and deep == info
    deep["nested"]["xs"].append(3)
    assert info["nested"]["xs"] == [1, 2] and copy.copy(info) is info
    back = pickle.loads(pickle.dumps(info))
    assert type(back) is FrozenInfo and back == info
    assert (
        json.loads(json.dumps(dict(info)))
        == to_jsonable(info)
        == {
            "secret": "PORTS",
            "vocabulary": ["A", "B"],
            "nested": {"xs": [1, 2]},
        }
    )


def test_info_secret_false_leaves_the_secret_out():
    env = Secret(info_secret=False)
    _, info = env.reset(seed=0)
    assert "hidden" not in info and "public" in info
    _, _, _, _, info = env.step("nonsense")  # a format error too
    assert "hidden" not in info and info["valid_action"] is False
    _, _, _, _, info = env.step("0")
    assert "hidden" not in info and info["outcome"] == "success"
    assert env.hidden_calls == 0 and "hidden" not in env.build_info({}, True)


@pytest.mark.parametrize("bad", [0, 1, "no", None])
def test_info_secret_must_be_a_bool(bad):
    with pytest.raises(ValueError, match=r"info_secret must be one of \[True, False\]"):
        Secret(info_secret=bad)


def test_the_transcript_is_the_episode_as_chat_messages_made_anew_per_call(capsys):
    env = Countdown(max_turns=4, render_mode="human")
    obs, _ = env.reset(seed=0)
    assert env.transcript == [{"role": "user", "content": obs}]
    env.step("x")  # a format error is recorded too
    env.step("3")
    messages = env.transcript
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant", "user"]
    assert [m["content"] for m in messages][1::2] == ["x", "3"] and messages[-1]["content"] == "2 next."
    messages[0]["content"] = "changed"
    messages.append({"role": "user", "content": "more"})
    assert env.transcript[0]["content"] == obs and len(env.transcript) == 5
    env.replace_last_observation("what a wrapper showed")
    env.record_exchange("2", "answered by a wrapper")
    assert [m["content"] for m in env.transcript][-3:] == ["what a wrapper showed", "2", "answered by a wrapper"]
    assert env.transcript_text().endswith("[AGENT]\n2\n\n[ENV]\nanswered by a wrapper")
    shown = capsys.readouterr().out  # human mode printed each message once, as it came
    assert shown.count("[ENV]\nSay a number.") == 1 and shown.count("[AGENT]\n3") == 1
    assert shown.endswith("[AGENT]\n3\n\n[ENV]\n2 next.\n")


@pytest.mark.parametrize("seed", [0, 7, 2**40, 2**70])
def test_a_reset_seeds_the_generator_gymnasiums_np_random_makes(seed, monkeypatch):
    """``seeded_rng`` (every seeded reset and every reset to a configuration): the generator of
    Gymnasium's ``seeding.np_random``, its state, seed, ``spawn()`` children and pickle, whether
    its words come from the kept states or not; the words kept stay as generated when a caller
    writes into those it got, and the states kept never pass their bound."""
    import pickle

    import numpy as np
    from gymnasium.utils import seeding

    from mtp_gym import core

    monkeypatch.setattr(core, "SEED_STATES_KEPT", 3)
    for _ in range(2):  # generated, then kept
        theirs, their_seed = seeding.np_random(seed)
        ours, our_seed = core.seeded_rng(seed)
        assert ours.bit_generator.state == theirs.bit_generator.state and our_seed == their_seed == seed
        assert repr(ours.bit_generator.seed_seq) == repr(theirs.bit_generator.seed_seq)
        for mine, yours in zip(ours.spawn(2), theirs.spawn(2)):
            assert mine.bit_generator.state == yours.bit_generator.state
        assert (
            pickle.loads(pickle.dumps(ours)).random(3).tolist() == ours.random(3).tolist() == theirs.random(3).tolist()
        )
        core.SeedSequence(seed).generate_state(4, np.uint64)[:] = 0  # the caller's copy
    assert len(core._SEED_STATES) <= 3
    env = Secret()
    env.reset(seed=seed)
    theirs, _ = seeding.np_random(seed)
    assert env.secret[0] == int(theirs.integers(100)) and env.np_random_seed == seed


def test_the_generator_of_a_reset_is_built_on_first_read_and_kept():
    """A reset that draws nothing leaves its generator to be built when ``np_random`` is first
    read: the generator Gymnasium's reset would have made, drawn from across reads (not built
    anew), a new one each reset; ``np_random_seed`` is the seed all along; a generator set by
    hand is kept (seed -1); an env never seeded gets a random one, as Gymnasium's does."""
    from gymnasium.utils import seeding

    env = Countdown()  # draws nothing at reset
    for seed in (3, 3, 11):
        env.reset(seed=seed)
        assert env.np_random_seed == seed
        theirs, _ = seeding.np_random(seed)
        first = env.np_random
        assert first.bit_generator.state == theirs.bit_generator.state
        draws = [int(env.np_random.integers(1 << 30)) for _ in range(3)]
        assert env.np_random is first and draws == theirs.integers(1 << 30, size=3).tolist()
    before = env.np_random
    env.reset(seed=3)
    assert env.np_random is not before  # each seeded reset: a new generator
    mine = np.random.default_rng(5)
    env.np_random = mine
    assert env.np_random is mine and env.np_random_seed == -1
    env.step("1")
    assert env.np_random is mine
    fresh = Countdown()
    assert isinstance(fresh.np_random, np.random.Generator) and fresh.np_random_seed >= 0
    drawn = Secret()  # draws at reset: the same numbers as Gymnasium's generator
    drawn.reset(seed=9)
    theirs, _ = seeding.np_random(9)
    assert drawn.secret[0] == int(theirs.integers(100))
    assert drawn.np_random.bit_generator.state == theirs.bit_generator.state


@pytest.mark.parametrize("seed", [-1, 1.5, "7"])
def test_a_bad_seed_gets_gymnasiums_error(seed):
    from gymnasium.error import Error

    with pytest.raises(Error, match="Seed must be"):
        Secret().reset(seed=seed)


@pytest.mark.parametrize("charset", ["TEXT_CHARSET", "abcab", frozenset("xyz")])
def test_a_text_space_is_gymnasiums_text_with_its_tables_built_once(charset):
    """``TextSpace`` (two per env) shares the character tables of a charset string among its
    spaces, and is the ``Text`` Gymnasium builds: the same attributes, samples, checks and errors."""
    from gymnasium.spaces import Text

    from mtp_gym.core import TEXT_CHARSET
    from mtp_gym.spaces import TextSpace

    chars = TEXT_CHARSET if charset == "TEXT_CHARSET" else charset
    for _ in range(2):  # tables built, then shared
        ours, theirs = TextSpace(40, min_length=2, charset=chars, seed=3), Text(40, min_length=2, charset=chars, seed=3)
        assert {k: v for k, v in vars(ours).items() if k != "_np_random"} == {
            k: v for k, v in vars(theirs).items() if k != "_np_random"
        }
        assert ours == theirs and [ours.sample() for _ in range(5)] == [theirs.sample() for _ in range(5)]
        assert ours.contains(ours.sample()) and not ours.contains("a")
    for bad in ({"min_length": -1}, {"min_length": 50}, {"min_length": 1.5}):
        with pytest.raises((ValueError, TypeError)) as ours_error:
            TextSpace(40, charset=chars, **bad)
        with pytest.raises((ValueError, TypeError)) as theirs_error:
            Text(40, charset=chars, **bad)
        assert str(ours_error.value) == str(theirs_error.value)
