"""Twenty Questions, the model answers (Multi-Turn Puzzles, section 2.1, appendices A.3, A.4).

The env class :class:`TwentyQuestionsEnv` carries the documentation (Gymnasium headings).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cache, lru_cache, reduce
from itertools import compress
from operator import and_, or_
from typing import Any

import numpy as np

from mtp_gym.core import PAPERS, InvalidAction, PuzzleInfo, Reply, TextPuzzleEnv, refuse_retraction, single
from mtp_gym.data import load_json
from mtp_gym.parsing import find_tags, last_match

# --------------------------------------------------------------------------- constants
HYPERNYM, GUESS = "hypernym", "guess"
YES_TO_EXCLUDED_HYPERNYM = "yes_to_excluded_hypernym"
NO_TO_SHARED_HYPERNYM = "no_to_shared_hypernym"
NO_TO_LAST_WORD = "no_to_last_word"
YES_TO_EXCLUDED_WORD = "yes_to_excluded_word"
CONTRADICTIONS = (YES_TO_EXCLUDED_HYPERNYM, NO_TO_SHARED_HYPERNYM, NO_TO_LAST_WORD, YES_TO_EXCLUDED_WORD)

#: The user simulator's probabilities (appendix A.3).
P_SPONTANEOUS_GUESS = 0.02
P_EXCLUDED_WORD = 0.15
P_EXCLUDED_HYPERNYM = 0.1
P_SHARED_HYPERNYM = 0.1

#: Appendix A.3's lexicon filters (checked by :func:`lexicon_violations`).
MIN_HYPERNYMS = 7
#: WordNet usage domains that mark a noun sense as offensive; a word with any such sense is
#: never in a lexicon (the build drops it).
OFFENSIVE_DOMAINS = frozenset({"disparagement.n.01", "ethnic_slur.n.01", "obscenity.n.02"})
#: Offensive words WordNet does not mark (checked on every shipped lexicon as well).
BLOCKLIST = frozenset(
    {"chink", "coon", "dago", "dyke", "fag", "faggot", "gook", "homo", "jap", "kike", "negro", "nigger", "paki",
     "retard", "spic", "tranny", "wetback", "whore", "wop"}
)  # fmt: skip
REQUIRED_HYPERNYM = "physical entity"
FORBIDDEN_HYPERNYM = "abstraction"
BENCH_MIN_WORDS, BENCH_MAX_WORDS, N_BENCH_LEXICONS = 80, 100, 400
MAX_LEXICON_SIZE = 200
DEFAULT_MAX_TURNS = 21

INSTRUCTIONS = """Let's play a game of 20 questions. I want you to choose a secret word (don't tell me what it is!) from the list below:

{word_list}

I will ask you simple yes/no questions about the word. You should answer these questions with either 'yes' or 'no', according to the attributes listed below:

{word_to_attributes_list}

So for example if your word is 'dog', and 'dog' has the listed attribute 'object', and I ask 'Is it a type of object?', you should say 'yes', even though dogs are not typically considered objects.

Conversely, if your word is 'dog', and 'dog' *does not* have the listed attribute 'pet', and I ask 'Is it a type of pet?', then you should say 'no', even though dogs are typically considered pets.

When I think I know what the word is, I'll ask you to confirm it, and you should again respond with either 'yes' or 'no'.

Ok, let me know once you've picked your word (remember, don't tell me what it is), and we'll get started!"""
FIRST_QUESTION = "\n\nFirst question: {question}"

