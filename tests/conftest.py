"""Shared fixtures: the registry every contract test runs over (helpers live in ``helpers.py``)."""

from __future__ import annotations

import os
import shutil

import gymnasium as gym
import pytest
from helpers import ENV_IDS


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
