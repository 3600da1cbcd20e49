"""Pure rules of the Turing-Machine code-breaking game (TurnBench-MS).

A code is ``(B, Y, P)`` with digits 1-5 (BLUE, YELLOW, PURPLE); the 125 codes are indexed
``25*(B-1) + 5*(Y-1) + (P-1)``. Every criterion of the 48 published verifier cards is
implemented here from its name (``CRITERIA``), independently of the published harness, and
turned into a 125-bit truth table (a Python ``int``, bit ``i`` set when code ``i`` passes).
The card data (descriptions, criterion lists) come from ``assets/turnbench/verifiers.json``.

Setups (``Setup``) pair a list of cards with one active criterion per card, the answer and
the nightmare mapping; :func:`check_setup` validates one by enumerating all 125 codes;
:func:`generate_setup` draws fresh well-posed setups; :func:`consistent_assignments`
enumerates the criteria assignments a player must consider (the oracle's hypothesis space);
:func:`parse_beliefs` and :func:`score_belief` grade a player's stated beliefs.
"""

from __future__ import annotations

import itertools
import operator
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any, cast

import numpy as np

from mtp_gym.core import check_choice
from mtp_gym.data import load_json
from mtp_gym.parsing import last_match

__all__ = [
    "COLOURS",
    "CODES",
    "N_CODES",
    "ALL_CODES_MASK",
    "DIFFICULTIES",
    "CARD_POOLS",
    "VERIFIER_COUNTS",
    "CRITERIA",
    "Criterion",
    "Card",
    "Setup",
    "SetupCheck",
    "code_index",
    "code_str",
    "choice_str",
    "parse_code_str",
    "evaluate",
    "truth_table",
    "popcount",
    "cards",
    "card_lookup",
    "published_setups",
    "published_setup",
    "paper_eval_subsets",
    "check_setup",
    "generate_setup",
    "consistent_assignments",
    "solutions",
    "expression_mask",
    "parse_beliefs",
    "parse_mapping",
    "score_belief",
]

Code = tuple[int, int, int]
COLOURS = ("BLUE", "YELLOW", "PURPLE")
CODES: tuple[Code, ...] = tuple(itertools.product(range(1, 6), range(1, 6), range(1, 6)))
N_CODES = len(CODES)
ALL_CODES_MASK = (1 << N_CODES) - 1
DIFFICULTIES = ("easy", "medium", "hard")
#: Card pools and verifier counts per difficulty, as in the published setups (PROVENANCE.md).
CARD_POOLS = {"easy": tuple(range(1, 18)), "medium": tuple(range(1, 23)), "hard": tuple(range(1, 49))}
VERIFIER_COUNTS = {"easy": (4, 5), "medium": (4, 5, 6), "hard": (4, 5, 6)}
#: Cards a generated setup must include at least this many of (every published setup does).
_REQUIRED_CARDS = {"easy": (range(1, 18), 0), "medium": (range(18, 23), 1), "hard": (range(23, 49), 2)}


def code_index(code: Sequence[int]) -> int:
    """Index 0-124 of a code ``(B, Y, P)``."""
    b, y, p = code
    return 25 * (b - 1) + 5 * (y - 1) + (p - 1)


def code_str(code: Sequence[int]) -> str:
    """``(5, 5, 1)`` -> ``"551"`` (the published answer format)."""
    return "".join(map(str, code))


def choice_str(code: Sequence[int]) -> str:
    """``(5, 5, 1)`` -> ``"BLUE=5, YELLOW=5, PURPLE=1"`` (the proposal and deduce reply format)."""
    return "BLUE={}, YELLOW={}, PURPLE={}".format(*code)


def parse_code_str(text: str) -> Code:
    """``"551"`` -> ``(5, 5, 1)``; raises ``ValueError`` unless three digits 1-5."""
    if len(text) != 3 or any(c not in "12345" for c in text):
        raise ValueError(f"a code is three digits 1-5, got {text!r}")
    return (int(text[0]), int(text[1]), int(text[2]))


def popcount(mask: int) -> int:
    return mask.bit_count()


