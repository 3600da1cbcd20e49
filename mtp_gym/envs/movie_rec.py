"""Movie Recommendation (Multi-Turn Puzzles, sections 2.1, A.1 and A.4).

The env class :class:`MovieRecEnv` carries the documentation (Gymnasium headings).
"""

from __future__ import annotations

import re
from functools import cache
from itertools import islice
from typing import Any, NamedTuple

import numpy as np

from mtp_gym.core import (
    PAPERS,
    InvalidAction,
    PuzzleInfo,
    Reply,
    TextPuzzleEnv,
    check_choice,
    check_int,
    control_field,
)
from mtp_gym.data import load_json
from mtp_gym.parsing import find_tags

ATTRIBUTES = (
    "Intellectual Depth",
    "Pace",
    "Emotional Intensity",
    "Visual Details",
    "Realism Level",
    "Dialogue Focus",
    "Soundtrack Presence",
    "Character Complexity",
)
N_ATTRIBUTES = len(ATTRIBUTES)
WEIGHT_STEPS = 10  # weights are multiples of 1 / WEIGHT_STEPS in [0, 1]
YES, NO, NO_PREFERENCE = "Yes", "No", "No Preference"
N_USERS, N_MOVIE_SETS = 20, 50
USER_SEED, MOVIE_SET_SEED = 20_250_301, 20_250_302

#: The generator constants of the benchmark split (every one is an env kwarg).
DEFAULTS: dict[str, Any] = {
    "n_seen": 20,
    "n_unseen": 40,
    "base_budget": 20.0,
    "budget_delta": 10.0,
    "attribute_min_credit": 1.0,
    "seen_precision": 0,
    "unseen_precision": 2,
    "seen_sparse_fraction": 0.5,
}

# Title parts (no word contains "over", "|" or a tag character, so questions parse unambiguously).
_ADJECTIVES = (
    "Crimson",
    "Obsidian",
    "Silent",
    "Golden",
    "Hidden",
    "Broken",
    "Distant",
    "Burning",
    "Frozen",
    "Silver",
    "Hollow",
    "Restless",
    "Scarlet",
    "Forgotten",
    "Endless",
    "Wandering",
    "Midnight",
    "Shattered",
    "Emerald",
    "Velvet",
    "Iron",
    "Clockwork",
    "Painted",
    "Sunken",
    "Whispering",
    "Amber",
    "Fading",
    "Savage",
    "Gentle",
    "Electric",
    "Paper",
    "Glass",
    "Northern",
    "Last",
    "Secret",
    "Wild",
    "Quiet",
    "Lonely",
    "Bright",
    "Ancient",
)
_NOUNS = (
    "Tide",
    "Fortress",
    "Mind",
    "Garden",
    "River",
    "Mirror",
    "Horizon",
    "Lantern",
    "Harbor",
    "Empire",
    "Voyage",
    "Promise",
    "Shadow",
    "Kingdom",
    "Symphony",
    "Orchard",
    "Compass",
    "Labyrinth",
    "Station",
    "Frontier",
    "Lighthouse",
    "Memory",
    "Storm",
    "Island",
    "Engine",
    "Carnival",
    "Cathedral",
    "Meadow",
    "Signal",
    "Archive",
    "Citadel",
    "Canyon",
    "Letter",
    "Melody",
    "Crown",
    "Forest",
    "Bridge",
    "Paradox",
    "Comet",
    "Desert",
)
_ABSTRACT = (
    "Time",
    "Silence",
    "Fire",
    "Glory",
    "Dreams",
    "Ashes",
    "Thunder",
    "Winter",
    "Destiny",
    "Light",
    "Rain",
    "Wonder",
    "Smoke",
    "Stars",
    "Fortune",
    "Dust",
    "Courage",
    "Sorrow",
    "Echoes",
    "Mercy",
)
_ACTIVITIES = (
    "Dance",
    "Game",
    "Song",
    "Journey",
    "Night",
    "Duel",
    "Walk",
    "Summer",
    "Season",
    "Race",
    "Bargain",
    "Conversation",
    "Wedding",
    "Heist",
    "Flight",
)
_PREPOSITIONS = ("Beneath", "Beyond", "Across", "Inside", "Under", "Behind", "Toward", "Against")
_TEMPLATES = (
    "The {adj} {noun}",
    "{prep} the {adj} {noun}",
    "A {activity} with {abstract}",
    "The {noun} of {abstract}",
    "{abstract} and {abstract2}",
    "Return to the {adj} {noun}",
    "The Last {activity}",
    "{adj} {noun}",
    "Echoes of the {noun}",
    "The {noun} and the {noun2}",
)

