"""Random agents: well-formed random moves, the floor every report prints."""

from __future__ import annotations

from typing import Any

import numpy as np

from mtp_gym.circuit_decoding.inference import read_setup as circuit_decoding_setup
from mtp_gym.envs.movie_rec import FINAL_PROMPT as MOVIE_REC_FINAL_PROMPT
from mtp_gym.envs.movie_rec import parse_table as movie_rec_table
from mtp_gym.envs.word_guess import vocabulary_in
from mtp_gym.inference.word_chain import lexicon_from_instructions
from mtp_gym.turing_machine.inference import read_instructions


class RandomAgent:
    """Base of the random agents: a seeded generator, reset per episode."""

    def __init__(self, seed: int | None = None) -> None:
        self._seed = seed
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(self._seed if seed is None else seed)

    def act(self, observation: str, info: dict[str, Any]) -> str:
        raise NotImplementedError


class WordGuessRandomAgent(RandomAgent):
    """Guesses vocabulary words uniformly at random, never repeating one."""

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._remaining: list[str] | None = None

    def act(self, observation: str, info: dict[str, Any]) -> str:
        if self._remaining is None:
            self._remaining = list(vocabulary_in(observation))
        word = self._remaining.pop(int(self.rng.integers(len(self._remaining))))
        return f"<attempt>{word}</attempt>"


class CircuitDecodingRandomAgent(RandomAgent):
    """Random valid queries (random circuit, random inputs) for the whole budget, then
    uniformly random bits of the right length as the final guess."""

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._setup: dict[str, Any] | None = None
        self._asked = 0

    def act(self, observation: str, info: dict[str, Any]) -> str:
        if self._setup is None:
            self._setup = circuit_decoding_setup(observation)
        c, k = self._setup["num_circuits"], self._setup["num_inputs"]
        if self._asked < self._setup["num_queries"]:
            self._asked += 1
            label = self._setup["labels"][int(self.rng.integers(c))]
            bits = ", ".join(str(int(b)) for b in self.rng.integers(2, size=k))
            return f"<query>{label}({bits})</query>"
        return f"<guess>{''.join(str(int(b)) for b in self.rng.integers(2, size=c << k))}</guess>"


class TuringMachineRandomAgent(RandomAgent):
    """The paper's "Random Guess" floor: a random proposal, 0-3 random verifier queries,
    then a uniformly random code submitted in the first deduce step (accuracy 1/125)."""

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._setup: tuple[int, bool] | None = None
        self._stage = "proposal"
        self._queries_left = 0

    def _code(self) -> str:
        b, y, p = (int(d) for d in self.rng.integers(1, 6, size=3))
        return f"BLUE={b}, YELLOW={y}, PURPLE={p}"

    def act(self, observation: str, info: dict[str, Any]) -> str:
        if self._setup is None:
            cards, _, cot = read_instructions(observation)
            self._setup = (len(cards), cot)
        else:
            fb = info.get("feedback") or {}
            if "error" not in fb:
                self._stage = fb.get("next_stage") or self._stage
        n, cot = self._setup
        if self._stage == "proposal":
            self._queries_left = int(self.rng.integers(4))
            choice = self._code()
        elif self._stage == "question":
            if self._queries_left > 0:
                self._queries_left -= 1
                choice = str(int(self.rng.integers(n)))
            else:
                choice = "SKIP"
        else:
            choice = self._code()
        return ("<REASONING>: random move\n" if cot else "") + f"<CHOICE>: {choice}"


class TwentyQuestionsRandomAgent(RandomAgent):
    """Answers every Twenty Questions question "yes" or "no" uniformly at random."""

    def act(self, observation: str, info: dict[str, Any]) -> str:
        return "yes" if self.rng.random() < 0.5 else "no"


class WordChainRandomAgent(RandomAgent):
    """Word Chaining: a uniformly random legal word (``info["legal_moves"]``, what a player
    who reads the list and remembers the chain can see), in single quotes."""

    def act(self, observation: str, info: dict[str, Any]) -> str:
        legal = info.get("legal_moves") or ()
        if not legal:
            return "I have no word left."
        return f"'{legal[int(self.rng.integers(len(legal)))]}'"


class WordChainRandomWordAgent(RandomAgent):
    """Word Chaining floor that ignores the rules: a uniformly random word of the list
    (read from the instructions), so it loses whenever the word breaks a rule."""

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._words: tuple[str, ...] | None = None

    def act(self, observation: str, info: dict[str, Any]) -> str:
        if self._words is None:
            self._words = lexicon_from_instructions(observation)
        return f"'{self._words[int(self.rng.integers(len(self._words)))]}'"


class MovieRecRandomAgent(RandomAgent):
    """The naive Movie Recommendation baseline: compares two random library movies each
    turn, then recommends a uniformly random movie of the new set."""

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._titles: tuple[str, ...] = ()
        self._final: tuple[str, ...] = ()

    def act(self, observation: str, info: dict[str, Any]) -> str:
        if not self._titles:
            self._titles = movie_rec_table(observation)[0]
        _, _, rest = observation.partition("\n")
        if MOVIE_REC_FINAL_PROMPT.split(":", 1)[0] in rest:
            self._final = movie_rec_table(rest)[0]
        if self._final:
            return f"<final_answer>{self._final[int(self.rng.integers(len(self._final)))]}</final_answer>"
        i, j = self.rng.choice(len(self._titles), size=2, replace=False)
        return f"<question>Would you prefer watching {self._titles[i]} over {self._titles[j]}?</question>"
