"""Each env class carries its puzzle's facts (``PuzzleInfo``) and play controls; the report, the
env table, the CLI and the play page read them from there, never from switches on ids."""

from __future__ import annotations

import ast
from pathlib import Path

import gymnasium as gym
import pytest
from helpers import ENV_IDS

import mtp_gym
from mtp_gym.core import PAPERS, PuzzleInfo, TextPuzzleEnv
from mtp_gym.registration import GAME_IDS

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_every_env_says_its_paper_success_and_cell(env_id: str) -> None:
    info = mtp_gym.puzzle_info(env_id)
    assert isinstance(info, PuzzleInfo) and info.paper in PAPERS and info.success_means
    env = gym.make(env_id)
    assert isinstance(env.unwrapped, mtp_gym.puzzle_class(env_id))
    if env_id in GAME_IDS:
        game = env.unwrapped.game_cls
        assert info.cell == (game.structure, game.inference) and info.suite == " × ".join(info.cell)
        assert env.unwrapped.difficulty == info.default_level and info.default_level in info.levels
    else:
        assert info.cell is None and info.suite == info.paper and info.levels == ()
    for style in info.prompt_styles:  # a style the class names is one its env takes
        gym.make(env_id, prompt_style=style).reset(options={"config_id": 0})
    env.close()


def test_the_papers_panels_come_in_order() -> None:
    order = {mtp_gym.puzzle_info(e).paper for e in ENV_IDS}
    assert order == set(PAPERS)
    assert mtp_gym.puzzle_info("MTP/TuringMachine-v0").order == 1
    assert mtp_gym.puzzle_info("MTP/WordGuess-v0").order == 0


def test_an_unknown_id_names_the_allowed_ones() -> None:
    with pytest.raises(ValueError, match="MTP/WordGuess-v0"):
        mtp_gym.puzzle_info("MTP/WordGues-v0")


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_play_controls_fill_to_a_move_the_env_accepts(env_id: str) -> None:
    """A control filled with its options (distinct ones where it has several fields) is a move
    the env reads: some control plays at the first turn."""
    env = gym.make(env_id)
    obs, _ = env.reset(options={"config_id": 0})
    controls = mtp_gym.puzzle_class(env_id).play_controls([obs])
    legal = []
    for control in controls:
        fields = control["fields"]
        if any(f["options"] is None for f in fields):
            continue
        move = control["template"].format(
            **{f["name"]: f["options"][i % len(f["options"])] for i, f in enumerate(fields)}
        )
        probe = gym.make(env_id)
        probe.reset(options={"config_id": 0})
        legal.append(probe.step(move)[4]["valid_action"])
    assert not legal or any(legal), env_id
    if env_id in ("MTP/WordGuess-v0", "MTP/MovieRec-v0", "MTP/TuringMachine-v0", "MTP/TwentyQuestions-v0"):
        assert any(legal), f"{env_id}: no control plays at the first turn"


def test_no_module_switches_on_a_puzzle_id() -> None:
    """Outside the puzzles' own files, the registry tables and the agents' registrations, no code
    compares an env id with a literal puzzle id (the facts live on the env classes)."""
    allowed = {"mtp_gym/registration.py", "agents/registry.py"}
    found = []
    for path in [*(ROOT / "mtp_gym").rglob("*.py"), *(ROOT / "agents").rglob("*.py")]:
        rel = path.relative_to(ROOT).as_posix()
        if rel in allowed:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare) and any(
                isinstance(c, ast.Constant) and isinstance(c.value, str) and c.value.startswith("MTP/")
                for c in [node.left, *node.comparators]
            ):
                found.append(f"{rel}:{node.lineno}")
    assert found == []


def test_the_base_class_offers_no_controls_by_default() -> None:
    assert TextPuzzleEnv.play_controls(["anything"]) == []
