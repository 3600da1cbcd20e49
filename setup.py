"""Package list: discovered subpackages plus the top-level folders installed inside ``mtp_gym``.

``assets/`` installs as ``mtp_gym.assets`` and ``agents/`` as ``mtp_gym.agents`` (a top-level
``agents`` module would collide with other distributions, e.g. the OpenAI Agents SDK).
Everything else lives in pyproject.toml; setuptools' ``packages.find`` cannot add a package
that ``package-dir`` maps from outside the tree, hence this file.
"""

from setuptools import find_packages, setup

agents = ["mtp_gym.agents"] + [f"mtp_gym.agents.{p}" for p in find_packages("agents")]
# mtp_gym_verifiers: verifiers loads a taskset by id as a top-level module (see its docstring).
setup(packages=find_packages(include=["mtp_gym", "mtp_gym.*"]) + ["mtp_gym.assets", "mtp_gym_verifiers"] + agents)