# ---------------------------------------------------------------------------- criteria
_COL = {"blue": 0, "yellow": 1, "purple": 2}
_CMP = {"lt": operator.lt, "eq": operator.eq, "gt": operator.gt}
_COUNT_WORDS = ("zero", "one", "two", "three")


def _ordered(code: Code) -> tuple[bool, bool]:
    b, y, p = code
    return b < y < p, b > y > p


def _step(a: int, b: int) -> int:
    """+1 or -1 when ``b`` follows ``a`` by one, else 0."""
    return b - a if abs(b - a) == 1 else 0


Predicate = Callable[[Code], bool]
Compare = Callable[[int, int], bool]


# Predicate factories: each binds its arguments in a closure (a lambda per criterion).
def _digit_vs_number(i: int, cmp: Compare, n: int) -> Predicate:
    return lambda x: cmp(x[i], n)


def _digit_vs_digit(i: int, j: int, cmp: Compare) -> Predicate:
    return lambda x: cmp(x[i], x[j])


def _digit_parity(i: int, remainder: int) -> Predicate:
    return lambda x: x[i] % 2 == remainder


def _digit_beats_all(i: int, others: list[int], cmp: Compare) -> Predicate:
    return lambda x: all(cmp(x[i], x[j]) for j in others)


def _pair_sum_vs_number(i: int, j: int, cmp: Compare, n: int) -> Predicate:
    return lambda x: cmp(x[i] + x[j], n)


def _digit_count(digit: int, n: int) -> Predicate:
    return lambda x: x.count(digit) == n


def _evens(code: Code) -> int:
    return sum(d % 2 == 0 for d in code)


def _even_count(n: int) -> Predicate:
    return lambda x: _evens(x) == n


def _sum_vs_number(cmp: Compare, n: int) -> Predicate:
    return lambda x: cmp(sum(x), n)


def _sum_multiple_of(m: int) -> Predicate:
    return lambda x: sum(x) % m == 0


def _build_criteria() -> dict[str, Predicate]:
    f: dict[str, Predicate] = {}
    for c, i in _COL.items():
        others = [j for j in _COL.values() if j != i]
        for op, cmp in _CMP.items():
            for n in (1, 3, 4):
                f[f"{c}_{op}_{n}"] = _digit_vs_number(i, cmp, n)
            for d, j in _COL.items():
                if d != c:
                    f[f"{c}_{op}_{d}"] = _digit_vs_digit(i, j, cmp)
        f[f"{c}_is_even"] = _digit_parity(i, 0)
        f[f"{c}_is_odd"] = _digit_parity(i, 1)
        f[f"{c}_smallest"] = _digit_beats_all(i, others, operator.lt)
        f[f"{c}_largest"] = _digit_beats_all(i, others, operator.gt)
        f[f"{c}_smallest_or_tie"] = _digit_beats_all(i, others, operator.le)
        f[f"{c}_largest_or_tie"] = _digit_beats_all(i, others, operator.ge)
    for (c, i), (d, j) in itertools.combinations(_COL.items(), 2):
        for n in (4, 6):
            for op, cmp in _CMP.items():
                f[f"{c}_{d}_sum_{op}_{n}"] = _pair_sum_vs_number(i, j, cmp, n)
    for digit in (1, 3, 4):
        for n, word in enumerate(_COUNT_WORDS):
            name = f"{word}_{digit}" if n == 1 else f"{word}_{digit}s"
            f[name] = _digit_count(digit, n)
    for n, word in enumerate(_COUNT_WORDS):
        f[f"{word}_even_number" if n == 1 else f"{word}_even_numbers"] = _even_count(n)
    f["more_even_numbers"] = lambda x: _evens(x) >= 2
    f["more_odd_numbers"] = lambda x: _evens(x) <= 1
    f["sum_is_even"] = lambda x: sum(x) % 2 == 0
    f["sum_is_odd"] = lambda x: sum(x) % 2 == 1
    for op, cmp in _CMP.items():
        f[f"sum_{op}_6"] = _sum_vs_number(cmp, 6)
    for m in (3, 4, 5):
        f[f"sum_multiple_of_{m}"] = _sum_multiple_of(m)
    f["triple_number"] = lambda x: len(set(x)) == 1
    f["double_number"] = lambda x: len(set(x)) == 2
    f["no_repetition"] = lambda x: len(set(x)) == 3
    f["has_pair"] = lambda x: len(set(x)) == 2
    f["no_pairs"] = lambda x: len(set(x)) != 2
    f["ascending_order"] = lambda x: _ordered(x)[0]
    f["descending_order"] = lambda x: _ordered(x)[1]
    f["no_order"] = lambda x: not any(_ordered(x))
    # Consecutive +1 steps: BLUE->YELLOW and YELLOW->PURPLE.
    ups = lambda x: (x[1] == x[0] + 1) + (x[2] == x[1] + 1)  # noqa: E731
    f["three_ascending"] = lambda x: ups(x) == 2
    f["two_ascending"] = lambda x: ups(x) == 1
    f["no_ascending"] = lambda x: ups(x) == 0

    def run(x: Code) -> int:
        s1, s2 = _step(x[0], x[1]), _step(x[1], x[2])
        return 3 if s1 and s1 == s2 else 2 if s1 or s2 else 0

    f["three_in_sequence_in_ascending_or_descending"] = lambda x: run(x) == 3
    f["two_in_sequence_in_ascending_or_descending"] = lambda x: run(x) == 2
    f["no_sequence_in_ascending_or_descending"] = lambda x: run(x) == 0
    return f