_ANSWER_RE = re.compile(r"(?<![A-Za-z0-9_])(yes|no)(?![A-Za-z0-9_])", re.IGNORECASE)
_TAG_ANSWER_RE = re.compile(r"[\s*_`'\"]*(yes|no)\b", re.IGNORECASE)
_LABELED_ANSWER_RE = re.compile(r"(?:\b|_)answer(?:[\s*]*is)?[\s:\-*_`'\"]*(yes|no)\b", re.IGNORECASE)
# Yes/no words that are not an answer: "no" as a determiner ("no doubt"), the format restated
# ("yes or no", "'yes'/'no'"), a negated mention ("I would not say yes to that").
_NOT_AN_ANSWER = (
    r"\bno\s+(?:doubts?|worries|worry|questions?|problems?|matter|need|harm|offen[cs]e|pressure|idea|other|"
    r"longer|more|less|one|reason|issues?|kidding|thanks|clue)\b"
    r"|\b(?:yes|no)['\"*_`]?\s*(?:/|\bor\b|\||,\s*or\b)\s*['\"*_`]?(?:yes|no)\b"
    r"|(?:\b(?:not|never|cannot)|n't)\s+(?:\w+\s+)?(?:say|answer|reply|respond)\s+(?:with\s+)?['\"*_`]?(?:yes|no)\b"
    r"|\b(?:say|answer)\s+['\"*_`]?(?:yes|no)['\"*_`]?\s+(?:only\s+)?(?:if|when|unless)\b"
    r"|(?:\byou\s+(?:should|must|need\s+to|have\s+to|ought\s+to|are\s+supposed\s+to)|\bremember\s+to|\bmake\s+sure\s+to"
    r"|\bplease)\s+"
    r"(?:\w+\s+)?(?:say|answer|respond|reply)(?:\s+(?:with|by\s+saying))?\s*[:,]?\s*['\"*_`\u201c\u2018]?(?:yes|no)\b"
)
# Every match starts with one of these letters: the look-ahead turns most positions of a long
# reply away at once instead of trying each branch there (English prose: 2.6x faster).
_NOT_AN_ANSWER_RE = re.compile(rf"(?=[nycsarmp])(?:{_NOT_AN_ANSWER})", re.IGNORECASE)
_LEXICON_RE = re.compile(
    r"from the list below:\n\n(.*?)\n\nI will ask you.*?attributes listed below:\n\n(.*?)\n\nSo for example", re.DOTALL
)
_QUESTION_RE = re.compile(r"Is it a type of (.+)\?|Is your word (.+)\?")


# --------------------------------------------------------------------------- pure rules
def question_text(kind: str, subject: str) -> str:
    """The user's wording: ``Is it a type of X?`` or ``Is your word W?`` (appendix A.3)."""
    return f"Is it a type of {subject}?" if kind == HYPERNYM else f"Is your word {subject}?"


def parse_question(text: str) -> tuple[str, str]:
    """``(kind, subject)`` of the last user question in ``text``."""
    found = last_match(_QUESTION_RE, text)
    if found is None:
        raise ValueError("no Twenty Questions question in this text")
    return (HYPERNYM, found.group(1)) if found.group(1) is not None else (GUESS, found.group(2))


def parse_answer(text: str) -> bool | None:
    """``True`` for yes, ``False`` for no, ``None`` if the reply holds neither word.

    Read, in order: ``<answer>`` tags; else ``Answer: yes`` / ``Final answer: no`` labels;
    else the yes/no words of the reply as its sentences use them: ``no`` as a determiner
    (``No worries, yes.``, ``Yes, no doubt.``), the format restated (``yes or no``) and a
    mention (``I would not say yes to that``, ``you should respond with "no"``, ``say yes only
    if ...``) are not answers. The words left must
    agree: tags, labels or words that disagree (a correction ``No, wait: yes.``) are an
    :class:`InvalidAction`, never a guess.
    """
    low = text.lower()
    plain = _NOT_AN_ANSWER_RE.sub(" ", text) if "yes" in low or "no" in low else text
    tagged = [(m.group(1).lower(), t.end) for t in find_tags(plain, "answer") if (m := _TAG_ANSWER_RE.match(t.content))]
    found = tagged or [(m.group(1).lower(), m.end()) for m in _LABELED_ANSWER_RE.finditer(plain)]
    if found:
        refuse_retraction(plain[found[-1][1] :])
        return single([a for a, _ in found], "answers") == "yes"
    words = {m.group(1).lower() for m in _ANSWER_RE.finditer(plain)}
    if len(words) > 1:
        raise InvalidAction("the reply says both 'yes' and 'no'; reply with the one you mean.")
    return words.pop() == "yes" if words else None


