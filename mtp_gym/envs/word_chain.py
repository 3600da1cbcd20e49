"""Word Chaining (Multi-Turn Puzzles, section 2.1 and appendix A.4): the single-agent view.

The env class :class:`WordChainEnv` carries the documentation (Gymnasium headings).
"""

from __future__ import annotations

import gzip
import json
import re
from functools import cache, lru_cache
from typing import Any

from mtp_gym.core import (
    PAPERS,
    InvalidAction,
    PuzzleInfo,
    Reply,
    TextPuzzleEnv,
    control_field,
    refuse_retraction,
    single,
)
from mtp_gym.data import asset_path, scowl_words
from mtp_gym.parsing import prepare_reply, restates_format

BENCH_LEXICON_SIZE, N_BENCH_GAMES = 500, 400
MAX_WORD_LENGTH = 10
BUILTIN_OPPONENTS = ("random",)
NOT_IN_LIST, WRONG_FIRST_LETTER, REPEAT = "not_in_list", "wrong_first_letter", "repeat"

INSTRUCTIONS = """We're going to play a game. One of us will say a word, then the other will say a new word that starts with the same letter that the last word ended with. (So for example if I said 'ant', you might say 'television'.) All words must come from the list below. If you repeat a word, or select a word that isn't on the list, or break the first-letter rule, you lose. Please always wrap your chosen word in single-quote marks.

Allowed words: {words}"""
OPENING = "I'll start with '{word}'."
REPLY = "Ok, my word is: '{word}'."
FORMAT_HINT = "Reply with one word from the list wrapped in single quotes."
_FORMAT_WORDS = frozenset({"chosen", "own", "list"})

_QUOTED_RE = re.compile(r"'([^'\s]+)'|\"([^\"\s]+)\"|‘([^’\s]+)’|“([^”\s]+)”")
_STRIP = " \t\n.,;:!?()[]{}*`"


# ---------------------------------------------------------------------- pure rules
def quoted_words(text: str) -> list[tuple[str, int, int]]:
    """Every quoted token of 2+ characters in a reply, stripped and lowercased, with the
    span of its quotes, in order."""
    words = []
    for match in _QUOTED_RE.finditer(text):
        token = next(g for g in match.groups() if g is not None).strip(_STRIP).lower()
        if len(token) >= 2:
            words.append((token, match.start(), match.end()))
    return words


# What introduces a word as someone else's, just before its quote: "you said 'lantern'".
_ATTRIBUTED_RE = re.compile(
    r"(?:\b(?:you|opponent|they|he|she)\s+(?:just\s+|already\s+)?(?:said|say|chose|played|picked|gave|used|wrote|"
    r"went\s+with|started\s+with|opened\s+with)|\byour\s+(?:last\s+|previous\s+|opening\s+)?word(?:\s+(?:was|is))?|"
    r"\b(?:previous|last|prior|opponent's|opening)\s+word(?:\s+(?:was|is))?|\bafter)\s*[:,]?\s*[*_`]*$",
    re.IGNORECASE,
)


def parse_word(text: str, previous: str | None = None) -> str | None:
    """The move in a reply: its one quoted word (said any number of times), ``None`` if none.

    A quoted word the reply attributes to someone else is not its move: ``previous`` (the
    word just played by the other side) and a word introduced as another's (``you said
    'lantern'``, ``after 'lantern'``). Several different quoted words of the reply's own are
    an :class:`InvalidAction` (which one is the move?).
    """
    own = [
        (word, end)
        for word, start, end in quoted_words(text)
        if word != previous and not _ATTRIBUTED_RE.search(text[max(0, start - 48) : start])
    ]
    if len({w for w, _ in own}) > 1:  # a restated format ('word', '[word]') beside the move
        own = [(w, e) for w, e in own if not restates_format(w, _FORMAT_WORDS, strict=True)] or own
    word = single([w for w, _ in own], "quoted words")
    if own:
        refuse_retraction(text[own[-1][1] :])
    return word


def violation(word: str, lexicon: frozenset[str], used: set[str] | frozenset[str], previous: str | None) -> str | None:
    """The rule ``word`` breaks after ``previous`` (``None`` at the start), or ``None``.

    Checked in order: not on the list, wrong first letter, repeat.
    """
    if word not in lexicon:
        return NOT_IN_LIST
    if previous is not None and word[0] != previous[-1]:
        return WRONG_FIRST_LETTER
    if word in used:
        return REPEAT
    return None


