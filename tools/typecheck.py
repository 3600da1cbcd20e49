"""Type-check ``mtp_gym`` (with ``agents/`` as ``mtp_gym.agents``) from a checkout with mypy.

``agents/`` is installed as ``mtp_gym.agents`` (pyproject's ``package-dir``), a mapping a type
checker cannot read from the source tree. This script builds the installed layout as a tree of
symlinks under ``build/typecheck/`` (``mtp_gym/<each entry>`` -> the checkout,
``mtp_gym/agents`` -> ``agents/``) and runs ``mypy -p mtp_gym`` on it, so every import resolves
as it does after ``pip install``. Extra arguments go to mypy. Exit code: mypy's.

    python tools/typecheck.py
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TREE = ROOT / "build" / "typecheck"


def link_tree() -> Path:
    """``build/typecheck/mtp_gym``: the installed package's layout, as symlinks into the checkout."""
    shutil.rmtree(TREE, ignore_errors=True)
    package = TREE / "mtp_gym"
    package.mkdir(parents=True)
    for entry in (ROOT / "mtp_gym").iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    (package / "agents").symlink_to(ROOT / "agents")
    return TREE


def main(argv: list[str]) -> int:
    tree = link_tree()
    config = ["--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(ROOT / ".mypy_cache")]
    cmd = [sys.executable, "-m", "mypy", *config, "-p", "mtp_gym", *argv]
    return subprocess.call(cmd, cwd=tree)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
