"""Package list: discovered subpackages plus the top-level ``assets/`` installed as ``mtp_gym.assets``.

Everything else lives in pyproject.toml; setuptools' ``packages.find`` cannot add a package
that ``package-dir`` maps from outside the tree, hence this file.
"""

from setuptools import find_packages, setup

setup(packages=find_packages(include=["mtp_gym", "mtp_gym.*", "agents", "agents.*"]) + ["mtp_gym.assets"])