def format_instructions(hypernyms: Mapping[str, Sequence[str]]) -> str:
    """The A.4 prompt for a lexicon (``word -> hypernyms``, in display order)."""
    return INSTRUCTIONS.format(
        word_list=", ".join(hypernyms),
        word_to_attributes_list="\n".join(f"{w}: {', '.join(h)}" for w, h in hypernyms.items()),
    )


def parse_instructions(text: str) -> dict[str, tuple[str, ...]]:
    """``word -> hypernyms`` as listed in the instructions (what a player can read)."""
    match = _LEXICON_RE.search(text)
    if match is None:
        raise ValueError("no Twenty Questions lexicon in this observation")
    lexicon: dict[str, tuple[str, ...]] = {}
    for line in match.group(2).splitlines():
        word, _, labels = line.partition(": ")
        lexicon[word] = tuple(labels.split(", "))
    if list(lexicon) != match.group(1).split(", "):
        raise ValueError("the word list and the attribute list disagree")
    return lexicon


def update_consistent(consistent: int, yes_set: int, answer: bool) -> int:
    """The consistent set after answering a question whose "yes" words are ``yes_set``.

    Sets of lexicon words are int bitmasks (bit ``i`` = word ``i``); a guess of word ``i``
    has ``yes_set = 1 << i``, a hypernym the words that have it.
    """
    return consistent & yes_set if answer else consistent & ~yes_set


def contradiction(kind: str, consistent: int, yes_set: int, answer: bool) -> str | None:
    """The A.3 contradiction this answer commits, or ``None`` (``consistent`` non-empty).

    An answer contradicts the earlier ones exactly when it empties the consistent set; the
    way it does so names the rule: "yes" to a hypernym no consistent word has, "no" to one
    all of them have, "yes" to an excluded word, "no" to the only consistent word.
    """
    if update_consistent(consistent, yes_set, answer):
        return None
    if kind == HYPERNYM:
        return YES_TO_EXCLUDED_HYPERNYM if answer else NO_TO_SHARED_HYPERNYM
    return YES_TO_EXCLUDED_WORD if answer else NO_TO_LAST_WORD


def hypernym_categories(consistent: int, by_word: Sequence[int]) -> tuple[int, int, int]:
    """Bitmasks (bit ``j`` = hypernym ``j``) of the hypernyms that only excluded words have,
    that all consistent words have, and that a proper non-empty subset of the consistent words
    has; ``by_word[i]`` is the bitmask of word ``i``'s hypernyms (:attr:`Lexicon.word_hypernyms`)."""
    if consistent == (1 << len(by_word)) - 1 and isinstance(by_word, tuple):  # every episode's first question
        return _categories_of_all(by_word)
    return _categories(consistent, by_word)


@lru_cache(maxsize=512)
def _categories_of_all(by_word: tuple[int, ...]) -> tuple[int, int, int]:
    return _categories((1 << len(by_word)) - 1, by_word)


def _categories(consistent: int, by_word: Sequence[int]) -> tuple[int, int, int]:
    chosen = _selectors(consistent)
    some = reduce(or_, compress(by_word, chosen), 0)
    every = reduce(and_, compress(by_word, chosen), -1)
    excluded = reduce(or_, compress(by_word, _selectors(((1 << len(by_word)) - 1) & ~consistent)), 0)
    return excluded & ~some, every, some & ~every


_BIT_BYTES = bytes.maketrans(b"01", b"\x00\x01")


def _selectors(mask: int) -> bytes:
    """Byte ``i`` is bit ``i`` of ``mask`` (0 or 1), up to its highest set bit: for ``compress``."""
    return bin(mask)[:1:-1].encode().translate(_BIT_BYTES)


def _nth_bit(mask: int, k: int) -> int:
    """Index of the set bit number ``k`` (from 0, ascending) of ``mask``."""
    base = 0
    while k >= (here := (mask & 0xFFFF).bit_count()):  # skip 16 bits at a time
        k -= here
        mask >>= 16
        base += 16
    for _ in range(k):
        mask &= mask - 1
    return base + (mask & -mask).bit_length() - 1


