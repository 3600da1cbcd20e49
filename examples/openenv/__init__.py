"""mtp-gym's puzzles as an OpenEnv environment (the server lives in :mod:`mtp_gym.integrations.openenv_server`)."""