#: What ``weight_hint=True`` adds to the paper's sentence (beyond the paper: the weight grid).
WEIGHT_HINT = (
    ": the user's score for a movie is the weighted sum of its attribute scores, "
    "with every weight between 0.0 and 1.0 in steps of 0.1"
)

INSTRUCTIONS = """You're a movie recommendation agent who will interact with a user. Your goal is to ask questions in order to understand the user's preferences and suggest a movie that they'll enjoy the most. For this, you are given a library of movies in the table below. Each movie has scores on {num_attributes} different attributes: {attribute_list}. A higher score means that the movie has more of that attribute.

The user's preference can be modeled as a linear function of the {num_attributes} scores and this function is hidden from you{weight_hint}. The user will always act consistently based on the predefined user preference function.

You're only allowed to ask {num_questions} questions from the user, to uncover the underlying user preference function. Note that each question can only be formatted as follows:
"<question>Would you prefer watching $option_1 over $option_2?</question>".
Here $option_1 and $option_2 are the titles of two different movies from the table below, written as they appear in the table.

The user will respond to your question. The response can only be "Yes", "No" or "No Preference". "Yes" means that the user prefers $option_1, "No" means that the user prefers $option_2, and "No Preference" means that the user likes both movies equally.

Only once you're done interacting with the user after asking {num_questions} questions one-by-one, you will be given a new set of movies and based on whatever you've learnt about the user, your goal would be to pick the movie which you think the user will enjoy the most. Your final answer must be formatted as "<final_answer>Movie title</final_answer>".

The movie dataset which you can use to ask the user questions is provided in the table below.

{table}

You can go ahead with asking the first question. While making deductions, try to uncover the underlying user preference function."""

NEXT_QUESTION = "Please ask the next question. {n} question{s} remaining."
FINAL_PROMPT = """Now apply whatever you learnt about the user and predict which movie will satisfy the user the most from the following set:

{table}

Reason about the linear user preference function and then provide your final answer. Format it as <final_answer>Movie title</final_answer>, with a title from this new set."""


class MovieSet(NamedTuple):
    """One configuration's movies: titles and attribute scores (rows follow the titles)."""

    seen_titles: tuple[str, ...]
    seen_scores: np.ndarray  # (n_seen, 8) float
    unseen_titles: tuple[str, ...]
    unseen_scores: np.ndarray  # (n_unseen, 8) float


# ---------------------------------------------------------------------- generator
def sample_weights(rng: np.random.Generator) -> tuple[float, ...]:
    """A user's weights: each uniform in {0.0, 0.1, ..., 1.0}, not all zero."""
    while True:
        steps = rng.integers(0, WEIGHT_STEPS + 1, size=N_ATTRIBUTES)
        if steps.any():
            return tuple(int(s) / WEIGHT_STEPS for s in steps)


def sample_movie(
    rng: np.random.Generator,
    *,
    base_budget: float,
    budget_delta: float,
    min_credit: float,
    precision: int,
    n_sparse: int,
) -> np.ndarray:
    """One movie's 8 scores (appendix A.1): budget in (base, base + delta) rounded to
    ``precision`` decimals, ``min_credit`` everywhere, the rest split at random over the
    ``8 - n_sparse`` dense attributes. The scores add up to the rounded budget exactly."""
    unit = 10**precision
    budget = int(round(rng.uniform(base_budget, base_budget + budget_delta) * unit))
    floor = int(round(min_credit * unit))
    dense = np.sort(rng.choice(N_ATTRIBUTES, size=N_ATTRIBUTES - n_sparse, replace=False))
    units = np.full(N_ATTRIBUTES, floor, dtype=np.int64)
    units[dense] += rng.multinomial(budget - N_ATTRIBUTES * floor, rng.dirichlet(np.ones(len(dense))))
    return np.round(units / unit, precision)


