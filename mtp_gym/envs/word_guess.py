"""Word Guess (Multi-Turn Puzzles, section 2.1 and appendix A.4).

The env class :class:`WordGuessEnv` carries the documentation (Gymnasium headings).
"""

from __future__ import annotations

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
    read_one,
    refuse_retraction,
)
from mtp_gym.data import load_json, scowl_words
from mtp_gym.parsing import MAX_DIGITS, find_tags, format_restater, long_number, strip_reasoning

GREEN, YELLOW, GREY = "green", "yellow", "grey"
BENCH_VOCAB_SIZE, BENCH_WORD_LENGTH, N_BENCH_VOCABS = 40, 5, 10
MIN_WORD_LENGTH, MAX_WORD_LENGTH = 3, 10

INSTRUCTIONS = """Let's play word guess. The secret word is from the following vocabulary: {vocab}.

At each attempt, I will give feedback to you and specify which tiles are grey, yellow and green. Green implies that the letter is in the word and in the correct position, yellow implies that the letter is in the word but in the wrong position and grey implies that the letter is not in the word.

For e.g., if the secret word is SPARK and you guessed PROOF, then the feedback would be:

yellow, yellow, grey, grey, grey.

Your goal is to correctly guess the secret word in the minimum number of attempts and will be evaluated on the number of attempts you take to arrive at the secret word. Think step by step to ensure that you're taking the most optimal actions to guess the secret word.

All of your guesses should be structured as follows:

<attempt>Your guess</attempt>

Make sure that all of your attempts are strictly from the vocabulary specified above.

Start with your first attempt and make sure to follow the format specified above."""


_VOCAB_RE = re.compile(r"following vocabulary:\s*(.+?)\.\s*\n")


def vocabulary_in(observation: str) -> tuple[str, ...]:
    """The vocabulary the instructions list, in the order shown (what a player sees)."""
    match = _VOCAB_RE.search(observation)
    if match is None:
        raise ValueError("no Word Guess vocabulary in this observation")
    return tuple(w.strip() for w in match.group(1).split(","))


@lru_cache(maxsize=1 << 16)
def feedback(guess: str, secret: str) -> tuple[str, ...]:
    """Wordle colours of ``guess`` against ``secret`` (same length, same case)."""
    colors = [GREY] * len(guess)
    unmatched: dict[str, int] = {}
    for i, (g, s) in enumerate(zip(guess, secret)):
        if g == s:
            colors[i] = GREEN
        else:
            unmatched[s] = unmatched.get(s, 0) + 1
    for i, g in enumerate(guess):
        if colors[i] is not GREEN and unmatched.get(g, 0) > 0:
            colors[i] = YELLOW
            unmatched[g] -= 1
    return tuple(colors)


_COLOR_TEXT: dict[tuple[str, ...], str] = {}  # colours -> the reply line "green, grey, ..."


def feedback_code(colors: tuple[str, ...]) -> int:
    """Colours as a base-3 integer (grey 0, yellow 1, green 2; first letter most significant)."""
    code = 0
    for c in colors:
        code = code * 3 + (2 if c == GREEN else 1 if c == YELLOW else 0)
    return code


def attempts_score(attempts: int, max_turns: int) -> float:
    """The paper's normalized metric for a solve in ``attempts`` attempts."""
    return 1.0 if max_turns == 1 else 1.0 - (attempts - 1) / (max_turns - 1)


@cache
def benchmark_vocabularies() -> tuple[tuple[str, ...], ...]:
    """The 10 fixed vocabularies of 40 upper-case five-letter words."""
    return tuple(tuple(v) for v in load_json("word_guess", "vocabularies.json")["vocabularies"])


@cache
def generation_pool(word_length: int) -> tuple[str, ...]:
    """Upper-case SCOWL words of ``word_length`` letters, benchmark words left out."""
    bench = {w for v in benchmark_vocabularies() for w in v}
    return tuple(u for w in scowl_words() if len(w) == word_length and (u := w.upper()) not in bench)


@lru_cache(maxsize=64)
def _vocabulary_texts(vocab: tuple[str, ...]) -> tuple[frozenset[str], str]:
    """The vocabulary's set and the instructions that list it (each benchmark vocabulary's are
    made once, not at every reset)."""
    return frozenset(vocab), INSTRUCTIONS.format(vocab=", ".join(vocab))


_SPELLED_RE = re.compile(r"[A-Z](?:[- ]?-[- ]?[A-Z])+")


