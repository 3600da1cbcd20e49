"""Each env class carries its puzzle's facts (``PuzzleInfo``) and play controls; the report, the
env table, the CLI and the play page read them from there, never from switches on ids."""

from __future__ import annotations

import ast
import copy
import re
from pathlib import Path

import gymnasium as gym
import pytest
from helpers import ENV_IDS

import mtp_gym
import mtp_gym.agents  # noqa: F401  (registers the boundary probe's transcript sources)
from mtp_gym.core import PAPERS, PuzzleInfo, TextPuzzleEnv
from mtp_gym.registration import GAME_IDS
from mtp_gym.wrappers.probes import PROBES

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
    the env reads: the controls follow the game's stage, so every one offered at the first turn
    plays."""
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
    assert all(legal), (env_id, [c["label"] for c in controls], legal)
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


TM_STAGE_CONTROLS = {
    "proposal": ["Propose code"],
    "question": ["Test verifier", "Stop testing (SKIP)"],
    "deduce": ["Next round (SKIP)", "Submit final code"],
}


def _fillings(control: dict) -> list[str]:
    """The moves a control writes: every option of a one-field control, a few codes for the
    three digit fields."""
    fields = control["fields"]
    if not fields:
        return [control["template"]]
    if len(fields) == 1:
        return [control["template"].format(**{fields[0]["name"]: o}) for o in fields[0]["options"]]
    codes = ["111", "123", "345", "555", "512"]
    return [control["template"].format(**{f["name"]: c[i] for i, f in enumerate(fields)}) for c in codes]


@pytest.mark.parametrize(("mode", "config_id"), [("classic", 0), ("classic", 99), ("nightmare", 0)])
def test_turing_machine_controls_follow_the_stage_of_an_oracle_episode(mode: str, config_id: int) -> None:
    """At every stage of an oracle's episode (proposal, queries, SKIP, next rounds, the final
    code), the controls offered are exactly the stage's, each fills to a legal move, and a
    re-prompt keeps them; the selects are named BLUE, YELLOW, PURPLE."""
    from mtp_gym.agents import make_agent
    from mtp_gym.episode import play

    env_id = "MTP/TuringMachine-v0"
    env = gym.make(env_id, mode=mode)
    seen: list[str] = []
    stages = []
    for step in play(env, make_agent("oracle", env_id), config_id=config_id):
        seen.append(step.observation)
        if step.done:
            break
        stage = step.info["feedback"].get("next_stage", "proposal")
        stages.append(stage)
        offered = mtp_gym.puzzle_class(env_id).play_controls(seen)
        assert [c["label"] for c in offered] == TM_STAGE_CONTROLS[stage], (stage, seen[-1][-300:])
        for control in offered:
            if len(control["fields"]) == 3:
                assert [f["name"] for f in control["fields"]] == ["BLUE", "YELLOW", "PURPLE"]
            for move in _fillings(control):
                info = copy.deepcopy(env).step(move)[4]
                assert info["valid_action"] and info["format_errors"] == 0, (stage, move)
        reprompt = copy.deepcopy(env).step("I am not sure yet.")[0]
        assert reprompt.startswith("Invalid action:")
        assert mtp_gym.puzzle_class(env_id).play_controls([*seen, reprompt]) == offered, stage
    assert set(stages) == set(TM_STAGE_CONTROLS)
    if config_id:
        assert stages.count("proposal") >= 2  # a SKIP at the deduce step started another round


@pytest.mark.parametrize("probe", [None, *sorted(PROBES)])
def test_query_game_controls_fill_with_the_rules_examples_to_legal_moves(probe: str | None) -> None:
    """A query game offers one ``Ask`` per query of its rules and ``Answer`` (with the tags the
    answer format shows: the necessity probe's task adds ``<unnecessary>`` and asks no
    questions); filled with the rules' own examples, each is a legal move."""
    kwargs = {} if probe is None else {"probe": probe}
    for env_id in sorted(GAME_IDS):
        env = gym.make(env_id, **kwargs)
        obs, _ = env.reset(seed=0, options={"config_id": 0})
        offered = mtp_gym.puzzle_class(env_id).play_controls([obs])
        labels = [c["label"] for c in offered]
        assert labels[-1] == "Answer" and (len(labels) == 1) == (probe == "necessity"), (env_id, labels)
        for control in offered:
            values = {}
            for field in control["fields"]:
                tag = "query_" + control["label"].split()[1] if field["name"] == "arguments" else field["name"]
                values[field["name"]] = re.findall(rf"<{tag}>(.*?)</{tag}>", obs)[-1]  # the new rules' example
            played = copy.deepcopy(env)
            reply, _, _, _, info = played.step(control["template"].format(**values))
            assert info["valid_action"], (env_id, control)
        if probe == "necessity":  # phase 2: the answer only
            (phase2,) = mtp_gym.puzzle_class(env_id).play_controls([obs, reply])
            assert phase2["template"] == "<answer>{answer}</answer>" and "phase 2" in reply
