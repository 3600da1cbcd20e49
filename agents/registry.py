"""Every scripted agent, registered in one place (the counterpart of mtp_gym/registration.py)."""

from __future__ import annotations

from functools import partial

from mtp_gym.agents.base import make_agent, register_agent
from mtp_gym.agents.oracles.circuit_decoding import CircuitDecodingOracle
from mtp_gym.agents.oracles.movie_rec import MovieRecOracle
from mtp_gym.agents.oracles.necessity import GameOracle, NecessityOracle
from mtp_gym.agents.oracles.query_games import QueryGameRandomAgent
from mtp_gym.agents.oracles.turing_machine import TuringMachineOracle
from mtp_gym.agents.oracles.twenty_questions import TwentyQuestionsAdversary, TwentyQuestionsOracle
from mtp_gym.agents.oracles.word_chain import WordChainOracle
from mtp_gym.agents.oracles.word_guess import WordGuessOracle
from mtp_gym.agents.random_agent import (
    CircuitDecodingRandomAgent,
    MovieRecRandomAgent,
    TuringMachineRandomAgent,
    TwentyQuestionsRandomAgent,
    WordChainRandomAgent,
    WordChainRandomWordAgent,
    WordGuessRandomAgent,
)
from mtp_gym.episode import run_episode
from mtp_gym.games.env import GameEnv, resolve_game
from mtp_gym.registration import GAME_IDS
from mtp_gym.wrappers.probes.boundary import TranscriptSource, register_transcript_source

register_agent("MTP/WordGuess-v0", "oracle", WordGuessOracle)
register_agent("MTP/WordGuess-v0", "random", WordGuessRandomAgent)
register_agent("MTP/MovieRec-v0", "oracle", MovieRecOracle)
register_agent("MTP/MovieRec-v0", "random", MovieRecRandomAgent)
register_agent("MTP/CircuitDecoding-v0", "oracle", CircuitDecodingOracle)
register_agent("MTP/CircuitDecoding-v0", "random", CircuitDecodingRandomAgent)
register_agent("MTP/TuringMachine-v0", "oracle", TuringMachineOracle)
register_agent("MTP/TuringMachine-v0", "random", TuringMachineRandomAgent)
register_agent("MTP/TwentyQuestions-v0", "oracle", TwentyQuestionsOracle)
register_agent("MTP/TwentyQuestions-v0", "adversarial", TwentyQuestionsAdversary)
register_agent("MTP/TwentyQuestions-v0", "random", TwentyQuestionsRandomAgent)
register_agent("MTP/WordChain-v0", "oracle", WordChainOracle)
# The floor is a random word of the list: a random LEGAL word never loses under the paper's
# rules, so it would score like the oracle.
register_agent("MTP/WordChain-v0", "random", WordChainRandomWordAgent)
register_agent("MTP/WordChain-v0", "random_legal", WordChainRandomAgent)

# Hidden-state query games: one generic oracle and random agent, bound to each game class.
for _game_id, _game_path in GAME_IDS.items():
    register_agent(_game_id, "oracle", partial(GameOracle, resolve_game(_game_path)))
    register_agent(_game_id, "random", partial(QueryGameRandomAgent, resolve_game(_game_path)))
    # a sound player that is not optimal (a random still-informative query): budgets leave room for it
    register_agent(_game_id, "careful", partial(GameOracle, resolve_game(_game_path), strategy="any"))
    # the reference solver of the necessity-judgment probe (mtp_gym.wrappers.probes)
    register_agent(_game_id, "necessity_oracle", partial(NecessityOracle, resolve_game(_game_path)))


def previous_game(kind: str) -> TranscriptSource:
    """The boundary probe's transcript source: agent ``kind`` playing the previous game."""

    def source(env_id: str, level: int, config_id: int, seed: int) -> tuple[list[dict[str, str]], str]:
        env = GameEnv(resolve_game(GAME_IDS[env_id]), difficulty=level)
        result = run_episode(env, make_agent(kind, env_id), config_id=config_id, seed=seed)
        return result.transcript, result.outcome

    source.__name__ = kind
    return source


for _kind in ("oracle", "random"):
    register_transcript_source(_kind, previous_game(_kind))