def _title(rng: np.random.Generator) -> str:
    template = _TEMPLATES[int(rng.integers(len(_TEMPLATES)))]

    def pick(words: tuple[str, ...]) -> str:
        return words[int(rng.integers(len(words)))]

    noun, abstract = pick(_NOUNS), pick(_ABSTRACT)
    return template.format(
        adj=pick(_ADJECTIVES),
        noun=noun,
        noun2=pick(tuple(w for w in _NOUNS if w != noun)),
        abstract=abstract,
        abstract2=pick(tuple(w for w in _ABSTRACT if w != abstract)),
        activity=pick(_ACTIVITIES),
        prep=pick(_PREPOSITIONS),
    )


def sample_titles(rng: np.random.Generator, n: int) -> tuple[str, ...]:
    """``n`` distinct generated titles (distinct also after :func:`normalize_title`)."""
    titles: dict[str, str] = {}
    while len(titles) < n:
        title = _title(rng)
        titles.setdefault(normalize_title(title), title)
    return tuple(titles.values())


def sample_movie_set(
    rng: np.random.Generator,
    *,
    n_seen: int,
    n_unseen: int,
    base_budget: float,
    budget_delta: float,
    attribute_min_credit: float,
    seen_precision: int,
    unseen_precision: int,
    seen_sparse_fraction: float,
) -> MovieSet:
    """A seen set (low precision, sparse) and an unseen set (high precision, dense)."""
    common = {"base_budget": base_budget, "budget_delta": budget_delta, "min_credit": attribute_min_credit}
    n_sparse = sparse_count(seen_sparse_fraction)
    titles = sample_titles(rng, n_seen + n_unseen)
    seen = np.array([sample_movie(rng, precision=seen_precision, n_sparse=n_sparse, **common) for _ in range(n_seen)])
    unseen = np.array([sample_movie(rng, precision=unseen_precision, n_sparse=0, **common) for _ in range(n_unseen)])
    return MovieSet(titles[:n_seen], seen, titles[n_seen:], unseen)


def sparse_count(seen_sparse_fraction: float) -> int:
    """Number of attributes held at the minimum credit in each seen movie."""
    return int(round(seen_sparse_fraction * N_ATTRIBUTES))


def benchmark_users() -> list[tuple[float, ...]]:
    """The 20 distinct benchmark users, from a fixed seed."""
    rng = np.random.default_rng(USER_SEED)
    users: list[tuple[float, ...]] = []
    while len(users) < N_USERS:
        w = sample_weights(rng)
        if w not in users:
            users.append(w)
    return users


def benchmark_movie_set(index: int) -> MovieSet:
    """Benchmark movie set ``index`` (0-49), from its own fixed seed and the defaults."""
    return sample_movie_set(np.random.default_rng([MOVIE_SET_SEED, index]), **DEFAULTS)


# ---------------------------------------------------------------------- rules
def utility(weights: tuple[float, ...] | np.ndarray, scores: np.ndarray) -> np.ndarray:
    """The user's utilities of movies (rows of ``scores``), rounded to 6 decimals so that
    equal utilities compare equal despite float round-off."""
    return np.round(np.asarray(scores, dtype=float) @ np.asarray(weights, dtype=float), 6)


def answer(u_1: float, u_2: float, tie_tolerance: float = 0.0) -> str:
    """The user's reply to "Would you prefer watching 1 over 2?"."""
    if abs(u_1 - u_2) <= tie_tolerance + 1e-9:
        return NO_PREFERENCE
    return YES if u_1 > u_2 else NO


def rank_of(pick: int, utilities: np.ndarray) -> int:
    """1 + the number of movies with a strictly higher utility than ``utilities[pick]``."""
    utilities = np.asarray(utilities, dtype=float)
    return 1 + int(np.sum(utilities > utilities[pick] + 1e-9))


def rank_score(rank: int, n: int) -> float:
    """The paper's normalized rank: ``1 - (rank - 1) / (n - 1)``."""
    return 1.0 if n == 1 else 1.0 - (rank - 1) / (n - 1)


# ---------------------------------------------------------------------- text
def normalize_title(text: str) -> str:
    """Case-, spacing- and quote-insensitive key of a title."""
    text = " ".join(text.split()).strip("\"'`*_.,;:!?“”‘’ ").strip()  # str.split's whitespace is re's \s
    return text.lower()