#: Criterion name (the ``function`` field of the card data) -> predicate on a code.
CRITERIA: dict[str, Predicate] = _build_criteria()


def evaluate(function: str, code: Sequence[int]) -> bool:
    """Does ``code`` satisfy the criterion named ``function``?"""
    return bool(CRITERIA[function](cast(Code, tuple(code))))  # three digits, as every caller passes


@cache
def truth_table(function: str) -> int:
    """125-bit mask of the codes that satisfy ``function``."""
    pred = CRITERIA[function]
    return sum(1 << i for i, code in enumerate(CODES) if pred(code))


def solutions(masks: Sequence[int]) -> int:
    """Mask of the codes that satisfy every mask in ``masks``."""
    acc = ALL_CODES_MASK
    for m in masks:
        acc &= m
    return acc


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


# ---------------------------------------------------------------------------- card data
@dataclass(frozen=True)
class Criterion:
    """One criterion of a card: ``index`` is its 0-based position on the card."""

    card: int
    index: int
    description: str
    function: str
    mask: int


@dataclass(frozen=True)
class Card:
    id: int
    description: str
    criteria: tuple[Criterion, ...]


@cache
def cards() -> dict[int, Card]:
    """The 48 verifier cards (183 criteria), by card number."""
    out = {}
    for key, raw in load_json("turnbench", "verifiers.json").items():
        cid = int(key)
        crits = tuple(
            Criterion(cid, int(c["id"]), c["description"], c["function"], truth_table(c["function"]))
            for c in raw["criteria"]
        )
        if [c.index for c in crits] != list(range(len(crits))):
            raise ValueError(f"card {cid}: criteria ids are not 0..n-1")
        out[cid] = Card(cid, raw["description"], crits)
    return out


@cache
def card_lookup() -> dict[tuple[str, tuple[str, ...]], int]:
    """(card description, criterion descriptions) -> card number, to read cards back from text."""
    return {(c.description, tuple(k.description for k in c.criteria)): c.id for c in cards().values()}


# ---------------------------------------------------------------------------- setups
@dataclass(frozen=True)
class Setup:
    """One game: ``cards[i]`` is the card of verifier slot ``i`` with active criterion
    ``active[i]``; in nightmare mode a query to slot ``i`` answers with slot ``mapping[i]``'s
    card and criterion."""

    setup_id: str
    difficulty: str
    cards: tuple[int, ...]
    active: tuple[int, ...]
    answer: Code
    mapping: tuple[int, ...]

    @property
    def criteria(self) -> tuple[Criterion, ...]:
        table = cards()
        return tuple(table[c].criteria[a] for c, a in zip(self.cards, self.active))

    @property
    def masks(self) -> tuple[int, ...]:
        return tuple(c.mask for c in self.criteria)

    def result(self, slot: int, code: Sequence[int], nightmare: bool = False) -> bool:
        """PASS (True) or FAIL of querying verifier ``slot`` with ``code``."""
        target = self.mapping[slot] if nightmare else slot
        return bool(self.masks[target] >> code_index(code) & 1)