def user_question(
    rng: np.random.Generator,
    consistent: int,
    by_word: Sequence[int],
    questions_asked: int,
    max_questions: int,
) -> tuple[str, int]:
    """The A.3 user simulator's next question: ``(GUESS, word index)`` or ``(HYPERNYM,
    hypernym index)``.

    ``consistent`` is a non-empty bitmask over the lexicon words, ``by_word[i]`` the bitmask
    of word ``i``'s hypernyms (:attr:`Lexicon.word_hypernyms`); the question numbered
    ``questions_asked + 1`` is a guess when ``questions_asked >= max_questions - 1``.
    Draws: one uniform for the spontaneous guess (unless the guess is forced); for a
    guess, one uniform for the excluded-word branch (only if some word is excluded) and one
    integer for the word; for a hypernym, one uniform for the category and one integer.
    A pool is drawn from in ascending index order.
    """
    forced = (consistent & (consistent - 1)) == 0 or questions_asked >= max_questions - 1
    if forced or rng.random() < P_SPONTANEOUS_GUESS:
        excluded = ((1 << len(by_word)) - 1) & ~consistent
        pool = excluded if excluded and rng.random() < P_EXCLUDED_WORD else consistent
        return GUESS, _nth_bit(pool, int(rng.integers(pool.bit_count())))
    excluded_only, shared, proper = hypernym_categories(consistent, by_word)
    u = rng.random()
    if u < P_EXCLUDED_HYPERNYM and excluded_only:
        pool = excluded_only
    elif P_EXCLUDED_HYPERNYM <= u < P_EXCLUDED_HYPERNYM + P_SHARED_HYPERNYM and shared:
        pool = shared
    else:
        pool = proper or shared
    return HYPERNYM, _nth_bit(pool, int(rng.integers(pool.bit_count())))


def synset_label(synset: str) -> str:
    """Lower-case display name of a synset name: ``"physical_entity.n.01"`` -> ``"physical entity"``
    (nltk lower-cases synset names; hypernym names keep the lemma's case)."""
    return synset.rsplit(".", 2)[0].replace("_", " ")


def pair_conflict(a: str, entry_a: Mapping[str, Any], b: str, entry_b: Mapping[str, Any]) -> str | None:
    """Why nouns ``a`` and ``b`` cannot share a lexicon (A.3's pairwise filters), or ``None``.

    ``entry`` is a pool entry (``synset``, ``hypernyms``). A word is a hypernym of another
    when the word itself or its synset's name is among the other's hypernyms.
    """
    ha, hb = entry_a["hypernyms"], entry_b["hypernyms"]
    if set(ha) == set(hb):
        return f"{a!r} and {b!r} have identical hypernym sets"
    for x, ex, other, hy in ((a, entry_a, b, hb), (b, entry_b, a, ha)):
        names = {h.lower() for h in hy}
        if x.lower() in names or synset_label(ex["synset"]) in names:
            return f"{x!r} is a hypernym of {other!r}"
    return None


def word_violations(word: str, entry: Mapping[str, Any]) -> list[str]:
    """A.3's per-word filters that ``word`` fails (SCOWL membership is the build's job)."""
    hyps = entry["hypernyms"]
    bad = []
    if len(set(hyps)) < MIN_HYPERNYMS:
        bad.append(f"{word!r} has {len(set(hyps))} < {MIN_HYPERNYMS} hypernyms")
    if REQUIRED_HYPERNYM not in hyps:
        bad.append(f"{word!r} lacks the hypernym {REQUIRED_HYPERNYM!r}")
    if FORBIDDEN_HYPERNYM in hyps:
        bad.append(f"{word!r} has the hypernym {FORBIDDEN_HYPERNYM!r}")
    if word.lower() in {h.lower() for h in hyps}:
        bad.append(f"{word!r} is its own hypernym")
    return bad


