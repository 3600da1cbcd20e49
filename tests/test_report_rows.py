"""A report row is read in one pass over its episodes (memory: no episode objects held) and
equals, bit for bit, the row of its definition: means and sums over lists in log order."""

from __future__ import annotations

import math
import random
import tracemalloc
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mtp_gym.eval.report import stats
from mtp_gym.eval.report.stats import Row, bootstrap_ci, pass_at_k, rows_of, wilson_ci

OUTCOMES = ["success", "failure", "timeout", "format_error", "context_overflow", "infra_error"]


@dataclass
class Ep:
    config_id: int
    outcome: str
    score: float | None
    turns: int
    format_errors: int
    prompt_tokens: int | float
    completion_tokens: int | float
    probe_result: dict[str, Any] | None


def mean(xs: list) -> float:
    return sum(xs) / len(xs) if xs else float("nan")


def counted(xs: list[int]) -> dict[int, int]:
    """Value -> how many times it occurs, in ascending values."""
    return {x: xs.count(x) for x in sorted(set(xs))}


def defined_row(task: tuple, group: list[Ep], price: tuple[float, float] | None) -> dict[str, Any]:
    """The row as its fields are defined: lists of the scored episodes, summed in log order (the
    turn lists as counts per turn count, the intervals of the score lists)."""
    recs = [r for r in group if r.outcome != "infra_error"]
    n = len(recs)
    score = [float(r.score or 0.0) for r in recs]
    wins = [r.turns for r in recs if r.outcome == "success"]
    configs: dict[int, list[Ep]] = {}
    for r in recs:
        configs.setdefault(r.config_id, []).append(r)
    k = min((len(v) for v in configs.values()), default=1)
    config_score = [mean([float(r.score or 0.0) for r in v]) for v in configs.values()]
    config_success = [mean([float(r.outcome == "success") for r in v]) for v in configs.values()]
    if k > 1:
        score_ci, success_ci = bootstrap_ci(config_score), bootstrap_ci(config_success)
    else:
        score_ci, success_ci = bootstrap_ci(score), wilson_ci(len(wins), n)
    success = len(wins) / n if n else float("nan")
    outcome_turns: dict[str, list[int]] = {}
    for r in recs:
        outcome_turns.setdefault(r.outcome, []).append(r.turns)
    cost = None
    if price is not None:  # every episode's, infra errors too, in log order
        cost = sum(r.prompt_tokens * price[0] + r.completion_tokens * price[1] for r in group) / 1e6
    return {
        "episodes": n,
        "mean_score": mean(score),
        "score_lo": score_ci[0],
        "score_hi": score_ci[1],
        "success_rate": success,
        "success_lo": success_ci[0],
        "success_hi": success_ci[1],
        "mean_turns": mean([r.turns for r in recs]),
        "mean_turns_success": mean(wins),
        "efficiency": 100 * success / mean(wins) if wins else 0.0,
        "format_errors": mean([r.format_errors for r in recs]),
        **{o: sum(r.outcome == o for r in recs) / n if n else float("nan") for o in OUTCOMES[1:5]},
        "infra_errors": len(group) - n,
        "prompt_tokens": mean([r.prompt_tokens for r in recs]),
        "completion_tokens": mean([r.completion_tokens for r in recs]),
        "cost": cost,
        "turns": counted([r.turns for r in recs]),
        "samples": k,
        "pass_at_k": mean([pass_at_k(len(v), sum(r.outcome == "success" for r in v), k) for v in configs.values()]),
        "mean_at_k": mean(config_score),
        "outcome_turns": {o: counted(turns) for o, turns in outcome_turns.items()},
        "config_scores": dict(zip(configs, config_score)),
        "config_success": dict(zip(configs, config_success)),
        "probe_records": None
        if task[3] is None
        else [
            {
                "config_id": r.config_id,
                "success": r.outcome == "success",
                "score": float(r.score or 0.0),
                "figures": r.probe_result if isinstance(r.probe_result, dict) else None,
            }
            for r in recs
        ],
    }


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


TOKENS = st.one_of(st.integers(0, 10**6), st.floats(0, 1e6, allow_nan=False))
EPISODES = st.builds(
    Ep,
    config_id=st.integers(0, 6),
    outcome=st.sampled_from(OUTCOMES),
    score=st.one_of(st.none(), st.floats(0, 1, allow_nan=False), st.sampled_from([0.1, 0.7, 1 / 3])),
    turns=st.integers(1, 40),  # a success takes a turn (efficiency divides by the turns)
    format_errors=st.integers(0, 3),
    prompt_tokens=TOKENS,
    completion_tokens=TOKENS,
    probe_result=st.one_of(st.none(), st.just({"drop": 0.5})),
)


