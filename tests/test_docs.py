"""The documentation site (mkdocs.yml, docs/, tools/build_docs.py) and the short README."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import mtp_gym

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SETUP_COMMANDS = (
    "pip install . && mtp-gym eval --env all --agent oracle,random --split 100",
    'pip install -e ".[test]" && pytest',
)


def load_generator():
    spec = importlib.util.spec_from_file_location("build_docs", ROOT / "tools" / "build_docs.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build_docs = load_generator()


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    out = tmp_path_factory.mktemp("envs")
    return out, build_docs.build(out)


def test_one_page_per_registered_env_with_its_docstring_sections(pages):
    out, written = pages
    assert sorted(p.name for p in written) == sorted(f"{build_docs.page_name(i)}.md" for i in mtp_gym.ENV_IDS)
    assert (out / "index.md").exists()
    for env_id in mtp_gym.ENV_IDS:
        text = (out / f"{build_docs.page_name(env_id)}.md").read_text(encoding="utf-8")
        for section in build_docs.SECTIONS:
            assert f"\n## {section}\n" in text, (env_id, section)
        info = mtp_gym.puzzle_info(env_id)
        assert f"`{env_id}`" in text and info.paper in text
        assert "### Prompt example (benchmark configuration 0" in text
        for column in ("oracle", "random", "max turns", "configurations"):
            assert f"\n| {column} | " in text, (env_id, column)
        if info.levels:
            assert "per level" in text and f"(default {info.default_level})" in text


def test_the_prompt_example_is_the_reset_observation_of_configuration_0(pages):
    import gymnasium as gym

    out, _ = pages
    env = gym.make("MTP/WordGuess-v0", disable_env_checker=True)
    observation, _ = env.reset(options={"config_id": 0})
    assert observation.strip() in (out / "WordGuess.md").read_text(encoding="utf-8")


def test_every_env_has_a_row_in_the_puzzle_table():
    rows = build_docs.puzzle_rows()
    assert set(rows) == set(mtp_gym.ENV_IDS)
    assert all(rows[i]["oracle"] and rows[i]["random"] for i in rows)


def test_the_docstring_reader():
    preamble, sections = build_docs.split_sections("Title.\n\nDescription:\n    One\n    two.\n\nRewards:\n    0.\n")
    assert preamble == "Title." and sections == {"Description": "One\ntwo.", "Rewards": "0."}
    assert build_docs.to_markdown("a <attempt>X</attempt> and ``<attempt>X</attempt>``") == (
        "a &lt;attempt>X&lt;/attempt> and ``<attempt>X</attempt>``"
    )
    assert build_docs.to_markdown(":class:`~mtp_gym.games.base.Game`") == "`Game`"


def test_mkdocs_nav_lists_every_env_page():
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert build_docs.with_nav(config) == config, "run python tools/build_docs.py"
    for env_id in mtp_gym.ENV_IDS:
        assert f"envs/{build_docs.page_name(env_id)}.md" in config


def test_readme_is_short_and_keeps_the_setup_commands():
    assert len(README) <= 15_000, len(README)
    for command in SETUP_COMMANDS:
        assert f"```bash\n{command}\n```" in README
    assert "mkdocs serve" in README and "tools/build_docs.py" in README
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "mkdocs build --strict" in ci


def test_the_moved_sections_are_in_the_docs():
    docs = {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "docs").glob("*.md")}
    expected = {
        "evaluate.md": ["llama_cpp.server", "--n_ctx", "vllm serve", "--max-model-len", "--base-url http://127.0.0.1"],
        "frameworks.md": ["inspect eval mtp_gym/word_guess", "vf-eval mtp_gym_verifiers", "mtp-gym serve-env"],
        "training.md": ["MaskablePPO", "examples/trl_grpo.py", "gym.make_vec"],
        "report.md": ["mtp-gym report DIR", "What the query-game scores measure"],
        "puzzles.md": ["| env id | configurations | max turns | score | oracle | random |"],
        "contributing.md": ['--8<-- "CONTRIBUTING.md"'],
        "install.md": SETUP_COMMANDS,
    }
    for name, needles in expected.items():
        for needle in needles:
            assert needle in docs[name], (name, needle)


@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None, reason='pip install -e ".[docs]"')
def test_the_site_builds_strictly_offline(tmp_path):
    """A copy of the site's sources, so the checkout's docs/envs/ is left alone."""
    for name in ("mkdocs.yml", "CONTRIBUTING.md", "assets/README.md", "mtp_gym/games/README.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "docs", tmp_path / "docs", ignore=shutil.ignore_patterns("envs"))
    build_docs.build(tmp_path / "docs" / "envs")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", "mkdocs.yml", "-d", str(tmp_path / "site")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stderr
    site = tmp_path / "site"
    assert (site / "envs" / "WordGuess" / "index.html").exists()
    html = "".join(p.read_text(encoding="utf-8") for p in site.rglob("*.html"))
    assert "fonts.googleapis.com" not in html and '<script src="http' not in html