def legal_moves(lexicon: tuple[str, ...], used: set[str] | frozenset[str], previous: str | None) -> tuple[str, ...]:
    """Every legal word after ``previous`` (any unused word at the start), in lexicon order."""
    if previous is None:
        return tuple(w for w in lexicon if w not in used)
    letter = previous[-1]
    return tuple(w for w in lexicon if w[0] == letter and w not in used)


def violation_message(word: str, kind: str, previous: str | None, you: bool) -> str:
    """Human-readable verdict for a violation (``you``: addressed to the violator)."""
    if kind == NOT_IN_LIST:
        why = f"'{word}' is not on the list"
    elif kind == WRONG_FIRST_LETTER:
        why = f"'{word}' does not start with '{previous[-1]}', the last letter of '{previous}'"  # type: ignore[index]
    else:
        why = f"'{word}' has already been used"
    return f"{why}. You lose." if you else f"My word is: '{word}'. But {why}, so I lose."


@lru_cache(maxsize=1024)
def lexicon_tables(lexicon: tuple[str, ...]) -> tuple[frozenset[str], dict[str, int], dict[str, tuple[str, ...]]]:
    """(word set, word -> index, first letter -> words in lexicon order); cached per lexicon
    (treat as read-only)."""
    by_first: dict[str, list[str]] = {}
    for w in lexicon:
        by_first.setdefault(w[0], []).append(w)
    index = {w: i for i, w in enumerate(lexicon)}
    return frozenset(lexicon), index, {c: tuple(ws) for c, ws in by_first.items()}


class WordChainGame:
    """The state of one game between players 0 and 1 (shared by the Gymnasium and AEC envs).

    ``max_turns`` is the number of words each player may say.
    """

    def __init__(self, lexicon: tuple[str, ...], first: int, max_turns: int) -> None:
        self.lexicon = lexicon
        self.lexicon_set, self.index, self.by_first = lexicon_tables(lexicon)
        # first letter -> unused words in lexicon order: the shared tuple until a word of it is played
        self.unused_by_first: dict[str, tuple[str, ...] | list[str]] = dict(self.by_first)
        self.first = first
        self.to_move = first
        self.max_turns = max_turns
        self.chain: list[str] = []
        self.used: set[str] = set()
        self.words_said = [0, 0]
        self.loser: int | None = None
        self.over = False
        self.capped = False
        self.stuck_letter: str | None = None

    @property
    def previous(self) -> str | None:
        return self.chain[-1] if self.chain else None

    def legal_moves(self) -> tuple[str, ...]:
        """Legal words for the player to move (empty once the game is over)."""
        if self.over:
            return ()
        prev = self.previous
        if prev is None:
            return tuple(w for w in self.lexicon if w not in self.used) if self.used else self.lexicon
        return tuple(self.unused_by_first.get(prev[-1], ()))

    def has_move(self) -> bool:
        prev = self.previous
        if prev is None:
            return len(self.used) < len(self.lexicon)
        return bool(self.unused_by_first.get(prev[-1]))

    def play(self, word: str) -> str | None:
        """The player to move says ``word``; returns the violation (which ends the game) or
        ``None``, then checks the turn cap and whether the next player is stuck."""
        player = self.to_move
        kind = violation(word, self.lexicon_set, self.used, self.previous)
        if kind is not None:
            self.loser, self.over = player, True
            return kind
        self.chain.append(word)
        self.used.add(word)
        unused = self.unused_by_first[word[0]]
        if isinstance(unused, tuple):
            unused = self.unused_by_first[word[0]] = list(unused)
        unused.remove(word)
        self.words_said[player] += 1
        self.to_move = 1 - player
        if self.words_said[0] >= self.max_turns and self.words_said[1] >= self.max_turns:
            self.over = self.capped = True
        elif not self.has_move():
            self.over = True
            self.stuck_letter = word[-1]
        return None

    def forfeit(self, player: int) -> None:
        """``player`` loses without a move (too many format errors)."""
        self.loser, self.over = player, True

    def public_info(self) -> dict[str, Any]:
        """What both players see: legal moves of the player to move, used words, chain."""
        return {
            "legal_moves": self.legal_moves(),
            "used_words": tuple(sorted(self.used)),
            "chain": tuple(self.chain),
        }


def dead_end_message(letter: str, you_stuck: bool) -> str:
    """Verdict when the player to move has no legal word (the game ends without a loss)."""
    who = "you have" if you_stuck else "I have"
    return f"There is no unused word on the list that starts with '{letter}', so {who} no move. The game is over without a loss."


CAP_MESSAGE = "The turn limit has been reached. The game is over without a loss."