def lexicon_violations(words: Sequence[str], pool: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Every A.3 filter that the lexicon ``words`` breaks (empty list: all hold).

    Equivalent to :func:`word_violations` on each word plus :func:`pair_conflict` on each
    pair, computed through indexes (linear, not quadratic, in the lexicon size).
    """
    bad = [v for w in words for v in word_violations(w, pool[w])]
    if len(set(words)) != len(words):
        bad.append("repeated words")
    by_set: dict[frozenset[str], str] = {}
    having: dict[str, list[str]] = {}  # lower-case hypernym name -> words that have it
    for w in words:
        hyps = frozenset(pool[w]["hypernyms"])
        if hyps in by_set:
            bad.append(f"{by_set[hyps]!r} and {w!r} have identical hypernym sets")
        by_set.setdefault(hyps, w)
        for h in {h.lower() for h in hyps}:
            having.setdefault(h, []).append(w)
    for w in words:
        for name in sorted({w.lower(), synset_label(pool[w]["synset"])}):
            bad.extend(f"{w!r} is a hypernym of {v!r}" for v in having.get(name, ()) if v != w)
    return bad


def sample_lexicon(rng: np.random.Generator, pool: Mapping[str, Mapping[str, Any]], size: int) -> tuple[str, ...]:
    """``size`` pool words that pass the pairwise filters, sorted: the pool in a random order
    (``rng.permutation`` of the sorted words), each word kept unless it conflicts
    (:func:`pair_conflict`) with one already kept."""
    names = sorted(pool)
    kept: list[str] = []
    kept_sets: set[frozenset[str]] = set()
    kept_lower: set[str] = set()  # every kept word's hypernym names, lower-case
    kept_own: set[str] = set()  # every kept word and its synset's name
    for i in rng.permutation(len(names)).tolist():
        w = names[i]
        hyps = frozenset(pool[w]["hypernyms"])
        lower = {h.lower() for h in hyps}
        own = {w.lower(), synset_label(pool[w]["synset"])}
        if hyps in kept_sets or own & kept_lower or kept_own & lower:
            continue
        kept.append(w)
        kept_sets.add(hyps)
        kept_lower |= lower
        kept_own |= own
        if len(kept) == size:
            return tuple(sorted(kept))
    raise ValueError(f"lexicon_size={size}: the pool holds only {len(kept)} compatible words")


# --------------------------------------------------------------------------- data
@cache
def word_pool() -> dict[str, dict[str, Any]]:
    """Every noun that passes A.3's per-word filters: ``word -> {synset, hypernyms}``."""
    return load_json("twenty_questions", "pool.json")["words"]


@cache
def benchmark_lexicons() -> tuple[tuple[tuple[str, ...], int], ...]:
    """The 400 benchmark configurations: (sorted lexicon words, user seed)."""
    return tuple(
        (tuple(c["words"]), int(c["user_seed"])) for c in load_json("twenty_questions", "lexicons.json")["lexicons"]
    )


class Lexicon:
    """A lexicon prepared for play: words, hypernyms (sorted), yes-sets, instructions."""

    def __init__(self, words: Sequence[str]) -> None:
        pool = word_pool()
        self.words = tuple(words)
        self.index = {w: i for i, w in enumerate(self.words)}
        self.hypernyms = {w: tuple(pool[w]["hypernyms"]) for w in self.words}
        masks: dict[str, int] = {}
        for i, w in enumerate(self.words):
            for h in self.hypernyms[w]:
                masks[h] = masks.get(h, 0) | (1 << i)
        self.labels = tuple(sorted(masks))
        self.yes_sets = tuple(masks[h] for h in self.labels)
        position = {h: j for j, h in enumerate(self.labels)}
        #: per word, the bitmask of its hypernyms (bit ``j`` = ``labels[j]``)
        self.word_hypernyms = tuple(sum(1 << position[h] for h in set(self.hypernyms[w])) for w in self.words)
        self.full = (1 << len(self.words)) - 1
        self.instructions = format_instructions(self.hypernyms)


@lru_cache(maxsize=512)
def prepared_lexicon(words: tuple[str, ...]) -> Lexicon:
    """The :class:`Lexicon` of ``words`` (pool words), cached and shared read-only."""
    return Lexicon(words)


@cache
def _max_instructions_length(size: int) -> int:
    """Upper bound on the instructions' length for lexicons of at most ``size`` pool words."""
    per_word = sorted(
        (2 * (len(w) + 2) + sum(len(h) + 2 for h in e["hypernyms"]) for w, e in word_pool().items()),
        reverse=True,
    )
    return len(INSTRUCTIONS) + sum(per_word[:size])


# --------------------------------------------------------------------------- env
@cache
def _seeded_state(seed: int) -> Mapping[str, Any]:
    """The state of ``np.random.default_rng(seed)``: restoring it into a generator costs a
    seventh of seeding one (a benchmark configuration's user simulator, at every reset)."""
    return np.random.default_rng(seed).bit_generator.state


class TwentyQuestionsEnv(TextPuzzleEnv):
    """Twenty Questions, the model answers (Multi-Turn Puzzles, section 2.1, appendices A.3, A.4).

    Description:
        The agent picks a secret word from a lexicon of 80-100 WordNet nouns shown with their
        hypernyms (it never states the word) and answers a simulated user's yes/no questions
        "Is it a type of X?" (X a listed hypernym) and, at the end, "Is your word W?". The
        agent loses as soon as an answer contradicts its earlier answers; a game that stays
        consistent through the final question is a win. The verifier keeps the *consistent
        set*: the lexicon words that agree with every answer so far (a "yes" to X keeps the
        words that have X, a "no" the others; a guess of W keeps W or removes it).

        Appendix A.3 lists five contradictions. Each one is an answer that empties the
        consistent set, and every answer that empties it is exactly one of the first four, so
        the check "the consistent set became empty" is exact and names the rule
        (:func:`contradiction`):

        * ``yes_to_excluded_hypernym``: "yes" to X when every word with X is already excluded;
        * ``no_to_shared_hypernym``: "no" to X when every remaining consistent word has X;
        * ``no_to_last_word``: one consistent word remains, the user guesses it, the answer is "no";
        * ``yes_to_excluded_word``: the user guesses an excluded word, the answer is "yes";
        * "no logically consistent words remain" (rule 5) is the union of the four above.

        The user simulator is A.3's probabilistic state machine (:func:`user_question`). Before
        each question it guesses the word if one consistent word is left, if the question
        budget is spent, or spontaneously with p = 0.02. A guess names an excluded word with
        p = 0.15 (when one exists), otherwise a uniformly drawn consistent word. Otherwise it
        asks about a hypernym: with p = 0.1 one that only excluded words have, with p = 0.1 one
        that every consistent word has, otherwise one that a proper, non-empty subset of the
        consistent words has (a drawn category with no member falls back to the last one);
        each uniformly among the lexicon's hypernyms of that category. Every guess is the
        final question: the game ends with the answer to it.

    Prompt Format:
        The paper's appendix A.4 prompt word for word, with ``{word_list}`` the lexicon
        comma-separated and ``{word_to_attributes_list}`` one line per word
        (``word: hypernym, hypernym, ...``, nearest hypernym first). The paper's opening
        exchange (the model says it has picked a word, then the first question comes) is
        folded into the first observation: the prompt is followed by ``First question: Is it
        a type of X?``, so every action is an answer. Each reply is the next question; the
        last one reports the end of the game.

    Action Format:
        Free text containing the answer ``yes`` or ``no`` as a word, any case, surrounded by
        anything (``No.``, ``**Yes**``, ``'no'``, ``I checked the list: yes``). Read in order:
        ``<answer>...</answer>`` tags, else an ``Answer: yes`` label, else the reply's first
        word (``Yes, there is no doubt.`` is yes), else the reply's yes/no words when they all
        agree. Tags or labels that disagree, or both words with neither first, are a re-prompt
        naming the conflict. A reply without a standalone ``yes``/``no`` is a format error: a
        re-prompt that repeats the question, no turn spent, the user does not move.

    Observation Space:
        ``Text`` over printable ASCII, ``max_length`` the longest possible instructions.

    Rewards:
        0 per step; at the end 1.0 if every answer stayed consistent (outcome ``success``),
        0.0 after a contradiction (``failure``).

    Starting State:
        Benchmark configuration ``i`` is lexicon ``i`` of ``assets/twenty_questions/
        lexicons.json`` (400 lexicons of 80-100 nouns, built from real WordNet 3.0 and SCOWL by
        ``assets/scripts/build_twenty_questions.py`` with every filter of A.3, plus one of ours:
        the word is predominantly a noun, so ``crazy`` or ``chased`` do not appear) with the user
        simulator's generator seeded by that configuration's ``user_seed``, so the same answers
        meet the same questions on every machine. Generated configurations draw a lexicon
        from the shipped pool of nouns that pass the per-word filters (same pairwise filters)
        and drive the user with ``self.np_random``.

    Episode End:
        Terminated after the answer to the final guess (``success``), at a contradiction
        (``failure``) or after ``max_format_errors`` consecutive format errors
        (``format_error``). The user guesses by question ``max_turns`` at the latest (20
        questions + 1 final by default), so the budget never truncates an episode.

    Information:
        The common keys. ``feedback``: ``question`` (text), ``kind`` (``"hypernym"`` or
        ``"guess"``), ``subject`` (the hypernym or word asked about), ``answer``
        (``"yes"``/``"no"``), ``final`` (bool), ``contradiction`` (``None`` or one of the rule
        names above) and ``explanation`` (text, at a contradiction); on a format error
        ``error``. ``hidden``: ``consistent`` (sorted tuple of the words consistent with every
        answer so far; empty after a contradiction), ``lexicon_id`` (benchmark lexicon or
        ``None``), ``user_seed`` (the user's seed or ``None``).

    Arguments:
        ``lexicon_size`` (``None``: the benchmark's 80-100 words; an int in [2, 200] for
        generated lexicons of that size), ``max_turns`` (21: 20 questions + 1 final),
        ``configs`` (``None`` | ``"benchmark"`` | ``"generated"``), ``max_format_errors`` (3),
        ``render_mode`` (``None`` | ``"ansi"`` | ``"human"``), ``info_secret`` (``False``: no ``info["hidden"]``).

    Version History:
        v0: initial release.
    """

    puzzle = PuzzleInfo(PAPERS[0], "every answer consistent until the questioner found the word (score the same)")

    @classmethod
    def play_controls(cls, seen: list[str]) -> list[dict[str, Any]]:
        return [{"label": answer, "template": f"<answer>{answer}</answer>", "fields": []} for answer in ("Yes", "No")]

    def __init__(
        self,
        lexicon_size: int | None = None,
        max_turns: int = DEFAULT_MAX_TURNS,
        configs: str | None = None,
        max_format_errors: int = 3,
        render_mode: str | None = None,
        info_secret: bool = True,
    ) -> None:
        if lexicon_size is not None and (
            isinstance(lexicon_size, bool)
            or not isinstance(lexicon_size, int)
            or not 2 <= lexicon_size <= MAX_LEXICON_SIZE
        ):
            raise ValueError(f"lexicon_size must be None or an int in [2, {MAX_LEXICON_SIZE}], got {lexicon_size!r}")
        self.lexicon_size = lexicon_size
        longest_question = max(len(question_text(GUESS, w)) for w in word_pool()) + 64
        self.obs_max_length = (
            _max_instructions_length(lexicon_size or BENCH_MAX_WORDS) + len(FIRST_QUESTION) + longest_question + 256
        )
        super().__init__(
            max_turns=max_turns,
            configs=configs,
            max_format_errors=max_format_errors,
            render_mode=render_mode,
            info_secret=info_secret,
        )
        self._lexicon: Lexicon | None = None
        self._consistent = 0
        self._question: tuple[str, int] = (GUESS, 0)
        self._asked = 0
        self._user_rng: np.random.Generator | None = None
        self._seeded_user_rng = np.random.default_rng(0)
        self._lexicon_id: int | None = None
        self._user_seed: int | None = None

    @property
    def num_configs(self) -> int:
        return N_BENCH_LEXICONS if self.lexicon_size is None else 0

    def _benchmark_mismatch(self) -> str:
        return f"the benchmark has lexicon_size=None (80-100 words); got lexicon_size={self.lexicon_size}"

    def _setup_benchmark(self, config_id: int) -> None:
        words, seed = benchmark_lexicons()[config_id]
        rng = self._seeded_user_rng  # the env's own: np.random.default_rng(seed), its state restored
        rng.bit_generator.state = _seeded_state(seed)
        self._start(prepared_lexicon(words), rng, config_id, seed)

    def _setup_generated(self) -> None:
        rng = self.np_random
        size = self.lexicon_size or int(rng.integers(BENCH_MIN_WORDS, BENCH_MAX_WORDS + 1))
        self._start(prepared_lexicon(sample_lexicon(rng, word_pool(), size)), rng, None, None)

    def _start(self, lexicon: Lexicon, user_rng: np.random.Generator, lexicon_id: int | None, seed: int | None) -> None:
        self._lexicon = lexicon
        self._consistent = lexicon.full
        self._asked = 0
        self._user_rng = user_rng
        self._lexicon_id = lexicon_id
        self._user_seed = seed
        self._ask()

    def _ask(self) -> str:
        """Draw the user's next question; the re-prompt after a format error repeats it."""
        lex, rng = self._lexicon, self._user_rng
        assert lex is not None and rng is not None  # set by reset()
        self._question = user_question(rng, self._consistent, lex.word_hypernyms, self._asked, self.max_turns)
        kind, subject, _ = self._question_parts()
        return question_text(kind, subject)

    def _format_hint(self) -> str:
        kind, subject, _ = self._question_parts()
        return f"Answer the question with 'yes' or 'no': {question_text(kind, subject)}"

    def _question_parts(self) -> tuple[str, str, int]:
        kind, j = self._question
        lex = self._lexicon
        assert lex is not None  # set by reset()
        if kind == GUESS:
            return kind, lex.words[j], 1 << j
        return kind, lex.labels[j], lex.yes_sets[j]

    def _instructions(self) -> str:
        kind, subject, _ = self._question_parts()
        assert self._lexicon is not None  # set by reset()
        return self._lexicon.instructions + FIRST_QUESTION.format(question=question_text(kind, subject))

    def _parse(self, action: str) -> bool:
        answer = parse_answer(action)
        if answer is None:
            raise InvalidAction("no 'yes' or 'no' found in the reply.")
        return answer

    def _play(self, answer: bool) -> Reply:
        kind, subject, yes_set = self._question_parts()
        self._asked += 1
        feedback: dict[str, Any] = {
            "question": question_text(kind, subject),
            "kind": kind,
            "subject": subject,
            "answer": "yes" if answer else "no",
            "final": kind == GUESS,
            "contradiction": contradiction(kind, self._consistent, yes_set, answer),
        }
        rule = feedback["contradiction"]
        if rule is not None:
            feedback["explanation"] = _explain(rule, subject)
            self._consistent = 0
            return Reply(
                f"That answer contradicts your earlier answers: {feedback['explanation']}. You lose.",
                feedback,
                "failure",
                0.0,
            )
        self._consistent = update_consistent(self._consistent, yes_set, answer)
        if kind == GUESS:
            return Reply(
                "Thanks for playing! Your answers were logically consistent throughout. You win.",
                feedback,
                "success",
                1.0,
            )
        return Reply(self._ask(), feedback)

    def _hidden(self) -> dict[str, Any]:
        words = self._lexicon.words if self._lexicon else ()
        return {
            "consistent": tuple(compress(words, _selectors(self._consistent))),
            "lexicon_id": self._lexicon_id,
            "user_seed": self._user_seed,
        }


def _explain(rule: str, subject: str) -> str:
    return {
        YES_TO_EXCLUDED_HYPERNYM: f"every word that is a type of {subject} was already ruled out, so the answer cannot be 'yes'",
        NO_TO_SHARED_HYPERNYM: f"every word still possible is a type of {subject}, so the answer cannot be 'no'",
        NO_TO_LAST_WORD: f"{subject} is the only word still possible, so the answer cannot be 'no'",
        YES_TO_EXCLUDED_WORD: f"{subject} was already ruled out, so the answer cannot be 'yes'",
    }[rule]
