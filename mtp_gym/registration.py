"""Every ``MTP/*`` environment id, registered in one place and grouped by paper.

No id sets ``max_episode_steps``: each env enforces its own turn budget (a malformed action
costs no turn, which a ``TimeLimit`` wrapper would get wrong).
"""

from __future__ import annotations

import gymnasium as gym

#: env id -> entry point, grouped by paper.
ENV_IDS: dict[str, str] = {
    # Multi-Turn Puzzles
    "MTP/WordGuess-v0": "mtp_gym.envs.word_guess:WordGuessEnv",
    "MTP/MovieRec-v0": "mtp_gym.envs.movie_rec:MovieRecEnv",
    "MTP/CircuitDecoding-v0": "mtp_gym.envs.circuit_decoding:CircuitDecodingEnv",
    "MTP/WordChain-v0": "mtp_gym.envs.word_chain:WordChainEnv",
    "MTP/TwentyQuestions-v0": "mtp_gym.envs.twenty_questions:TwentyQuestionsEnv",
    # TurnBench-MS
    "MTP/TuringMachine-v0": "mtp_gym.envs.turing_machine:TuringMachineEnv",
}

#: Hidden-state query games (interactive reasoning paper): env id -> ``Game`` class. One generic
#: env (``GAME_ENTRY_POINT``) serves them all; add one line per game file in mtp_gym/games/.
GAME_ENTRY_POINT = "mtp_gym.games.env:GameEnv"
GAME_IDS: dict[str, str] = {
    "MTP/HiddenNumber-v0": "mtp_gym.games.hidden_number:HiddenNumber",
    "MTP/HiddenSubset-v0": "mtp_gym.games.hidden_subset:HiddenSubset",
}
ENV_IDS.update({env_id: GAME_ENTRY_POINT for env_id in GAME_IDS})


def register_envs() -> None:
    """Register every id (idempotent)."""
    for env_id, entry_point in ENV_IDS.items():
        if env_id not in gym.registry:
            kwargs = {"game": GAME_IDS[env_id]} if env_id in GAME_IDS else {}
            gym.register(id=env_id, entry_point=entry_point, kwargs=kwargs)