def format_table(titles: tuple[str, ...], scores: np.ndarray, precision: int) -> str:
    """A Markdown table: a Title column, then one column per attribute."""
    lines = ["| Title | " + " | ".join(ATTRIBUTES) + " |", "|" + "---|" * (N_ATTRIBUTES + 1)]
    cell = f"{{:.{precision}f}}".format
    for title, row in zip(titles, np.asarray(scores, dtype=float).tolist()):
        lines.append(f"| {title} | " + " | ".join(map(cell, row)) + " |")
    return "\n".join(lines)


def parse_table(text: str) -> tuple[tuple[str, ...], np.ndarray]:
    """Titles and scores of every movie row of the Markdown table(s) in ``text``."""
    titles, rows = [], []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.lstrip().startswith("|") or len(cells) != N_ATTRIBUTES + 1:
            continue
        try:
            values = [float(c) for c in cells[1:]]
        except ValueError:
            continue  # header or separator row
        titles.append(cells[0])
        rows.append(values)
    return tuple(titles), np.array(rows, dtype=float).reshape(-1, N_ATTRIBUTES)


_QUESTION_RE = re.compile(r"\s*(?:would|do|will)\s+you\s+prefer\s+(?:watching\s+)?", re.I)
_OVER_RE = re.compile(r"\s+over\s+", re.I)


#: The most " over " a question may hold (a title may hold some): each is a reading whose two
#: halves are read, so a reply that repeats "X over X over ..." would cost its length squared.
MAX_OVERS = 16


def parse_question(content: str) -> list[tuple[str, str]]:
    """Every (option_1, option_2) reading of a question's text, one per " over " split.

    Raises :class:`InvalidAction` when the text is not "Would you prefer watching X over Y?" or
    holds more than :data:`MAX_OVERS` " over "."""
    match = _QUESTION_RE.match(content)
    body = "" if match is None else content[match.end() :].rstrip().removesuffix("?").rstrip()
    if not body:
        raise InvalidAction(f'the question {content[:80]!r} is not of the form "Would you prefer watching X over Y?".')
    splits = list(islice(_OVER_RE.finditer(body), MAX_OVERS + 1))
    if not splits:
        raise InvalidAction(f'the question {content[:80]!r} is not of the form "Would you prefer watching X over Y?".')
    if len(splits) > MAX_OVERS:
        raise InvalidAction(
            f'the question holds more than {MAX_OVERS} "over"; ask "Would you prefer watching X over Y?" about two movies.'
        )
    return [(body[: m.start()], body[m.end() :]) for m in splits]


def _titles(text: str) -> list[list[str]]:
    """The first column of every Markdown table with a ``Title`` column, table by table."""
    tables: list[list[str]] = []
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("| Title |"):
            current = []
            tables.append(current)
        elif current is not None and line.startswith("|") and not line.startswith("|---"):
            current.append(line.strip("|").split("|")[0].strip())
        elif not line.startswith("|"):
            current = None
    return tables


