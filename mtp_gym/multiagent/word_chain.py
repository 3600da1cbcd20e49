"""Word Chaining as a two-player PettingZoo AEC env (``mtp_gym.word_chain_v0``).

The env class :class:`WordChainAECEnv` carries the documentation (Gymnasium headings).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from mtp_gym.core import (
    CONFIG_SOURCES,
    TEXT_CHARSET,
    FormatErrors,
    InvalidAction,
    check_choice,
    check_int,
    to_charset,
)
from mtp_gym.data import scowl_words
from mtp_gym.envs.word_chain import (
    BENCH_LEXICON_SIZE,
    CAP_MESSAGE,
    FORMAT_HINT,
    INSTRUCTIONS,
    MAX_WORD_LENGTH,
    N_BENCH_GAMES,
    OPENING,
    REPLY,
    WordChainGame,
    benchmark_games,
    dead_end_message,
    draw_game,
    instructions,
    parse_word,
    violation_message,
)
from mtp_gym.parsing import prepare_reply

ACTION_TYPES = ("text", "discrete")
N_LETTERS = 26
REQUIRED_WIDTH = N_LETTERS + 1
WORD_WIDTH = 2 * N_LETTERS + 1


def _letter(c: str) -> int:
    return ord(c) - ord("a")


def word_features(lexicon: tuple[str, ...]) -> np.ndarray:
    """Per-word ``(first letter one-hot, last letter one-hot, used=0)`` rows, int8."""
    feats = np.zeros((len(lexicon), WORD_WIDTH), dtype=np.int8)
    for i, w in enumerate(lexicon):
        feats[i, _letter(w[0])] = 1
        feats[i, N_LETTERS + _letter(w[-1])] = 1
    return feats


class WordChainAECEnv(AECEnv):
    """Word Chaining as a two-player PettingZoo AEC env (``mtp_gym.word_chain_v0``).

    Description:
        The paper's Word Chaining game between ``player_0`` and ``player_1``, on the rules of
        :mod:`mtp_gym.envs.word_chain` (one truth for this env, the single-agent view
        ``MTP/WordChain-v0`` and the oracle): say allowed words in turn, each starting with the
        last letter of the previous one, never repeating; a violation is an immediate loss; no
        legal word for the player to move, or both players having said ``max_turns`` words,
        ends the game without a loss. The player who moves first opens with any word.

    Prompt Format:
        Each agent's text observation is the message a chat partner would send it: the paper's
        appendix A.4 prompt before its first move (followed by ``I'll start with 'word'.`` for
        the second player), then ``Ok, my word is: 'word'.`` after each opponent move, a
        re-prompt after a malformed action, and the verdict at the end.

    Action Format:
        ``action_type="text"`` (default): free text, the move being the last quoted token of 2+
        characters (see :func:`mtp_gym.envs.word_chain.parse_word`). No quoted token is a format
        error: the same agent is asked again, nothing changes; ``max_format_errors`` in a row
        forfeit the game. A quoted token that is not an allowed word is a losing move.
        ``action_type="discrete"``: ``Discrete(lexicon_size)``, the index of a word in the
        sorted lexicon; an index outside ``action_mask`` (wrong letter or repeat) is a losing
        move, as in the game.

    Observation Space:
        text: ``Dict({"text": Text(...)})`` over printable ASCII (a bare ``str`` observation
        breaks PettingZoo's ``api_test``). discrete: ``Dict({"observation": Box(0, 1,
        (27 + 53 * lexicon_size,), int8), "action_mask": Box(0, 1, (lexicon_size,), int8)})``:
        ``observation[0:27]`` is the required first letter one-hot (index 26: free opening),
        then 53 values per lexicon word: first letter one-hot (26), last letter one-hot (26),
        used flag. The mask is all zeros for the agent that is not to move.

    Rewards:
        +1 to the winner and -1 to the loser of a violation or forfeit; 0 to both for a game
        that ends without a loss. ``info["score"]`` is the paper's metric for each player: 1 if
        it did not lose, else 0.

    Starting State:
        Benchmark configuration ``i`` (400) uses game ``i``'s lexicon and first player from
        ``assets/word_chain/games.json.gz`` (``player_0`` is the single-agent view's agent, so
        the same seat moves first there); the single-agent view's fixed opening word is not
        used here. ``configs="generated"`` draws new games from SCOWL with ``np_random``.

    Episode End:
        Every agent is terminated at a violation, a forfeit or a dead end, and truncated when
        both players have said ``max_turns`` words.

    Information:
        Per agent: ``turn`` (words it has said), ``max_turns``, ``feedback`` (its last move:
        ``word``, ``violation``; ``error`` after a format error), ``valid_action``,
        ``format_errors``, ``outcome`` (``None``, then ``success`` (no loss), ``failure``
        (violation) or ``format_error`` (forfeit)), ``score``,
        ``config_id``, ``legal_moves`` (its legal words when it is to move, else ``()``),
        ``used_words`` (sorted), ``chain`` (in order). There is no hidden state.

    Arguments:
        ``action_type`` (``"text"`` | ``"discrete"``), ``lexicon_size`` (500), ``max_turns`` (20 per player), ``configs`` (``None`` |
        ``"benchmark"`` | ``"generated"``), ``max_format_errors`` (3), ``render_mode``
        (``None`` | ``"ansi"`` | ``"human"``). ``reset(seed, options={"config_id": i})``;
        other option keys are ignored.

    Version History:
        v0: initial release.
    """

    metadata: dict[str, Any] = {
        "render_modes": ["ansi", "human"],
        "name": "word_chain_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        action_type: str = "text",
        lexicon_size: int = BENCH_LEXICON_SIZE,
        max_turns: int = 20,
        configs: str | None = None,
        max_format_errors: int = 3,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        check_choice("action_type", action_type, ACTION_TYPES)
        n_words = len(scowl_words())
        check_int("lexicon_size", lexicon_size, 2, n_words)
        check_int("max_turns", max_turns)
        check_int("max_format_errors", max_format_errors)
        check_choice("render_mode", render_mode, [*self.metadata["render_modes"], None])
        if configs is None:
            configs = "benchmark" if lexicon_size == BENCH_LEXICON_SIZE else "generated"
        check_choice("configs", configs, CONFIG_SOURCES)
        if configs == "benchmark" and lexicon_size != BENCH_LEXICON_SIZE:
            raise ValueError(f"configs='benchmark' needs lexicon_size={BENCH_LEXICON_SIZE}; pass configs='generated'")
        self.action_type = action_type
        self.lexicon_size = lexicon_size
        self.max_turns = max_turns
        self.configs = configs
        self.max_format_errors = max_format_errors
        self.render_mode = render_mode
        self.possible_agents = ["player_0", "player_1"]
        self.agents = self.possible_agents[:]
        if action_type == "text":
            obs_len = len(INSTRUCTIONS) + lexicon_size * (MAX_WORD_LENGTH + 2) + 512
            obs_space: spaces.Space = spaces.Dict({"text": spaces.Text(obs_len, min_length=0, charset=TEXT_CHARSET)})
            act_space: spaces.Space = spaces.Text(4096, min_length=0, charset=TEXT_CHARSET)
        else:
            obs_space = spaces.Dict(
                {
                    "observation": spaces.Box(0, 1, (REQUIRED_WIDTH + WORD_WIDTH * lexicon_size,), np.int8),
                    "action_mask": spaces.Box(0, 1, (lexicon_size,), np.int8),
                }
            )
            act_space = spaces.Discrete(lexicon_size)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._np_random: np.random.Generator | None = None
        self._game = WordChainGame((), 0, max_turns)
        self._config_id: int | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    @property
    def num_configs(self) -> int:
        return N_BENCH_GAMES if self.lexicon_size == BENCH_LEXICON_SIZE else 0

    # ------------------------------------------------------------------ PettingZoo API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(seed)
        rng = self._np_random
        config_id = (options or {}).get("config_id")
        if config_id is not None:
            n = self.num_configs
            if n == 0:
                raise ValueError(
                    f"config_id: lexicon_size={self.lexicon_size} has no benchmark split (it has {BENCH_LEXICON_SIZE})"
                )
            if isinstance(config_id, bool) or not isinstance(config_id, (int, np.integer)) or not 0 <= config_id < n:
                raise ValueError(f"config_id must be an int in [0, {n - 1}], got {config_id!r}")
            config_id = int(config_id)
        elif self.configs == "benchmark":
            config_id = int(rng.integers(self.num_configs))
        config = benchmark_games()[config_id] if config_id is not None else draw_game(rng, self.lexicon_size)
        self._config_id = config_id
        self._game = game = WordChainGame(config["lexicon"], config["first"], self.max_turns)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._acted = {a: False for a in self.agents}
        self._errors = {a: FormatErrors(self.max_format_errors) for a in self.agents}
        self._feedback: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._valid = {a: True for a in self.agents}
        self._outcome: dict[str, str | None] = {a: None for a in self.agents}
        self._instructions = instructions(game.lexicon)
        self._messages = {a: self._instructions for a in self.agents}
        self._transcript: list[str] = []
        self._rendered = 0
        if self.action_type == "discrete":
            self._vector = np.zeros(REQUIRED_WIDTH + WORD_WIDTH * len(game.lexicon), dtype=np.int8)
            self._vector[N_LETTERS] = 1
            self._vector[REQUIRED_WIDTH:] = word_features(game.lexicon).ravel()
        self.agent_selection = self.possible_agents[game.first]
        self._update_infos()

    def observe(self, agent: str) -> dict[str, Any]:
        if self.action_type == "text":
            return {"text": self._messages[agent]}
        game = self._game
        mask = np.zeros(len(game.lexicon), dtype=np.int8)
        if not game.over and agent == self.possible_agents[game.to_move]:
            index = game.index
            mask[[index[w] for w in game.legal_moves()]] = 1
        return {"observation": self._vector.copy(), "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        self._acted[agent] = True
        try:
            word = self._read(action)
        except InvalidAction as err:
            self._reject(agent, action, to_charset(str(err)))
        else:
            self._play(agent, action, word)
        shown = self.agent_selection  # the agent to move next, or the mover when the game is over
        self._transcript.append(f"[env -> {shown}] {self._messages[shown]}")
        if self._game.over:
            other = self._opponent(agent)
            self._transcript.append(f"[env -> {other}] {self._messages[other]}")
        self._update_infos()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return "\n".join(self._transcript)
        if self.render_mode == "human":
            new = self._transcript[self._rendered :]
            self._rendered = len(self._transcript)
            if new:
                print("\n".join(new), flush=True)
        return None

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------ helpers
    def _opponent(self, agent: str) -> str:
        return self.possible_agents[1 - self.possible_agents.index(agent)]

    def _read(self, action: Any) -> str:
        """The word of ``action``: an :class:`InvalidAction` for a text action without one (a
        format error), a ``ValueError`` for a discrete action outside the lexicon."""
        game = self._game
        if self.action_type == "discrete":
            if (
                isinstance(action, bool)
                or not isinstance(action, (int, np.integer))
                or not 0 <= action < len(game.lexicon)
            ):
                raise ValueError(f"action must be a lexicon index in [0, {len(game.lexicon) - 1}], got {action!r}")
            return game.lexicon[int(action)]
        word = parse_word(prepare_reply(action), game.previous) if isinstance(action, str) else None
        if word is None:
            raise InvalidAction("no word in single quotes found.")
        return word

    def _play(self, agent: str, action: Any, word: str) -> None:
        """``agent`` says ``word`` (a well-formed action): the game's move and both messages."""
        game, player, other = self._game, self.possible_agents.index(agent), self._opponent(agent)
        self._errors[agent].accept()
        self._valid[agent] = True
        previous = game.previous
        kind = game.play(word)
        self._feedback[agent] = {"word": word, "violation": kind}
        self._transcript.append(f"[{agent}] {action if isinstance(action, str) else repr(word)}")
        if kind is not None:
            self._messages[agent] = violation_message(word, kind, previous, you=True)
            self._messages[other] = violation_message(word, kind, previous, you=False)
            self._finish(loser=player)
            return
        if self.action_type == "discrete":
            self._vector[:REQUIRED_WIDTH] = 0
            self._vector[_letter(word[-1])] = 1
            self._vector[REQUIRED_WIDTH + WORD_WIDTH * game.index[word] + WORD_WIDTH - 1] = 1
        said = (OPENING if len(game.chain) == 1 else REPLY).format(word=word)
        if not self._acted[other]:
            said = f"{self._instructions}\n\n{said}"
        self._messages[agent] = ""
        self._messages[other] = said
        if game.capped:
            self._messages[agent] = CAP_MESSAGE
            self._messages[other] = f"{said}\n{CAP_MESSAGE}"
            self._finish(loser=None, truncated=True)
        elif game.over:
            assert game.stuck_letter is not None  # a dead end: the next player has no word
            self._messages[agent] = dead_end_message(game.stuck_letter, False)
            self._messages[other] = f"{said}\n{dead_end_message(game.stuck_letter, True)}"
            self._finish(loser=game.loser)
        else:
            self.agent_selection = other

    def _reject(self, agent: str, action: Any, error: str) -> None:
        """A malformed action: the shared protocol (:class:`~mtp_gym.core.FormatErrors`), whose
        last rejection in a row forfeits the game."""
        self._valid[agent] = False
        self._feedback[agent] = {"error": error}
        self._transcript.append(f"[{agent}] {action!r}")
        self._messages[agent], forfeit = self._errors[agent].reject(error, FORMAT_HINT, end="You lose.")
        if forfeit:
            player = self.possible_agents.index(agent)
            self._game.forfeit(player)
            self._messages[self._opponent(agent)] = "I cannot find a word. I lose."
            self._finish(loser=player, forfeit=True)

    def _finish(self, loser: int | None, truncated: bool = False, forfeit: bool = False) -> None:
        for i, a in enumerate(self.possible_agents):
            if loser is None:
                self.rewards[a], self._outcome[a] = 0.0, "success"
            elif i == loser:
                self.rewards[a], self._outcome[a] = -1.0, "format_error" if forfeit else "failure"
            else:
                self.rewards[a], self._outcome[a] = 1.0, "success"
            if truncated:
                self.truncations[a] = True
            else:
                self.terminations[a] = True

    def _update_infos(self) -> None:
        game = self._game
        used = tuple(sorted(game.used))
        chain = tuple(game.chain)
        to_move = None if game.over else self.possible_agents[game.to_move]
        legal = game.legal_moves() if to_move is not None else ()
        self.infos = {
            a: {
                "turn": game.words_said[i],
                "max_turns": self.max_turns,
                "feedback": dict(self._feedback[a]),
                "valid_action": self._valid[a],
                "format_errors": self._errors[a].total,
                "outcome": self._outcome[a],
                "score": None if self._outcome[a] is None else float(self._outcome[a] == "success"),
                "config_id": self._config_id,
                "legal_moves": legal if a == to_move else (),
                "used_words": used,
                "chain": chain,
            }
            for i, a in enumerate(self.possible_agents)
            if a in self.agents
        }


def raw_env(**kwargs: Any) -> WordChainAECEnv:
    """The bare AEC env (see :class:`WordChainAECEnv` for the kwargs)."""
    return WordChainAECEnv(**kwargs)


def env(**kwargs: Any) -> AECEnv:
    """The AEC env wrapped in PettingZoo's ``OrderEnforcingWrapper`` (the usual entry point)."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))