@dataclass(frozen=True)
class SetupCheck:
    """Result of enumerating all 125 codes against a setup's active criteria."""

    solutions: tuple[Code, ...]
    answer_ok: bool
    redundant_slots: tuple[int, ...]

    @property
    def unique(self) -> bool:
        return self.answer_ok and len(self.solutions) == 1

    @property
    def well_formed(self) -> bool:
        return self.unique and not self.redundant_slots


def _redundant_slots(masks: Sequence[int]) -> tuple[int, ...]:
    return tuple(j for j in range(len(masks)) if popcount(solutions([m for k, m in enumerate(masks) if k != j])) == 1)


def check_setup(setup: Setup) -> SetupCheck:
    """Validate a setup: which codes satisfy every active criterion, whether the answer is
    the only one, and which verifiers are redundant (removing one leaves the code unique)."""
    masks = setup.masks
    sol = solutions(masks)
    codes = tuple(CODES[i] for i in _bits(sol))
    answer_ok = bool(sol >> code_index(setup.answer) & 1)
    redundant = _redundant_slots(masks) if popcount(sol) == 1 else ()
    return SetupCheck(codes, answer_ok, redundant)


def _setup_from_json(raw: dict[str, Any]) -> Setup:
    ids = list(raw["verifier_ids"])
    mapping = tuple(ids.index(v) for v in raw["nightmare_verifier_ids"])
    if sorted(mapping) != list(range(len(ids))) or any(
        raw["active_criteria_ids"][mapping[i]] != raw["nightmare_active_criteria_ids"][i] for i in range(len(ids))
    ):
        raise ValueError(f"setup {raw['game_id']}: nightmare data is not a permutation of the slots")
    return Setup(
        raw["game_id"],
        raw["difficulty"],
        tuple(ids),
        tuple(raw["active_criteria_ids"]),
        parse_code_str(raw["answer"]),
        mapping,
    )


@cache
def published_setups() -> tuple[Setup, ...]:
    """The 270 published setups in the order of ``setups.json`` (90 easy, 90 medium, 90 hard)."""
    return tuple(_setup_from_json(raw) for raw in load_json("turnbench", "setups.json").values())


def published_setup(setup_id: str) -> Setup:
    """A published setup by its id (``ValueError`` naming the id if unknown)."""
    for s in published_setups():
        if s.setup_id == setup_id:
            return s
    raise ValueError(f"setup_id {setup_id!r} is not a published TurnBench setup")


@cache
def paper_eval_subsets() -> dict[str, tuple[str, ...]]:
    """Setup ids of the paper's 45-setup model evaluation sets (classic and nightmare)."""
    return {k: tuple(v) for k, v in load_json("turnbench", "paper_eval_subsets.json").items()}


# ---------------------------------------------------------------------------- generator
def _valid_assignments_for_answer(options: Sequence[Sequence[Criterion]]) -> list[tuple[int, ...]]:
    """Active-criterion choices (one per card, each true for the answer) that make the
    answer the only code and leave no verifier redundant."""
    out = []
    for combo in itertools.product(*options):
        masks = [c.mask for c in combo]
        acc = ALL_CODES_MASK
        for m in masks:
            acc &= m
        if acc & (acc - 1) == 0 and not _redundant_slots(masks):
            out.append(tuple(c.index for c in combo))
    return out