@lru_cache(maxsize=1024)
def instructions(lexicon: tuple[str, ...]) -> str:
    """The paper's prompt for ``lexicon``."""
    return INSTRUCTIONS.format(words=", ".join(lexicon))


@cache
def benchmark_games() -> tuple[dict[str, Any], ...]:
    """The 400 fixed games: ``lexicon`` (sorted tuple), ``first`` (0 agent, 1 opponent), ``opener``."""
    raw = json.loads(gzip.decompress(asset_path("word_chain", "games.json.gz").read_bytes()))
    return tuple({"lexicon": tuple(g["lexicon"]), "first": g["first"], "opener": g["opener"]} for g in raw["games"])


def draw_game(rng: Any, lexicon_size: int) -> dict[str, Any]:
    """A fresh game from ``scowl_words()`` (same recipe as the benchmark build)."""
    pool = scowl_words()
    lexicon = tuple(sorted(pool[i] for i in rng.choice(len(pool), size=lexicon_size, replace=False)))
    first = int(rng.integers(2))
    opener = None
    if first == 1:
        starts: dict[str, int] = {}
        for w in lexicon:
            starts[w[0]] = starts.get(w[0], 0) + 1
        openers = [w for w in lexicon if starts.get(w[-1], 0) - (w[0] == w[-1]) > 0]
        if openers:
            opener = openers[int(rng.integers(len(openers)))]
        else:  # tiny lexicons only: no word has an answer, so the agent opens
            first = 0
    return {"lexicon": lexicon, "first": first, "opener": opener}


