"""PettingZoo multi-agent envs (AEC), each with ``env()`` / ``raw_env()`` factories."""