def generate_setup(
    rng: np.random.Generator,
    difficulty: str,
    num_verifiers: int | None = None,
    *,
    exclude: frozenset[tuple] | None = None,
    max_tries: int = 10_000,
) -> Setup:
    """A fresh well-formed setup: unique code and no redundant verifier.

    The verifier count is drawn once (default: uniform over the difficulty's counts, as the
    published split holds them), then: distinct cards from the difficulty's pool (medium: at
    least one of cards 18-22; hard: at least two of 23-48, as in every published setup), an
    answer uniformly over the 125 codes, one active criterion per card uniformly among the
    choices that make the answer unique with no redundant verifier; redrawn when there is
    none. A draw is kept with probability ``k ** -AMBIGUITY_EXPONENT[difficulty]``, ``k`` the
    number of codes consistent with its card list (:func:`ambiguity`), calibrated so that
    generated setups are on average as ambiguous as the published ones (3.3 / 4.4 / 7.2
    codes for easy / medium / hard). The nightmare mapping is a uniform derangement: every
    verifier shows another verifier's result, as the nightmare rules say. ``exclude`` holds
    ``(cards, active, answer)`` keys to avoid (the published setups, by default).
    """
    check_choice("difficulty", difficulty, DIFFICULTIES)
    if num_verifiers is not None:
        check_choice(f"num_verifiers (for {difficulty})", num_verifiers, VERIFIER_COUNTS[difficulty])
    if exclude is None:
        exclude = _published_keys()
    pool = CARD_POOLS[difficulty]
    counts = VERIFIER_COUNTS[difficulty]
    required, at_least = _REQUIRED_CARDS[difficulty]
    options_of = _options_by_answer()
    n = num_verifiers or counts[int(rng.integers(len(counts)))]
    exponent = AMBIGUITY_EXPONENT[difficulty]
    for _ in range(max_tries):
        picked = sorted(pool[i] for i in rng.permutation(len(pool))[:n].tolist())
        if sum(c in required for c in picked) < at_least:
            continue
        a = int(rng.integers(N_CODES))
        answer = CODES[a]
        options = [options_of[c][a] for c in picked]
        if any(not o for o in options):
            continue
        valid = _valid_assignments_for_answer(options)
        if not valid:
            continue
        active = valid[int(rng.integers(len(valid)))]
        if (tuple(picked), active, answer) in exclude:
            continue
        if rng.random() >= ambiguity(tuple(picked)) ** -exponent:
            continue
        return Setup(f"G-{difficulty}", difficulty, tuple(picked), active, answer, derangement(rng, n))
    raise RuntimeError(f"no well-formed {difficulty} setup found in {max_tries} draws")


#: Acceptance exponent of :func:`generate_setup` per difficulty (see there).
AMBIGUITY_EXPONENT = {"easy": 1.1, "medium": 0.5, "hard": 0.9}


@lru_cache(maxsize=1 << 16)
def ambiguity(card_ids: tuple[int, ...]) -> int:
    """How many codes could be the answer for these cards under the game's rules (some
    assignment of active criteria makes that code unique with no redundant verifier)."""
    _, answers = consistent_assignments(card_ids)
    return len(np.unique(answers))


def derangement(rng: np.random.Generator, n: int) -> tuple[int, ...]:
    """A uniform permutation of ``range(n)`` with no fixed point (``n >= 2``)."""
    while True:
        perm = rng.permutation(n)
        if not (perm == np.arange(n)).any():
            return tuple(int(i) for i in perm)


@cache
def _options_by_answer() -> dict[int, tuple[tuple[Criterion, ...], ...]]:
    """Per card, per answer index: the card's criteria that the answer satisfies."""
    return {
        cid: tuple(tuple(k for k in card.criteria if k.mask >> a & 1) for a in range(N_CODES))
        for cid, card in cards().items()
    }


@cache
def _published_keys() -> frozenset[tuple]:
    return frozenset((s.cards, s.active, s.answer) for s in published_setups())


# ---------------------------------------------------------------------------- hypotheses
_LO = (1 << 64) - 1


