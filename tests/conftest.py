"""Shared fixtures: the registry every contract test runs over (helpers live in ``helpers.py``)."""

from __future__ import annotations

import os
import shutil

import gymnasium as gym
import pytest
from helpers import ENV_IDS

#: The longest modules (CPU seconds on CI's 2 cores), started first: the workers of ``-n``
#: (pytest-xdist: a whole module each at a time) then finish together instead of one of them
#: running the longest module alone at the end.
LONGEST_FIRST = (
    "test_query_games.py",
    "test_llm_agents.py",
    "test_integrations.py",
    "test_query_levels.py",
    "test_probes.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: the rest keep their order


@pytest.fixture(params=ENV_IDS)
def env_id(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def env(env_id: str):
    env = gym.make(env_id)
    yield env
    env.close()


@pytest.fixture(scope="module")  # not longer: Playwright's sync API holds an event loop while it runs
def browser():
    """Headless Chromium (Debian's package) through Playwright; the browser tests skip without
    them, except under ``CI``, where .ci/run installs both."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if os.environ.get("CI"):
            raise
        pytest.skip("playwright is not installed")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        if os.environ.get("CI"):
            raise AssertionError("Debian's chromium package is missing (.ci/run installs it)")
        pytest.skip("no chromium")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        yield b
        b.close()