@settings(max_examples=300, deadline=None)
@given(
    group=st.lists(EPISODES, max_size=40),
    probe=st.sampled_from([None, "noise"]),
    price=st.one_of(st.none(), st.just((0.15, 0.6))),
)
def test_a_row_is_its_definition_bit_for_bit(group, probe, price):
    task = ("MTP/HiddenNumber-v0", "model", 2, probe)
    (row,) = rows_of([(task, iter(group))], {"model": price} if price else None)  # read once, as a stream
    assert isinstance(row, Row)
    got = asdict(row)
    for key, value in defined_row(task, group, price).items():
        assert same(got[key], value), (key, got[key], value)


def test_bootstrap_reads_a_multiset_a_list_and_its_counts_alike():
    """The interval depends on the multiset of scores only: a list in any order, or its distinct
    scores with their counts (in any order, a score named twice adding up), on both of the
    bootstrap's ways (counts drawn when there are many episodes per distinct score, episode
    indices when there are few)."""
    rng = random.Random(3)
    for distinct, n in ((1, 50), (3, 400), (12, 3000), (40, 60), (200, 250), (500, 501)):
        values = [round(rng.random(), 3) for _ in range(distinct)]
        scores = [rng.choice(values) for _ in range(n)]
        want = bootstrap_ci(scores)
        shuffled = rng.sample(scores, len(scores))
        counts = Counter(shuffled)
        assert bootstrap_ci(shuffled) == want
        assert bootstrap_ci(list(counts), counts=list(counts.values())) == want
        split = [*counts.items(), (scores[0], 0)]  # a zero count changes nothing
        first = split[0][0]
        split[0] = (first, counts[first] - 1)
        split.append((first, 1))  # the same score in two entries adds up
        assert bootstrap_ci([v for v, _ in split], counts=[c for _, c in split]) == want
        assert bootstrap_ci(scores, seed=1) != want or distinct == 1
        lo, hi, eps = *want, 1e-12
        assert min(scores) - eps <= lo <= sum(scores) / n + eps and sum(scores) / n - eps <= hi <= max(scores) + eps


def test_bootstrap_needs_two_episodes():
    for scores, counts in (([], None), ([0.5], None), ([0.5], [1]), ([0.5, 0.7], [1, 0]), ([], [])):
        assert all(math.isnan(x) for x in bootstrap_ci(scores, counts=counts))
    assert bootstrap_ci([0.5], counts=[2]) == (0.5, 0.5)


def test_the_two_bootstrap_draws_estimate_the_same_interval(monkeypatch):
    """Counts drawn (multinomial) and episode indices drawn are the same bootstrap: their
    intervals agree to the resampling noise."""
    rng = random.Random(5)
    scores = [rng.choice([0.0, 0.25, 0.5, 1.0]) for _ in range(2000)]
    multinomial = bootstrap_ci(scores, resamples=4000)
    monkeypatch.setattr(stats, "MULTINOMIAL_EPISODES", 10**9)  # always draw indices
    indices = bootstrap_ci(scores, resamples=4000)
    assert multinomial != indices
    assert all(abs(a - b) < 0.005 for a, b in zip(multinomial, indices)), (multinomial, indices)


def test_a_row_holds_counts_not_episodes():
    """Reading 10x the episodes (a few distinct scores and turn counts, two configurations) holds
    no more memory: the tally keeps counts and running sums."""

    def episodes(n: int):
        for i in range(n):
            outcome = ("success", "failure", "timeout")[i % 3]
            yield Ep(i % 2, outcome, (i % 5) / 4, 1 + i % 7, i % 2, 100, 10, None)

    def peak(n: int) -> tuple[int, Row]:
        tracemalloc.start()
        try:
            (row,) = rows_of([(("MTP/WordGuess-v0", "model", None, None), episodes(n))], {"model": (1.0, 2.0)})
            return tracemalloc.get_traced_memory()[1], row
        finally:
            tracemalloc.stop()

    peak(100)  # first-call imports and caches
    (small, _), (large, row) = peak(10_000), peak(100_000)
    assert large - small < 64_000, (small, large)
    assert row.episodes == 100_000 and row.turns == dict(sorted(Counter(1 + i % 7 for i in range(100_000)).items()))
    assert list(row.outcome_turns or {}) == ["success", "failure", "timeout"]
    assert sum(sum(c.values()) for c in (row.outcome_turns or {}).values()) == 100_000
    assert row.config_scores == {0: 0.5, 1: 0.5} and not math.isnan(row.score_lo)
