"""The ASGI app and entry point OpenEnv's tools expect (``server.app:app``, ``main``).

Every mtp-gym env behind one server (:mod:`mtp_gym.integrations.openenv_server`): ``$MTP_ENV``
sets the default env id, ``$HOST`` / ``$PORT`` where it listens (default ``0.0.0.0:8000``).
"""

from __future__ import annotations

from typing import Any

from mtp_gym.integrations import openenv_server

__all__ = ["main"]  # and ``app``, built on first use


def main() -> None:
    """Serve every env on ``$HOST:$PORT`` (``uv run --project examples/openenv server``)."""
    openenv_server.main()


def __getattr__(name: str) -> Any:
    if name == "app":  # built on first use, as uvicorn imports it
        return openenv_server.app
    raise AttributeError(name)


if __name__ == "__main__":
    main()
