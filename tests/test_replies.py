"""Replies as real models write them, played against every env (corpus in ``tests/replies/``).

Each ``tests/replies/<Name>.json`` holds, for one registered id::

    {"env_id": "MTP/WordGuess-v0", "env_kwargs": {}, "config_id": 0,
     "before": ["<guess>...</guess>"],            # optional: exact-format moves played first
                                                  # (a reply may carry its own "before")
     "replies": [{"style": "markdown bold", "reply": "...", "move": "<guess>apple</guess>"},
                 {"style": "two candidates", "reply": "...", "move": null}]}

``move`` is the exact-format action the reply must be read as: playing the reply and playing
``move`` leave the same observation and game state. ``null`` means the env must re-prompt:
the reply is rejected and the game state is untouched.
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


def test_every_env_has_a_corpus_of_realistic_replies() -> None:
    short = {e: len(CORPORA[e]["replies"]) if e in CORPORA else 0 for e in ENV_IDS}
    assert {e: n for e, n in short.items() if n < MIN_REPLIES} == {}


@pytest.mark.parametrize(("env_id", "index"), CASES)
def test_reply_is_read_as_the_move_the_model_made(env_id: str, index: int) -> None:
    data = CORPORA[env_id]
    case = data["replies"][index]
    played = _started(data, case)
    before = played.unwrapped.game_state_digest()
    obs, _, _, _, info = played.step(case["reply"])
    if case["move"] is None:
        assert not info["valid_action"], f"read as a move: {obs!r}"
        assert played.unwrapped.game_state_digest() == before
        assert info["outcome"] is None or info["outcome"] == "format_error"
        return
    assert info["valid_action"], f"rejected: {obs!r}"
    expected = _started(data, case)
    exp_obs, _, _, _, exp_info = expected.step(case["move"])
    assert exp_info["valid_action"], f"the corpus' own move is malformed: {exp_obs!r}"
    assert (obs, info["outcome"], info["score"]) == (exp_obs, exp_info["outcome"], exp_info["score"])
    assert played.unwrapped.game_state_digest() == expected.unwrapped.game_state_digest()