# ---------------------------------------------------------------------- the env
class WordChainEnv(TextPuzzleEnv):
    """Word Chaining (Multi-Turn Puzzles, section 2.1 and appendix A.4): the single-agent view.

    Description:
        Two players take turns saying words from a list of 500 allowed words; each word must
        start with the last letter of the previous word and must not have been said before.
        Saying a word that is not on the list, breaks the first-letter rule or repeats a word is
        an immediate loss. The game ends without a loss when the player to move has no legal
        word left or when the turn cap is reached. In this view the agent plays against a
        built-in opponent policy (default: a uniformly random legal word, drawn with
        ``self.np_random``); the two-player game is the PettingZoo AEC env
        ``mtp_gym.word_chain_v0`` (``mtp_gym/multiagent/word_chain.py``), on the same rules.

    Prompt Format:
        The paper's appendix A.4 prompt, word for word, with the allowed words sorted and
        separated by ", ". When the opponent moves first, the instructions end with
        ``I'll start with 'word'.``; every opponent move is ``Ok, my word is: 'word'.`` (the
        paper's wording).

    Action Format:
        The chosen word in single quotes (``Okay, I'll start with 'encirclement'``), tolerant of
        reasoning around it, of case, and of double or curly quotes. The quoted token of two or
        more characters is the move (a quoted single letter such as ``'z'`` is taken as talk
        about a letter, not as a move); the same word quoted twice is fine, two different ones
        (``'sacred', since 'access' ends in s``) are a re-prompt naming both. A reply with no
        such quoted token is a format error: re-prompt, no turn spent, nothing changes. A quoted token that is not an allowed
        word (misspelt, invented, or with digits or hyphens) IS a move, and a losing one: the
        paper's rule "select a word that isn't on the list, you lose". Surrounding punctuation
        inside the quotes (``'topaz.'``) is stripped first.

    Observation Space:
        ``Text`` over printable ASCII: the instructions at reset, then the opponent's reply
        (or the verdict that ended the game).

    Rewards:
        0 per step; the terminal reward is the score: 1 if the episode ends without a loss by
        the agent (the paper's success rate), 0 after a violation or ``max_format_errors``
        consecutive format errors.

    Starting State:
        Benchmark configuration ``i`` (400) is game ``i`` of ``assets/word_chain/games.json.gz``:
        500 words drawn without replacement from the shipped SCOWL list (``scowl_words()``:
        SCOWL sizes 10, 20 and 35, english + american, all-lowercase words of 3-10 letters,
        33,777 words; the paper names SCOWL without a size, its example 'encirclement' is size
        50), the player who moves first (fair coin; 180 agent, 220 opponent) and, when the
        opponent starts, its opening word (drawn among the words that leave a legal reply).
        Rebuilt by ``assets/scripts/build_word_chain.py``. Generated configurations draw the
        same three things from ``scowl_words()`` with ``self.np_random``.

    Episode End:
        Terminated: agent violation (outcome ``failure``, score 0); opponent violation (a
        custom opponent may make one, or forfeit after ``max_format_errors`` replies without a
        quoted word; ``success``, 1); the player to move has no legal word (``success``, 1);
        ``max_format_errors`` consecutive agent format errors (``format_error``, 0).
        Truncated: the turn cap, reached when
        each player has said ``max_turns`` words (the agent's ``max_turns``-th word, answered
        by the opponent if the agent started): outcome ``success``, score 1 (the paper's
        "ends without loss"). ``info["turn"]`` counts the agent's words.

    Information:
        The common keys, plus ``legal_moves`` (the agent's legal words now, sorted; empty once
        the game is over), ``used_words`` (sorted) and ``chain`` (every word said, in order).
        ``feedback``: ``word`` (the agent's move), ``violation`` (``None`` |
        ``"not_in_list"`` | ``"wrong_first_letter"`` | ``"repeat"``, checked in that order),
        ``opponent_word`` (its reply or ``None``), ``opponent_violation``, ``dead_end`` (the
        letter nobody could continue, or ``None``); on a format error ``error``. ``hidden``:
        ``opponent`` (its name), ``opponent_plan`` (the opponent policy's ``plan()`` dict when
        it has one, e.g. the oracle's game value; ``None`` for the random opponent, which plans
        nothing), ``agent_starts`` (bool).

    Arguments:
        ``opponent`` (``"random"`` or any policy with ``reset(seed)`` and ``act(observation,
        info) -> str``, e.g. ``mtp_gym.agents.make_agent("oracle", "MTP/WordChain-v0")``; it sees what
        a player sees: its own observations and ``info`` with ``legal_moves``, ``used_words``,
        ``chain``, ``max_turns``), ``lexicon_size`` (500; other sizes have no benchmark
        split), ``max_turns`` (20, words per player), ``configs`` (``None`` |
        ``"benchmark"`` | ``"generated"``), ``max_format_errors`` (3), ``render_mode``
        (``None`` | ``"ansi"`` | ``"human"``), ``info_secret`` (``False``: no ``info["hidden"]``). Only the paper's rules are implemented: a
        player with no legal word does not lose. (The classic "stuck player loses" rule is
        left out: exact play under it does not scale to 500 words and a 40-word cap, see
        ``agents/oracles/word_chain.py``.)

    Version History:
        v0: initial release.
    """

    puzzle = PuzzleInfo(PAPERS[0], "the game ended without a loss by the agent (score the same)")

    @classmethod
    def play_controls(cls, seen: list[str]) -> list[dict[str, Any]]:
        return [{"label": "Play word", "template": "'{word}'", "fields": [control_field("word")]}]

    def __init__(
        self,
        opponent: Any = "random",
        lexicon_size: int = BENCH_LEXICON_SIZE,
        max_turns: int = 20,
        configs: str | None = None,
        max_format_errors: int = 3,
        render_mode: str | None = None,
        info_secret: bool = True,
    ) -> None:
        if isinstance(opponent, str):
            if opponent not in BUILTIN_OPPONENTS:
                raise ValueError(
                    f"opponent={opponent!r} is not supported; allowed: {BUILTIN_OPPONENTS} "
                    "or a policy with reset(seed) and act(observation, info)"
                )
        elif not (callable(getattr(opponent, "act", None)) and callable(getattr(opponent, "reset", None))):
            raise ValueError(
                f"opponent={opponent!r} is not supported; allowed: {BUILTIN_OPPONENTS} "
                "or a policy with reset(seed) and act(observation, info)"
            )
        if (
            isinstance(lexicon_size, bool)
            or not isinstance(lexicon_size, int)
            or not 2 <= lexicon_size <= len(scowl_words())
        ):
            raise ValueError(f"lexicon_size must be an int in [2, {len(scowl_words())}], got {lexicon_size!r}")
        self.opponent = opponent
        self.lexicon_size = lexicon_size
        self.obs_max_length = len(INSTRUCTIONS) + lexicon_size * (MAX_WORD_LENGTH + 2) + 512
        self.action_max_length = 4096
        super().__init__(
            max_turns=max_turns,
            configs=configs,
            max_format_errors=max_format_errors,
            render_mode=render_mode,
            info_secret=info_secret,
        )
        self._game = WordChainGame((), 0, max_turns)
        self._config: dict[str, Any] = {}
        self._opponent_seen_instructions = False

    # ------------------------------------------------------------------ configs
    @property
    def num_configs(self) -> int:
        return N_BENCH_GAMES if self.lexicon_size == BENCH_LEXICON_SIZE else 0

    def _benchmark_mismatch(self) -> str:
        return f"the benchmark has lexicon_size={BENCH_LEXICON_SIZE}; got lexicon_size={self.lexicon_size}"

    def _setup_benchmark(self, config_id: int) -> None:
        self._start(benchmark_games()[config_id])

    def _setup_generated(self) -> None:
        self._start(draw_game(self.np_random, self.lexicon_size))

    def _start(self, config: dict[str, Any]) -> None:
        self._config = config
        self._game = WordChainGame(config["lexicon"], config["first"], self.max_turns)
        if config["first"] == 1:
            self._game.play(config["opener"])
        self._opponent_seen_instructions = False
        if not isinstance(self.opponent, str):
            self.opponent.reset(seed=int(self.np_random.integers(2**31)))

    # ------------------------------------------------------------------ hooks
    def _instructions(self) -> str:
        text = instructions(self._game.lexicon)
        if self._config["first"] == 1:
            text += "\n\n" + OPENING.format(word=self._config["opener"])
        return text

    def _format_hint(self) -> str:
        return FORMAT_HINT

    def _parse(self, action: str) -> str:
        previous = self._game.previous
        word = parse_word(action, previous)
        if word is None:
            if previous is not None and previous in {w for w, _, _ in quoted_words(action)}:
                raise InvalidAction(f"'{previous}' is my word; wrap your own word in single quotes.")
            raise InvalidAction("no word in single quotes found.")
        return word

    def _play(self, word: str) -> Reply:
        game = self._game
        previous = game.previous
        feedback: dict[str, Any] = {
            "word": word,
            "violation": None,
            "opponent_word": None,
            "opponent_violation": None,
            "dead_end": None,
        }
        kind = game.play(word)
        if kind is not None:
            feedback["violation"] = kind
            return Reply(violation_message(word, kind, previous, you=True), feedback, "failure", 0.0)
        if game.over:
            if game.capped:
                return Reply("", feedback)  # the base class ends it at the cap
            assert game.stuck_letter is not None  # the game is over at a dead end
            feedback["dead_end"] = game.stuck_letter
            text = dead_end_message(game.stuck_letter, False)
            return Reply(text, feedback, "success", 1.0)
        reply, kind = self._opponent_move()
        feedback["opponent_word"] = reply
        if kind is not None:
            feedback["opponent_violation"] = kind
            if kind == "format_error":
                return Reply("I cannot find a word. I lose.", feedback, "success", 1.0)
            assert reply is not None  # a word that broke a rule
            return Reply(violation_message(reply, kind, word, you=False), feedback, "success", 1.0)
        text = REPLY.format(word=reply)
        if game.over and not game.capped:
            assert game.stuck_letter is not None
            feedback["dead_end"] = game.stuck_letter
            text += "\n" + dead_end_message(game.stuck_letter, True)
            return Reply(text, feedback, "success", 1.0)
        return Reply(text, feedback)

    def _opponent_move(self) -> tuple[str | None, str | None]:
        """The opponent's word and its violation (``"format_error"`` if it found no word)."""
        game = self._game
        if isinstance(self.opponent, str):
            legal = game.legal_moves()
            pick = legal[int(self.np_random.integers(len(legal)))]
            game.play(pick)
            return pick, None
        message = (OPENING if len(game.chain) == 1 else REPLY).format(word=game.previous)
        if not self._opponent_seen_instructions:
            message = instructions(game.lexicon) + "\n\n" + message
            self._opponent_seen_instructions = True
        info = {"turn": game.words_said[1], "max_turns": self.max_turns, **game.public_info()}
        word: str | None
        for _ in range(self.max_format_errors):
            try:
                word = parse_word(prepare_reply(self.opponent.act(message, info)), game.previous)
                error = "no word in single quotes found."
            except InvalidAction as err:
                word, error = None, str(err)
            if word is not None:
                return word, game.play(word)
            message = f"Invalid action: {error} {FORMAT_HINT}"
        game.forfeit(1)
        return None, "format_error"

    def _timeout(self) -> Reply:
        return Reply(CAP_MESSAGE, {}, "success", 1.0)

    def _hidden(self) -> dict[str, Any]:
        plan = None if isinstance(self.opponent, str) else getattr(self.opponent, "plan", None)
        return {
            "opponent": self.opponent if isinstance(self.opponent, str) else type(self.opponent).__name__,
            "opponent_plan": plan() if callable(plan) else None,
            "agent_starts": self._config.get("first") == 0,
        }

    def _info(self, feedback: dict[str, Any], valid: bool) -> dict[str, Any]:
        info = super()._info(feedback, valid)
        game = self._game
        info["legal_moves"] = game.legal_moves() if self._outcome is None else ()
        info["used_words"] = tuple(sorted(game.used))
        info["chain"] = tuple(game.chain)
        return info
