"""``mtp-gym``: ``eval`` (play agents over benchmark splits), ``report`` (tables, figures), ``play``.

    mtp-gym eval --env ID[,ID…|all] --agent oracle|random|openai:MODEL|hf:PATH[,…]
                 [--base-url URL] [--split full|N] [--workers W] [--out DIR]
                 [--finisher B --handoff-turn n] [--env-kwargs JSON] [--agent-kwargs JSON]
                 [--backend local|ray [--address ADDR]] …
    mtp-gym report DIR… [--out DIR] [--price AGENT=IN,OUT]
    mtp-gym play ID [--config-id I | --seed S] [--out DIR --name NAME]
    mtp-gym serve [--out DIR] / mtp-gym view DIR / mtp-gym list / mtp-gym serve-env

One module per command (``add_parser(sub)`` and ``cmd_<name>(args)``), the shared options and
argument types in :mod:`mtp_gym.cli.common`, the program in :mod:`mtp_gym.cli.app`. Each agent
of ``eval`` gets its own run directory ``OUT/<agent>`` (resumable, see :mod:`mtp_gym.eval.log`);
``eval`` ends by printing the report of the run directories it wrote
(:mod:`mtp_gym.eval.pipeline` runs both).
"""

from __future__ import annotations

from mtp_gym.cli.app import DISK_FULL, EXIT_INTERRUPTED, build_parser, main
from mtp_gym.cli.app import _command as _command  # the resume command line (tests)
from mtp_gym.cli.eval import EXIT_INFRA, styled_env_kwargs

__all__ = ["DISK_FULL", "EXIT_INFRA", "EXIT_INTERRUPTED", "build_parser", "main", "styled_env_kwargs"]

_styled_env_kwargs = styled_env_kwargs  # its name when the CLI was one module