def _read_attempt(content: str) -> str:
    """The word of one ``<attempt>``, upper case; anything else is an :class:`InvalidAction`."""
    word = content.strip(" \t\n'\"`.*").upper()
    if word.isalpha() and word.isascii():  # the common case (a spelled-out word holds a dash)
        return word
    if _SPELLED_RE.fullmatch(word):  # S-T-A-R-E
        word = word.replace("-", "").replace(" ", "")
    if not word.isascii() or not word.isalpha():
        raise InvalidAction(f"the attempt {content[:60]!r} is not a single word of letters.")
    return word


FORMAT_HINT = "Reply with one word from the vocabulary as <attempt>WORD</attempt>."
_ATTEMPTS: dict[str, str] = {}  # short reply (as the model wrote it) -> attempted word, emptied when full
_REMEMBERED_LENGTH = 256  # a model's long replies are unique: remembering them only costs memory
_OPEN, _CLOSE = "<attempt>", "</attempt>"


def _attempt_in(reply: str) -> str:
    """The word a reply (already through :func:`~mtp_gym.core.read_reply`) attempts, by the
    reading policy: one ``<attempt>`` move, no retraction after it, a word of letters."""
    tags = find_tags(reply, "attempt")
    if not tags:
        raise InvalidAction("no <attempt>...</attempt> tag found.")
    refuse_retraction(reply[tags[-1].end :])
    return read_one([t.content for t in tags], _read_attempt, "attempts", restated=format_restater(FORMAT_HINT))


#: The plainest shape in one match: text without ``<``, one ``<attempt>`` holding letters between
#: characters the reading strips, then whitespace only. Every reply it matches is read as its
#: letters upper-cased by :func:`_plain_attempt` too (and so by the full reading).
_PLAINEST_RE = re.compile(r"[^<]*<attempt>[ \t\n'\"`.*]*([A-Za-z]+)[ \t\n'\"`.*]*</attempt>\s*", re.IGNORECASE)


def _plain_attempt(reply: str) -> str | None:
    """The word of a reply in the common shape, read exactly as :func:`read_reply` then
    :func:`_attempt_in` would read it, or ``None`` when the reply is not in that shape (then the
    full reading runs). The shape: ASCII (no dash to normalize), no over-long number, and
    exactly two ``<``, those of one ``<attempt>...</attempt>`` in any letter case: so there is no
    reasoning block (its tags need a ``<``), ``find_tags`` would find just that tag and
    :func:`read_one` would read its one candidate. Raises :class:`InvalidAction` as the full
    reading does."""
    if reply.count("<") != 2 or not reply.isascii():  # a reasoning block, say: no pattern tried
        return None
    if len(reply) <= MAX_DIGITS:
        m = _PLAINEST_RE.fullmatch(reply)
        if m is not None:
            return m.group(1).upper()
    elif long_number(reply):
        return None
    start = reply.find(_OPEN)
    end = reply.find(_CLOSE, start)
    if start < 0 or end < 0:  # the tags in another letter case
        low = reply.lower()
        start = low.find(_OPEN)
        end = low.find(_CLOSE, start)
        if start < 0 or end < 0:
            return None
    tail = reply[end + len(_CLOSE) :]
    if tail and not tail.isspace():  # every retraction is words
        refuse_retraction(tail)
    return _read_attempt(reply[start + len(_OPEN) : end].strip().strip("`*").strip())


def _from_first_tag(reply: str) -> str:
    """``reply`` from its first ``<`` on when what comes before is a lead-in of at most
    ``MAX_DIGITS`` characters: it holds no tag and no over-long number, so it reads the same."""
    start = reply.find("<")
    return reply[start:] if 0 < start <= MAX_DIGITS else reply


