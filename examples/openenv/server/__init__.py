"""The OpenEnv server entry points (``server.app:app``, ``server.app:main``)."""
