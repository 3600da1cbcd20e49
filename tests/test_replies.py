"""Replies as real models write them, played against every env (corpus in ``tests/replies/``).

Each ``tests/replies/<Name>.json`` holds, for one registered id::

    {"env_id": "MTP/WordGuess-v0", "env_kwargs": {}, "config_id": 0,
     "before": ["<guess>...</guess>"],            # optional: exact-format moves played first
                                                  # (a reply may carry its own "before")
     "replies": [{"style": "markdown bold", "reply": "...", "move": "<guess>apple</guess>"},
                 {"style": "two candidates", "reply": "...", "move": null}]}

``move`` is the exact-format action the reply must be read as: playing the reply and playing
``move`` leave the same observation, ``info["feedback"]``, outcome and game state. ``null``
means the env must re-prompt: the reply is rejected and the game state is untouched. A
re-prompted reply may carry ``meant``, the move a careful reader sees in it (it makes one clear
move, yet the policy cannot read it safely): a needless re-prompt, counted apart from the fair
ones (a reply naming two moves, or none). Round-two cases also name their ``class``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
from helpers import ENV_IDS

CORPUS = Path(__file__).resolve().parent / "replies"  # rebuilt by tests/replies/build_corpus.py
MIN_REPLIES = 15


def _load() -> dict[str, dict[str, Any]]:
    corpora = {}
    for path in sorted(CORPUS.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        corpora[data["env_id"]] = data
    return corpora


CORPORA = _load()
CASES = [
    pytest.param(env_id, i, id=f"{env_id.split('/')[1]}-{i}-{case.get('style', '')}")
    for env_id, data in CORPORA.items()
    for i, case in enumerate(data["replies"])
]


def _started(data: dict[str, Any], case: dict[str, Any]) -> gym.Env:
    env = gym.make(data["env_id"], **data.get("env_kwargs", {}))
    env.reset(options={"config_id": data.get("config_id", 0)})
    for move in case.get("before", data.get("before", [])):
        _, _, terminated, truncated, info = env.step(move)
        assert info["valid_action"] and not (terminated or truncated), (move, info)
    return env


ROUND2_CLASSES = ("self-correction", "note-beside", "sign", "format-restated", "yes-no-context", "attributed-word")


def _read(data: dict[str, Any], case: dict[str, Any]) -> tuple[str, dict[str, Any], bool]:
    """``(observation, info, state untouched)`` after playing the case's reply."""
    env = _started(data, case)
    before = env.unwrapped.game_state_digest()
    obs, _, _, _, info = env.step(case["reply"])
    return obs, info, env.unwrapped.game_state_digest() == before


def _played_as(data: dict[str, Any], case: dict[str, Any], move: str, obs: str, info: dict[str, Any]) -> bool:
    env = _started(data, case)
    exp_obs, _, _, _, exp_info = env.step(move)
    assert exp_info["valid_action"], f"the corpus' own move is malformed: {exp_obs!r}"
    keys = ("feedback", "outcome", "score")
    return (obs, *map(info.get, keys)) == (exp_obs, *map(exp_info.get, keys))


def test_every_env_has_a_corpus_of_realistic_replies() -> None:
    short = {e: len(CORPORA[e]["replies"]) if e in CORPORA else 0 for e in ENV_IDS}
    assert {e: n for e, n in short.items() if n < MIN_REPLIES} == {}


def test_round_two_covers_every_class_in_every_family() -> None:
    """At least 10 replies per env family in each class that applies to it (issue 26)."""
    families: dict[tuple[str, str], int] = {}
    for env_id, data in CORPORA.items():
        name = env_id.split("/")[1].rsplit("-v", 1)[0]
        family = name if name in FAMILIES else "query games"
        for case in data["replies"]:
            if "class" in case:
                assert case["class"] in ROUND2_CLASSES, case
                families[family, case["class"]] = families.get((family, case["class"]), 0) + 1
    wanted = {(f, c) for f in (*FAMILIES, "query games") for c in ("self-correction", "note-beside", "format-restated")}
    wanted |= {("TwentyQuestions", "yes-no-context"), ("WordChain", "attributed-word")}
    wanted |= {(f, "sign") for f in ("TuringMachine", "CircuitDecoding", "query games")}
    assert {k: families.get(k, 0) for k in wanted if families.get(k, 0) < 10} == {}


FAMILIES = ("WordGuess", "MovieRec", "CircuitDecoding", "WordChain", "TwentyQuestions", "TuringMachine")


@pytest.mark.parametrize(("env_id", "index"), CASES)
def test_reply_is_read_as_the_move_the_model_made(env_id: str, index: int) -> None:
    data = CORPORA[env_id]
    case = data["replies"][index]
    obs, info, untouched = _read(data, case)
    if case["move"] is None:
        assert not info["valid_action"], f"read as a move: {obs!r}"
        assert untouched
        assert info["outcome"] is None or info["outcome"] == "format_error"
        if "meant" in case:  # a needless re-prompt: the move it names must be a move
            _played_as(data, case, case["meant"], obs, info)
        return
    assert "meant" not in case, "meant is only for re-prompted replies"
    assert info["valid_action"], f"rejected: {obs!r}"
    assert _played_as(data, case, case["move"], obs, info), f"read as another move: {obs!r} {info['feedback']!r}"
    expected = _started(data, case)
    expected.step(case["move"])
    played = _started(data, case)
    played.step(case["reply"])
    assert played.unwrapped.game_state_digest() == expected.unwrapped.game_state_digest()


def test_no_reply_of_the_corpus_is_misread() -> None:
    """The whole corpus in one count: misreads (a reply played as a move it does not make)
    must be 0; fair re-prompts (two moves named, or none) and needless ones (one clear move,
    ``meant``) are counted apart and printed."""
    counts = {"read": 0, "misread": 0, "fair re-prompt": 0, "needless re-prompt": 0}
    misread = []
    for env_id, data in CORPORA.items():
        for case in data["replies"]:
            obs, info, _ = _read(data, case)
            if not info["valid_action"]:
                counts["needless re-prompt" if "meant" in case or case["move"] else "fair re-prompt"] += 1
            elif case["move"] is not None and _played_as(data, case, case["move"], obs, info):
                counts["read"] += 1
            else:
                counts["misread"] += 1
                misread.append((env_id, case.get("style")))
    print(counts)
    assert misread == []
    assert counts["needless re-prompt"] <= 0.05 * sum(counts.values())