class WordGuessEnv(TextPuzzleEnv):
    """Word Guess (Multi-Turn Puzzles, section 2.1 and appendix A.4).

    Description:
        The agent guesses a secret word from a vocabulary shown in the instructions and receives
        Wordle-style feedback after every attempt: green (right letter, right place), yellow
        (letter elsewhere in the word), grey (not in the word). Repeated letters are coloured the
        way Wordle does: greens first, then yellows left to right while unmatched copies of the
        letter remain in the secret, the rest grey (so SPARK/PROOF gives "yellow, yellow, grey,
        grey, grey", the paper's example).

    Prompt Format:
        The paper's appendix A.4 prompt, word for word, with the vocabulary as upper-case words
        separated by ", ". Each reply is the feedback line, e.g. ``green, grey, grey, grey, yellow``.

    Action Format:
        ``<attempt>WORD</attempt>`` anywhere in the reply, any case; two different attempts
        in one reply are a re-prompt naming both. A missing
        tag or a tag that does not hold a single word of letters is a format error: re-prompt,
        no turn spent. A word of letters that is not in the vocabulary costs the turn and the
        reply says so.

    Observation Space:
        ``Text`` over printable ASCII; the instructions at reset, then the feedback.

    Rewards:
        0 per step; at the end the score: ``1 - (n - 1) / (max_turns - 1)`` for a solve in ``n``
        attempts, 0 if unsolved.

    Starting State:
        A vocabulary and a secret word: benchmark configuration ``i`` is word ``i % 40`` of
        vocabulary ``i // 40`` (10 disjoint vocabularies of 40 five-letter words, 400
        configurations, built from SCOWL sizes 10-20 by ``assets/scripts/build_word_lists.py``).
        Generated configurations draw ``vocab_size`` words of ``word_length`` letters from SCOWL
        sizes <= 35 with ``self.np_random``, leaving out the 400 benchmark words.

    Episode End:
        Terminated on a correct guess (outcome ``success``) or after ``max_format_errors``
        consecutive format errors (``format_error``); truncated when ``max_turns`` attempts are
        spent (``timeout``, score 0).

    Information:
        The common keys. ``feedback``: ``guess``, ``in_vocabulary``, ``colors`` (tuple of
        ``"green"/"yellow"/"grey"``, ``None`` outside the vocabulary), ``solved``; on a format
        error ``error``. ``hidden``: ``secret``, ``vocabulary`` (tuple), ``vocabulary_id``
        (benchmark vocabulary index or ``None``), built once per reset (a read-only mapping,
        :class:`~mtp_gym.core.FrozenInfo`); left out with ``info_secret=False``.

    Arguments:
        ``vocab_size`` (40), ``word_length`` (5, 3-10), ``max_turns`` (40), ``configs``
        (``None`` | ``"benchmark"`` | ``"generated"``), ``max_format_errors`` (3),
        ``render_mode`` (``None`` | ``"ansi"`` | ``"human"``), ``info_secret`` (``True``;
        ``False``: no ``hidden`` in ``info``, for training).

    Version History:
        v0: initial release.
    """

    puzzle = PuzzleInfo(PAPERS[0], "the secret word guessed within the turn budget (score: 1 - (n-1)/(max_turns-1))")
    hidden_fixed = True  # the secret and the vocabulary are drawn at reset
    infos_fresh = True  # _hidden() makes its dict at each call; the vocabulary is a tuple of str

    @classmethod
    def play_controls(cls, seen: list[str]) -> list[dict[str, Any]]:
        m = re.search(r"vocabulary: ([A-Z, ]+)\.", seen[0] if seen else "")
        words = [w.strip() for w in m.group(1).split(",")] if m else None
        return [{"label": "Guess", "template": "<attempt>{word}</attempt>", "fields": [control_field("word", words)]}]

    def __init__(
        self,
        vocab_size: int = BENCH_VOCAB_SIZE,
        word_length: int = BENCH_WORD_LENGTH,
        max_turns: int = 40,
        configs: str | None = None,
        max_format_errors: int = 3,
        render_mode: str | None = None,
        info_secret: bool = True,
    ) -> None:
        if (
            isinstance(word_length, bool)
            or not isinstance(word_length, int)
            or not (MIN_WORD_LENGTH <= word_length <= MAX_WORD_LENGTH)
        ):
            raise ValueError(
                f"word_length must be an int in [{MIN_WORD_LENGTH}, {MAX_WORD_LENGTH}], got {word_length!r}"
            )
        available = len(generation_pool(word_length))
        if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or not 2 <= vocab_size <= available:
            raise ValueError(
                f"vocab_size must be an int in [2, {available}] for word_length={word_length}, got {vocab_size!r}"
            )
        self.vocab_size = vocab_size
        self.word_length = word_length
        self.obs_max_length = len(INSTRUCTIONS) + vocab_size * (word_length + 2) + 256
        super().__init__(
            max_turns=max_turns,
            configs=configs,
            max_format_errors=max_format_errors,
            render_mode=render_mode,
            info_secret=info_secret,
        )
        self._vocab: tuple[str, ...] = ()
        self._vocab_set: frozenset[str] = frozenset()
        self._instructions_text = ""
        self._secret = ""
        self._vocab_id: int | None = None

    @property
    def vocabulary(self) -> tuple[str, ...]:
        """The vocabulary shown in the current episode's instructions."""
        return self._vocab

    @property
    def num_configs(self) -> int:
        if (self.vocab_size, self.word_length) == (BENCH_VOCAB_SIZE, BENCH_WORD_LENGTH):
            return N_BENCH_VOCABS * BENCH_VOCAB_SIZE
        return 0

    def _benchmark_mismatch(self) -> str:
        return (
            f"the benchmark has vocab_size={BENCH_VOCAB_SIZE}, word_length={BENCH_WORD_LENGTH}; "
            f"got vocab_size={self.vocab_size}, word_length={self.word_length}"
        )

    def config_strata(self) -> dict[str, list[Any]]:
        return {"vocabulary": [i // BENCH_VOCAB_SIZE for i in range(self.num_configs)]}

    def _setup_benchmark(self, config_id: int) -> None:
        vocab_id, index = divmod(config_id, BENCH_VOCAB_SIZE)
        vocab = benchmark_vocabularies()[vocab_id]
        self._set_game(vocab, vocab[index], vocab_id)

    def _setup_generated(self) -> None:
        pool = generation_pool(self.word_length)
        picked = self.np_random.choice(len(pool), size=self.vocab_size, replace=False)
        vocab = tuple(sorted(pool[i] for i in picked))
        self._set_game(vocab, vocab[int(self.np_random.integers(self.vocab_size))], None)

    def _set_game(self, vocab: tuple[str, ...], secret: str, vocab_id: int | None) -> None:
        self._vocab = vocab
        self._vocab_set, self._instructions_text = _vocabulary_texts(vocab)
        self._secret = secret
        self._vocab_id = vocab_id

    def _instructions(self) -> str:
        return self._instructions_text

    def _format_hint(self) -> str:
        return FORMAT_HINT

    def _parse(self, action: str) -> str:
        return _attempt_in(action)

    def read_move(self, action: Any) -> str:
        """The base class's reading (:func:`read_reply`, then :meth:`_parse`), with shortcuts that
        read the same. A reply is read from its first ``<`` on (:func:`_from_first_tag`), and
        from there again once its reasoning blocks are stripped. A text of the common shape is
        read in one pass (:func:`_plain_attempt`). A short text seen before is remembered (the
        word is a pure function of the text: a discrete view's or a scripted player's fixed
        strings, and a model's moves behind new lead-ins or reasoning, are read once)."""
        if type(action) is not str:
            return super().read_move(action)
        text = _from_first_tag(action)
        word = _ATTEMPTS.get(text)
        if word is not None:
            return word
        word = _plain_attempt(text)
        if word is None:
            bare = strip_reasoning(text)  # read_reply reads the same of it: nothing is left to strip
            if bare is not text:
                text = _from_first_tag(bare)
                word = _ATTEMPTS.get(text)
                if word is not None:
                    return word
                word = _plain_attempt(text)
            if word is None:
                word = super().read_move(text)
        if len(text) <= _REMEMBERED_LENGTH:
            if len(_ATTEMPTS) >= 1 << 10:
                _ATTEMPTS.clear()
            _ATTEMPTS[text] = word
        return word

    def _play(self, word: str) -> Reply:
        if word not in self._vocab_set:
            return Reply(
                f"{word} is not in the vocabulary; this attempt still counts. "
                "Make sure that all of your attempts are strictly from the vocabulary specified above.",
                {"guess": word, "in_vocabulary": False, "colors": None, "solved": False},
            )
        colors = feedback(word, self._secret)
        text = _COLOR_TEXT.get(colors)
        if text is None:
            text = _COLOR_TEXT[colors] = ", ".join(colors)  # at most 3**MAX_WORD_LENGTH texts
        if word != self._secret:
            return Reply(text, {"guess": word, "in_vocabulary": True, "colors": colors, "solved": False})
        n = self._turn
        return Reply(
            f"{text}\nCorrect! The secret word is {word}. You solved it in {n} attempt{'s' * (n != 1)}.",
            {"guess": word, "in_vocabulary": True, "colors": colors, "solved": True},
            "success",
            attempts_score(n, self.max_turns),
        )

    def _hidden(self) -> dict[str, Any]:
        return {"secret": self._secret, "vocabulary": self._vocab, "vocabulary_id": self._vocab_id}

    def _timeout(self) -> Reply:
        return Reply(
            f"You have used all {self.max_turns} attempts. The secret word was {self._secret}.",
            {},
            "timeout",
            0.0,
        )