def _split(masks: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    return (
        np.array([m & _LO for m in masks], dtype=np.uint64),
        np.array([m >> 64 for m in masks], dtype=np.uint64),
    )


def _pop(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    return np.bitwise_count(lo).astype(np.int64) + np.bitwise_count(hi)


@cache
def consistent_assignments(card_ids: tuple[int, ...], non_redundant: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Every criteria assignment a player must consider for these cards.

    Returns ``(assignments, answers)``: ``assignments[h, i]`` is the criterion index of slot
    ``i`` in hypothesis ``h``, ``answers[h]`` the index of its unique code. Kept: exactly one
    code satisfies all active criteria and (if ``non_redundant``) no verifier is redundant,
    the two rules the game states. Vectorised over the product of the cards' criteria.
    """
    table = cards()
    per_card = [_split([k.mask for k in table[c].criteria]) for c in card_ids]
    acc_lo = np.array([ALL_CODES_MASK & _LO], dtype=np.uint64)
    acc_hi = np.array([ALL_CODES_MASK >> 64], dtype=np.uint64)
    idx = np.zeros((1, 0), dtype=np.int64)
    for lo, hi in per_card:
        n = len(lo)
        new_lo = (acc_lo[:, None] & lo[None, :]).ravel()
        new_hi = (acc_hi[:, None] & hi[None, :]).ravel()
        idx = np.concatenate([np.repeat(idx, n, axis=0), np.tile(np.arange(n), len(acc_lo))[:, None]], axis=1)
        keep = (new_lo | new_hi) != 0
        acc_lo, acc_hi, idx = new_lo[keep], new_hi[keep], idx[keep]
    single = _pop(acc_lo, acc_hi) == 1
    acc_lo, acc_hi, idx = acc_lo[single], acc_hi[single], idx[single]
    if non_redundant and len(idx):
        k = len(card_ids)
        lo_cols = [per_card[i][0][idx[:, i]] for i in range(k)]
        hi_cols = [per_card[i][1][idx[:, i]] for i in range(k)]
        ok = np.ones(len(idx), dtype=bool)
        for j in range(k):
            lo = np.full(len(idx), ALL_CODES_MASK & _LO, dtype=np.uint64)
            hi = np.full(len(idx), ALL_CODES_MASK >> 64, dtype=np.uint64)
            for i in range(k):
                if i != j:
                    lo &= lo_cols[i]
                    hi &= hi_cols[i]
            ok &= _pop(lo, hi) > 1
        acc_lo, acc_hi, idx = acc_lo[ok], acc_hi[ok], idx[ok]
    answers = np.where(
        acc_lo != 0,
        np.log2(np.maximum(acc_lo, 1).astype(np.float64)).astype(np.int64),
        64 + np.log2(np.maximum(acc_hi, 1).astype(np.float64)).astype(np.int64),
    )
    idx.setflags(write=False)
    answers.setflags(write=False)
    return idx, answers


# ---------------------------------------------------------------------------- beliefs
_TERM = r"(?:[BYP](?:\s*\+\s*[BYP])*|\d)"
_EXPR_RE = re.compile(rf"^\s*({_TERM})\s*(<=|>=|!=|==|=|<|>)\s*({_TERM})\s*$", re.IGNORECASE)
_EXPR_OPS = {
    "<": operator.lt,
    ">": operator.gt,
    "=": operator.eq,
    "==": operator.eq,
    "<=": operator.le,
    ">=": operator.ge,
    "!=": operator.ne,
}


def _term_value(term: str, code: Code) -> int:
    term = term.replace(" ", "").upper()
    if term.isdigit():
        return int(term)
    return sum(code["BYP".index(t)] for t in term.split("+"))


def expression_mask(expr: str) -> int | None:
    """Truth table of a compact comparison such as ``B<Y``, ``P=4`` or ``B+Y>6``
    (``None`` if ``expr`` is not one)."""
    m = _EXPR_RE.match(expr)
    if m is None:
        return None
    left, op, right = m.groups()
    cmp = _EXPR_OPS[op]
    return sum(1 << i for i, code in enumerate(CODES) if cmp(_term_value(left, code), _term_value(right, code)))


def _norm(text: str) -> str:
    return " ".join(text.lower().replace("_", " ").split()).strip(" .")


def resolve_criterion(card_id: int, ref: str) -> int | None:
    """Index of the criterion of ``card_id`` that ``ref`` names: its function name
    (``blue_lt_yellow``), its description (``BLUE is less than YELLOW``), its position on the
    card as ``#0``, ``#1``, ..., or a compact comparison with the same truth table (``B<Y``)."""
    card = cards()[card_id]
    ref = ref.strip().strip("`'\"")
    m = re.fullmatch(r"#\s*(\d+)", ref)
    if m:
        i = int(m.group(1))
        return i if i < len(card.criteria) else None
    key = _norm(ref)
    for c in card.criteria:
        if key in (_norm(c.function), _norm(c.description), _norm(c.description.split(",")[0])):
            return c.index
    mask = expression_mask(ref)
    if mask is not None:
        for c in card.criteria:
            if c.mask == mask:
                return c.index
    return None


_ENTRY_SPLIT = re.compile(r"(?:^|[,;\n])\s*(\d+)\s*[=:]\s*")


def _entries(body: str) -> list[tuple[int, str]]:
    parts = _ENTRY_SPLIT.split(body)
    return [(int(parts[i]), parts[i + 1].strip().rstrip(",;").strip()) for i in range(1, len(parts) - 1, 2)]


_TAG_BODY = {
    tag: re.compile(rf"<\s*{tag}\s*>\s*:?(.*?)(?=<\s*[A-Z_]+\s*>|\Z)", re.IGNORECASE | re.DOTALL)
    for tag in ("BELIEF", "MAPPING")
}


def _tag_body(text: str, tag: str) -> str | None:
    if tag.lower() not in text.lower():
        return None
    found = last_match(_TAG_BODY[tag], text)
    return None if found is None else found.group(1)


def parse_beliefs(text: str, card_ids: Sequence[int]) -> dict[int, tuple[str, tuple[int, ...] | None]]:
    """Beliefs stated in the last ``<BELIEF>:`` tag of ``text``.

    Format: ``<BELIEF>: 0=B<Y, 1=blue_eq_1|blue_gt_1, 2=?`` -- per verifier number, the
    criteria (of that verifier's own card) the player still holds possible, separated by
    ``|`` or `` or `` (a criterion whose own description holds " or " is read whole);
    ``?`` means no conclusion, and so does listing every criterion of the card. Returns
    ``{slot: (stated text, criterion indices: ``()`` for no conclusion, ``None`` for an
    unreadable entry)}``; other slots are ignored.
    """
    body = _tag_body(text, "BELIEF")
    if body is None:
        return {}
    out: dict[int, tuple[str, tuple[int, ...] | None]] = {}
    for slot, stated in _entries(body):
        if not 0 <= slot < len(card_ids):
            continue
        if stated in ("?", ""):
            out[slot] = (stated, ())
            continue
        idx = _resolve_list(card_ids[slot], stated)
        if idx is not None and len(idx) == len(cards()[card_ids[slot]].criteria):
            idx = ()  # every criterion still possible: no conclusion
        out[slot] = (stated, idx)
    return out


def _resolve_list(card_id: int, stated: str) -> tuple[int, ...] | None:
    """Criteria named in ``stated``, split on ``|``, then on `` or `` only where the whole piece
    is not itself one criterion; ``None`` if any piece names none."""
    found: set[int] = set()
    for piece in (p for p in stated.split("|") if p.strip()):
        whole = resolve_criterion(card_id, piece)
        if whole is not None:
            found.add(whole)
            continue
        for ref in (r for r in re.split(r"\bor\b", piece) if r.strip()):
            i = resolve_criterion(card_id, ref)
            if i is None:
                return None
            found.add(i)
    return tuple(sorted(found))


def parse_mapping(text: str, n: int) -> dict[int, int]:
    """Nightmare mapping beliefs from the last ``<MAPPING>:`` tag: ``0=2, 1=0`` means the
    results of verifier 0 come from verifier 2's card, and so on."""
    body = _tag_body(text, "MAPPING")
    if body is None:
        return {}
    out = {}
    for slot, stated in _entries(body):
        if 0 <= slot < n and stated.isdigit() and int(stated) < n:
            out[slot] = int(stated)
    return out


def score_belief(criteria: tuple[int, ...] | None, truth: int) -> str:
    """The paper's judge categories, computed exactly: ``correct`` (exactly the active
    criterion), ``include`` (a set holding it), ``incorrect`` (a set without it);
    ``none`` for ``?`` (no conclusion), ``unreadable`` for an entry we could not resolve."""
    if criteria is None:
        return "unreadable"
    if not criteria:
        return "none"
    if truth not in criteria:
        return "incorrect"
    return "correct" if len(criteria) == 1 else "include"
