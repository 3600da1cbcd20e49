"""The wheel installs ``mtp_gym`` (and the verifiers shim ``mtp_gym_verifiers``), next to other agent libraries.

The OpenAI Agents SDK (``openai-agents``) installs a top-level module ``agents``; ours lives at
``mtp_gym.agents``, so either install order leaves both importable, and removing one leaves
the other whole. Each test builds a fresh venv (the machine's packages visible under it, so
only the two distributions are installed) and installs from the package registry.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

BOTH_WORK = """
import agents
assert hasattr(agents, "Agent") and hasattr(agents, "Runner"), agents.__file__
from mtp_gym.agents import make_agent
assert make_agent("oracle", "MTP/WordGuess-v0").act
"""
OURS_WORK = "from mtp_gym.agents import make_agent; make_agent('oracle', 'MTP/WordGuess-v0')"
SDK_WORKS = "import agents; assert hasattr(agents, 'Runner'), agents.__file__"


def _run(*args: str) -> None:
    proc = subprocess.run(args, capture_output=True, text=True, cwd="/tmp", timeout=600)
    assert proc.returncode == 0, f"{' '.join(args)}\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # From a clean copy: a build/ folder left by an earlier build would add stale modules.
    source = out / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", "build", "*.egg-info", "runs", "__pycache__"))
    _run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(source))
    return next(out.glob("mtp_gym-*.whl"))


def test_wheel_has_one_top_level_package(wheel: Path):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    # mtp_gym_verifiers: the [verifiers] extra's environment, named so because verifiers imports a
    # taskset id as a top-level module; no other distribution uses the name.
    assert tops == {"mtp_gym", "mtp_gym_verifiers"}
    assert "mtp_gym/agents/__init__.py" in names and "mtp_gym/assets/README.md" in names


@pytest.mark.parametrize("sdk_first", [True, False], ids=["sdk-then-ours", "ours-then-sdk"])
def test_installs_next_to_the_openai_agents_sdk(wheel: Path, tmp_path: Path, sdk_first: bool):
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", "--system-site-packages", str(venv))
    python = str(venv / "bin" / "python")
    pip = [python, "-m", "pip", "install", "-q"]
    if subprocess.run([*pip, "--dry-run", "--no-deps", "openai-agents"], capture_output=True).returncode:
        pytest.skip("the package registry is not reachable")
    steps = [[*pip, "openai-agents"], [*pip, "--no-deps", "--force-reinstall", str(wheel)]]
    for step in steps if sdk_first else steps[::-1]:
        _run(*step)
    _run(python, "-c", BOTH_WORK)
    _run(python, "-m", "pip", "uninstall", "-q", "-y", "openai-agents")
    _run(python, "-c", OURS_WORK)
    _run(*pip, "openai-agents")
    _run(python, "-m", "pip", "uninstall", "-q", "-y", "mtp-gym")
    _run(python, "-c", SDK_WORKS)