class MovieRecEnv(TextPuzzleEnv):
    """Movie Recommendation (Multi-Turn Puzzles, sections 2.1, A.1 and A.4).

    Description:
        A simulated user scores movies with a hidden linear preference function over 8
        attributes (Intellectual Depth, Pace, Emotional Intensity, Visual Details, Realism Level,
        Dialogue Focus, Soundtrack Presence, Character Complexity), weights in {0.0, 0.1, ..., 1.0}.
        The agent asks ``num_questions`` pairwise questions about a **seen** library of 20 movies
        (integer scores, half of each movie's attributes sparse at the minimum credit), then picks
        one movie from an **unseen** set of 40 (scores with 2 decimals, dense). The score is the
        normalized rank of the pick among the unseen movies for this user.

        Movies follow appendix A.1: a budget drawn uniformly in ``(base_budget, base_budget +
        budget_delta)`` and rounded to the set's precision, every attribute gets
        ``attribute_min_credit``, and the rest of the budget is split at random over the dense
        attributes (Dirichlet(1) proportions, multinomial rounding to the precision, so the
        scores add up to the budget exactly). A sparse attribute keeps only the minimum credit;
        the movie keeps its whole budget (the decision we took where A.1 is silent). Titles are
        generated from word lists, unique within a configuration (seen and unseen together).

    Prompt Format:
        The appendix A.4 prompt with its elisions filled in (attribute list, the weight range,
        the answer meanings, the final-answer format), and the seen library as a Markdown table
        (``| Title | Intellectual Depth | ... |``). After each question the reply is the answer on
        its own line, then ``Please ask the next question. N questions remaining.``; after the
        last question the answer, then the unseen table and the request for the final answer.

    Action Format:
        Questioning phase: ``<question>Would you prefer watching X over Y?</question>`` (two
        different questions in one reply are a re-prompt; case, surrounding quotes and spacing are tolerated, "watching" is optional).
        Final phase: ``<final_answer>Title</final_answer>``. A re-prompt (no turn spent, no state
        change) for: a missing tag or the other phase's tag, a question not of that form (or with
        more than 16 "over": a looping reply), a title
        that is not in the library (during questions an unseen title is reported the same way, so
        the unseen set stays hidden), a movie compared with itself, and a final answer naming a
        movie of the questioning library or an unknown title.

    Observation Space:
        ``Text`` over printable ASCII, ``max_length`` bounded from the table sizes.

    Rewards:
        0 per step; the final answer's score ``1 - (rank - 1) / (n_unseen - 1)``, where ``rank``
        is 1 + the number of unseen movies with a strictly higher utility (ties share the best
        rank).

    Starting State:
        Benchmark configuration ``i`` (1000 = 20 users x 50 movie sets) is user ``i // 50`` with
        movie set ``i % 50``, read from ``assets/movie_rec/benchmark.json`` (built by
        ``assets/scripts/build_movie_rec.py`` from fixed seeds with this module's generator and
        default constants; a test rebuilds it and compares). Generated configurations draw a user
        and a movie set from ``self.np_random`` with the kwargs below. A user never has all
        weights 0 (every answer would be ``No Preference``); the 20 benchmark users are distinct.

    Episode End:
        Terminated by the final answer (outcome ``success`` if the pick is a best movie, rank 1,
        else ``failure``) or by ``max_format_errors`` consecutive re-prompts (``format_error``).
        Truncated (``timeout``, score 0) if ``max_turns`` runs out first (only when ``max_turns``
        is set below ``num_questions + 1``).

    Information:
        The common keys. ``feedback`` in the questioning phase: ``phase="question"``,
        ``option_1``, ``option_2``, ``answer`` (``"Yes"``/``"No"``/``"No Preference"``),
        ``questions_remaining``; on the final answer: ``phase="final"``, ``pick``, ``rank``,
        ``score``; on a re-prompt: ``error``. ``hidden``: ``user_id`` and ``movie_set_id``
        (benchmark indices or ``None``), ``weights`` (attribute -> weight), ``seen_utilities`` and
        ``unseen_utilities`` (title -> utility).

        "No Preference" is the answer when the two utilities differ by at most ``tie_tolerance``
        (default 0: exactly equal; utilities are computed exactly and rounded to 6 decimals, so
        float round-off never decides). With integer seen scores ties are rare for a random pair but
        common for the pairs an information-seeking questioner asks about: "No Preference" is a
        real answer, not an edge case.

    Arguments:
        ``num_questions`` (10), ``max_turns`` (``None`` = ``num_questions + 1``), ``n_seen`` (20),
        ``n_unseen`` (40), ``base_budget`` (20.0), ``budget_delta`` (10.0),
        ``attribute_min_credit`` (1.0), ``seen_precision`` (0 decimals), ``unseen_precision``
        (2 decimals), ``seen_sparse_fraction`` (0.5 of the attributes at the minimum credit in
        each seen movie), ``tie_tolerance`` (0.0), ``weight_hint`` (``False``: the paper's prompt;
        ``True`` adds that the weights lie in 0.0-1.0 in steps of 0.1), ``configs``,
        ``max_format_errors`` (3), ``render_mode``, ``info_secret`` (``False``: no ``info["hidden"]``).
        The benchmark split exists only for the default generator constants.

    Version History:
        v0: initial release; the weight grid is stated in the prompt only with ``weight_hint=True``.
    """

    puzzle = PuzzleInfo(PAPERS[0], "the user's best movie of the new set picked (score: 1 - (rank-1)/(n_unseen-1))")

    @classmethod
    def play_controls(cls, seen: list[str]) -> list[dict[str, Any]]:
        tables = _titles("\n".join(seen))
        out = []
        if tables:
            library = tables[0]
            out.append(
                {
                    "label": "Ask",
                    "template": "<question>Would you prefer watching {first} over {second}?</question>",
                    "fields": [control_field("first", library), control_field("second", library)],
                }
            )
        if len(tables) > 1:
            out.append(
                {
                    "label": "Recommend",
                    "template": "<final_answer>{title}</final_answer>",
                    "fields": [control_field("title", tables[-1])],
                }
            )
        return out

    def __init__(
        self,
        num_questions: int = 10,
        max_turns: int | None = None,
        n_seen: int = DEFAULTS["n_seen"],
        n_unseen: int = DEFAULTS["n_unseen"],
        base_budget: float = DEFAULTS["base_budget"],
        budget_delta: float = DEFAULTS["budget_delta"],
        attribute_min_credit: float = DEFAULTS["attribute_min_credit"],
        seen_precision: int = DEFAULTS["seen_precision"],
        unseen_precision: int = DEFAULTS["unseen_precision"],
        seen_sparse_fraction: float = DEFAULTS["seen_sparse_fraction"],
        tie_tolerance: float = 0.0,
        weight_hint: bool = False,
        configs: str | None = None,
        max_format_errors: int = 3,
        render_mode: str | None = None,
        info_secret: bool = True,
    ) -> None:
        check_choice("weight_hint", weight_hint, (True, False))
        self.weight_hint = weight_hint
        check_int("num_questions", num_questions, 1, 1000)
        check_int("n_seen", n_seen, 2, 500)
        check_int("n_unseen", n_unseen, 1, 500)
        check_int("seen_precision", seen_precision, 0, 6)
        check_int("unseen_precision", unseen_precision, 0, 6)
        _check_number("attribute_min_credit", attribute_min_credit, 0.0, 1e6)
        _check_number(
            "base_budget",
            base_budget,
            N_ATTRIBUTES * attribute_min_credit,
            1e6,
            f"at least {N_ATTRIBUTES} x attribute_min_credit",
        )
        _check_number("budget_delta", budget_delta, 0.0, 1e6)
        _check_number(
            "seen_sparse_fraction",
            seen_sparse_fraction,
            0.0,
            1.0 - 1.0 / N_ATTRIBUTES,
            "leaving at least one dense attribute",
        )
        _check_number("tie_tolerance", tie_tolerance, 0.0, 1e6)
        self.num_questions = num_questions
        self.generator_kwargs: dict[str, Any] = {
            "n_seen": n_seen,
            "n_unseen": n_unseen,
            "base_budget": float(base_budget),
            "budget_delta": float(budget_delta),
            "attribute_min_credit": float(attribute_min_credit),
            "seen_precision": seen_precision,
            "unseen_precision": unseen_precision,
            "seen_sparse_fraction": float(seen_sparse_fraction),
        }
        self.tie_tolerance = float(tie_tolerance)
        digits = len(f"{(base_budget + budget_delta):.0f}") + 1 + max(seen_precision, unseen_precision)
        row = 48 + N_ATTRIBUTES * (digits + 3)
        table = 200 + (max(n_seen, n_unseen) + 2) * row
        self.obs_max_length = len(INSTRUCTIONS) + len(FINAL_PROMPT) + table + 512
        super().__init__(
            max_turns=num_questions + 1 if max_turns is None else max_turns,
            configs=configs,
            max_format_errors=max_format_errors,
            render_mode=render_mode,
            info_secret=info_secret,
        )
        self._weights: tuple[float, ...] = ()
        self._movies: MovieSet | None = None
        self._seen_u = np.zeros(0)
        self._unseen_u = np.zeros(0)
        self._seen_index: dict[str, int] = {}
        self._unseen_index: dict[str, int] = {}
        self._asked = 0
        self._user_id: int | None = None
        self._movie_set_id: int | None = None
        self._hidden_parts: dict[str, dict[str, float]] = {}
        self._seen_table = self._unseen_table = ""

    # ------------------------------------------------------------------ configurations
    @property
    def num_configs(self) -> int:
        return N_USERS * N_MOVIE_SETS if self.generator_kwargs == DEFAULTS else 0

    def _benchmark_mismatch(self) -> str:
        diff = {k: v for k, v in self.generator_kwargs.items() if DEFAULTS[k] != v}
        return f"the benchmark uses the default generator constants {DEFAULTS}; these differ: {diff}"

    def config_strata(self) -> dict[str, list[Any]]:
        ids = range(self.num_configs)
        return {"user": [i // N_MOVIE_SETS for i in ids], "movie_set": [i % N_MOVIE_SETS for i in ids]}

    def _setup_benchmark(self, config_id: int) -> None:
        user_id, set_id = divmod(config_id, N_MOVIE_SETS)
        users, sets = _benchmark_data()
        self._set_game(users[user_id], sets[set_id], user_id, set_id)

    def _setup_generated(self) -> None:
        weights = sample_weights(self.np_random)
        self._set_game(weights, sample_movie_set(self.np_random, **self.generator_kwargs), None, None)

    def _set_game(self, weights: tuple[float, ...], movies: MovieSet, user_id: int | None, set_id: int | None) -> None:
        self._weights = tuple(weights)
        self._movies = movies
        self._seen_u = utility(weights, movies.seen_scores)
        self._unseen_u = utility(weights, movies.unseen_scores)
        view = _movie_set_view(
            movies, self.generator_kwargs["seen_precision"], self.generator_kwargs["unseen_precision"]
        )
        self._seen_index, self._unseen_index, self._seen_table, self._unseen_table = view
        self._asked = 0
        self._user_id, self._movie_set_id = user_id, set_id
        self._hidden_parts = {
            "weights": dict(zip(ATTRIBUTES, self._weights)),
            "seen_utilities": dict(zip(movies.seen_titles, self._seen_u.tolist())),
            "unseen_utilities": dict(zip(movies.unseen_titles, self._unseen_u.tolist())),
        }

    # ------------------------------------------------------------------ protocol
    def _format_hint(self) -> str:
        if self._asked < self.num_questions:
            return "Ask with <question>Would you prefer watching X over Y?</question>, X and Y two different titles from the library table."
        return "Answer with <final_answer>Movie title</final_answer>, a title from the new set of movies."

    def _instructions(self) -> str:
        return INSTRUCTIONS.format(
            num_attributes=N_ATTRIBUTES,
            attribute_list=", ".join(ATTRIBUTES),
            num_questions=self.num_questions,
            table=self._seen_table,
            weight_hint=WEIGHT_HINT if self.weight_hint else "",
        )

    def _parse(self, action: str) -> tuple[str, int, int] | tuple[str, int]:
        movies = self._movies
        assert movies is not None  # set by reset()
        if self._asked < self.num_questions:
            left = self.num_questions - self._asked
            i, j = self.read_tags(
                action,
                "question",
                self._read_question,
                "questions",
                show=lambda p: f"{movies.seen_titles[p[0]]} vs {movies.seen_titles[p[1]]}",
                missing=lambda: (
                    f"no <question>...</question> tag found; {left} question{'s' * (left != 1)} remaining."
                    + (" The final answer comes after all the questions." if find_tags(action, "final_answer") else "")
                ),
                named=False,
            )
            return ("question", i, j)
        pick = self.read_tags(
            action,
            "final_answer",
            self._read_final,
            "final answers",
            show=lambda k: movies.unseen_titles[k],
            missing=lambda: (
                "no <final_answer>...</final_answer> tag found."
                + (" The questions are over." if find_tags(action, "question") else "")
            ),
            named=False,
        )
        return ("final", pick)

    def _read_question(self, content: str) -> tuple[int, int]:
        """Indices of the two seen movies a ``<question>`` compares (order kept)."""
        unknown: list[str] = []
        for first, second in parse_question(content):
            i, j = self._seen_index.get(normalize_title(first)), self._seen_index.get(normalize_title(second))
            if i is not None and j is not None:
                if i == j:
                    raise InvalidAction(
                        f"a movie cannot be compared with itself ({first.strip()!r}); ask about two different movies."
                    )
                return i, j
            unknown += [t.strip() for t, k in ((first, i), (second, j)) if k is None]
        names = ", ".join(repr(t[:60]) for t in dict.fromkeys(unknown))
        raise InvalidAction(f"not a movie of the library table: {names}.")

    def _read_final(self, content: str) -> int:
        """Index of the new-set movie a ``<final_answer>`` names."""
        key = normalize_title(content)
        if key in self._unseen_index:
            return self._unseen_index[key]
        if key in self._seen_index:
            raise InvalidAction(
                f"{content.strip()[:60]!r} is from the questioning library; pick a movie from the new set."
            )
        raise InvalidAction(f"{content.strip()[:60]!r} is not a movie of the new set.")

    def _play(self, move: tuple) -> Reply:
        m = self._movies
        assert m is not None  # set by reset()
        if move[0] == "question":
            _, i, j = move
            reply = answer(float(self._seen_u[i]), float(self._seen_u[j]), self.tie_tolerance)
            self._asked += 1
            left = self.num_questions - self._asked
            feedback = {
                "phase": "question",
                "option_1": m.seen_titles[i],
                "option_2": m.seen_titles[j],
                "answer": reply,
                "questions_remaining": left,
            }
            if left:
                return Reply(f"{reply}\n{NEXT_QUESTION.format(n=left, s='s' * (left != 1))}", feedback)
            return Reply(f"{reply}\n{FINAL_PROMPT.format(table=self._unseen_table)}", feedback)
        pick = move[1]
        rank = rank_of(pick, self._unseen_u)
        n = len(self._unseen_u)
        score = rank_score(rank, n)
        best = m.unseen_titles[int(np.argmax(self._unseen_u))]
        title = m.unseen_titles[pick]
        text = f"You recommended {title}. It ranks {rank} of {n} for this user (score {score:.4f})." + (
            "" if rank == 1 else f" The user's favourite was {best}."
        )
        feedback = {"phase": "final", "pick": title, "rank": rank, "score": score}
        return Reply(text, feedback, "success" if rank == 1 else "failure", score)

    def _hidden(self) -> dict[str, Any]:
        m = self._movies
        if m is None:
            return {}
        h = self._hidden_parts
        return {
            "user_id": self._user_id,
            "movie_set_id": self._movie_set_id,
            "weights": dict(h["weights"]),
            "seen_utilities": dict(h["seen_utilities"]),
            "unseen_utilities": dict(h["unseen_utilities"]),
        }

    def _timeout(self) -> Reply:
        return Reply("The turn limit has been reached before a final answer. The game is over.", {}, "timeout", 0.0)


_VIEWS: dict[int, tuple[Any, ...]] = {}


def _movie_set_view(movies: MovieSet, seen_precision: int, unseen_precision: int) -> tuple[Any, ...]:
    """Title indexes and rendered tables of a movie set (memoized for the benchmark sets)."""
    key = id(movies)
    hit = _VIEWS.get(key)
    if hit is not None and hit[0] is movies:
        return hit[1]
    view = (
        {normalize_title(t): i for i, t in enumerate(movies.seen_titles)},
        {normalize_title(t): i for i, t in enumerate(movies.unseen_titles)},
        format_table(movies.seen_titles, movies.seen_scores, seen_precision),
        format_table(movies.unseen_titles, movies.unseen_scores, unseen_precision),
    )
    if any(movies is m for m in _benchmark_data()[1]) and (seen_precision, unseen_precision) == (
        DEFAULTS["seen_precision"],
        DEFAULTS["unseen_precision"],
    ):
        _VIEWS[key] = (movies, view)
    return view


@cache
def _benchmark_data() -> tuple[tuple[tuple[float, ...], ...], tuple[MovieSet, ...]]:
    data = load_json("movie_rec", "benchmark.json")
    users = tuple(tuple(u) for u in data["users"])
    sets = tuple(
        MovieSet(
            tuple(s["seen_titles"]),
            np.array(s["seen_scores"], dtype=float),
            tuple(s["unseen_titles"]),
            np.array(s["unseen_scores"], dtype=float),
        )
        for s in data["movie_sets"]
    )
    return users, sets


def _check_number(name: str, value: Any, low: float, high: float, what: str = "") -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        extra = f" ({what})" if what else ""
        raise ValueError(f"{name} must be a number in [{low}, {high}]{extra}, got {value!r}")
