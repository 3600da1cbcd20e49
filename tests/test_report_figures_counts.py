"""The turn figure reads counts per turn count: its box, computed from the counts, is the box
matplotlib computes from the episodes, and it draws a log of any size."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.cbook import boxplot_stats
from PIL import Image

from mtp_gym.eval.report import compute_rows, plot_turns
from mtp_gym.eval.report.figures import MAX_POINTS, box_stats

KEYS = ("q1", "med", "q3", "iqr", "whislo", "whishi", "cilo", "cihi")


def same_box(values: list, counts: list[int]) -> None:
    got = box_stats(values, counts)
    (want,) = boxplot_stats(np.repeat(values, counts), whis=1.5)
    for key in KEYS:
        assert got[key] == want[key], (key, got[key], want[key], values, counts)
    assert got["mean"] == pytest.approx(want["mean"], rel=1e-12)


TABLES = st.dictionaries(
    st.one_of(st.integers(0, 60), st.integers(-(10**6), 10**6)),
    st.one_of(st.integers(1, 4), st.integers(1, 3000)),
    min_size=1,
    max_size=12,
)


@settings(max_examples=400, deadline=None)
@given(table=TABLES)
def test_the_box_from_counts_is_matplotlibs_box_of_the_episodes(table):
    values = sorted(table)
    same_box(values, [table[v] for v in values])


def test_the_box_on_one_value_two_values_ties_and_floats():
    rng = random.Random(0)
    cases = [([7], [1]), ([7], [5]), ([1, 2], [1, 1]), ([1, 30], [1, 1]), ([1, 30], [3, 1]), ([1, 2, 3], [4, 4, 4])]
    cases += [([0, 1, 2, 3, 100], [1, 1, 1, 1, 1]), ([1, 2, 3, 4, 100], [50, 1, 1, 1, 2])]  # an outlier, whiskers short
    for _ in range(300):
        values = sorted(rng.sample(range(1, 40), rng.randint(1, 8)))
        cases.append((values, [rng.choice([1, 1, 2, 3, 10, 999]) for _ in values]))
    for _ in range(100):
        values = sorted({round(rng.uniform(-5, 5), rng.randint(0, 3)) for _ in range(rng.randint(1, 6))})
        cases.append((values, [rng.randint(1, 20) for _ in values]))
    for values, counts in cases:
        same_box(values, counts)


def test_turn_figure_draws_rows_of_any_size(tmp_path):
    """A few episodes (every one a point) and many (one point per turn count) of one task."""
    rng = random.Random(1)
    records = []
    for agent, n in (("few", 40), ("many", 5 * MAX_POINTS)):
        for i in range(n):
            outcome = rng.choice(["success", "failure", "timeout", "format_error"])
            records.append(
                {
                    "env_id": "MTP/WordGuess-v0",
                    "agent": agent,
                    "config_id": i,
                    "outcome": outcome,
                    "score": float(outcome == "success"),
                    "turns": rng.randint(1, 30),
                    "format_errors": 0,
                    "prompt_tokens": 0,
                    "completion_tokens": 0,
                }
            )
    rows = compute_rows(records)
    assert all(isinstance(r.outcome_turns, dict) and list(r.turns) == sorted(r.turns) for r in rows)
    size = plot_turns(rows, tmp_path / "turns.png")
    image = Image.open(tmp_path / "turns.png")
    assert image.size == size and len(image.convert("RGB").getcolors(1 << 20)) > 50
