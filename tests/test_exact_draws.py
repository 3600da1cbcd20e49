"""ExactDraws: the generators' small draws made in Python give what NumPy's calls give."""

from __future__ import annotations

import numpy as np
import pytest

from mtp_gym.games._draws import ExactDraws


def _script(cases: np.random.Generator) -> list[tuple]:
    """A random run of calls: small and huge ``integers`` bounds (Lemire's method redraws a
    quarter of the words at ``3 * 2**30``), ``integers(low, high)``, and ``choice`` of 0 to 6
    of up to 400 (size 2 of up to 20,000: NumPy's other way starts past 10,000 with size > m // 50)."""
    calls: list[tuple] = []
    for _ in range(int(cases.integers(0, 200))):
        kind = int(cases.integers(5))
        if kind == 0:
            calls.append(("integers", int(cases.integers(1, 300))))
        elif kind == 1:
            calls.append(("integers", int(cases.choice([3 << 30, (1 << 32) - 1, int(cases.integers(1, 1 << 32))]))))
        elif kind == 2:
            low = int(cases.integers(-5, 5))
            calls.append(("between", low, low + int(cases.integers(1, 9))))
        elif kind == 3:
            m = int(cases.integers(0, 400))
            calls.append(("choice", m, int(cases.integers(0, min(m, 6) + 1))))
        else:
            calls.append(("choice", int(cases.integers(2, 20_000)), 2))
    return calls


def _numpy(rng: np.random.Generator, call: tuple) -> object:
    if call[0] == "integers":
        return int(rng.integers(call[1]))
    if call[0] == "between":
        return int(rng.integers(call[1], call[2]))
    return rng.choice(call[1], size=call[2], replace=False).tolist()


def _exact(draws: ExactDraws, call: tuple) -> object:
    if call[0] == "integers":
        return draws.integers(call[1])
    if call[0] == "between":
        return call[1] + draws.integers(call[2] - call[1])
    return draws.choice(call[1], call[2])


def _same_after(a: np.random.Generator, b: np.random.Generator) -> None:
    assert a.bit_generator.state == b.bit_generator.state
    assert a.integers(1000, dtype=np.uint32) == b.integers(1000, dtype=np.uint32)  # a kept half first
    assert a.integers(1 << 40, size=3).tolist() == b.integers(1 << 40, size=3).tolist()


@pytest.mark.parametrize("kept_half", [False, True])
def test_exact_draws_give_numpys_values_and_leave_its_state(kept_half):
    cases = np.random.default_rng(3 + kept_half)
    for _ in range(400):
        seed = int(cases.integers(1 << 40))
        a, b = np.random.default_rng(seed), np.random.default_rng(seed)
        if kept_half:  # three 32-bit draws: the high half of a word kept for the next one
            for rng in (a, b):
                rng.choice(9, size=2, replace=False)
            assert a.bit_generator.state["has_uint32"]
        calls = _script(cases)
        expected = [_numpy(b, call) for call in calls]
        with ExactDraws(a) as draws:
            assert [_exact(draws, call) for call in calls] == expected
        _same_after(a, b)


def test_exact_draws_after_close_and_on_other_bit_generators_call_the_generator():
    a, b = np.random.default_rng(8), np.random.default_rng(8)
    draws = ExactDraws(a)
    assert draws.choice(50, 2) == b.choice(50, size=2, replace=False).tolist()
    draws.close()
    assert draws.integers(7) == b.integers(7) and draws.choice(30, 3) == b.choice(30, size=3, replace=False).tolist()
    _same_after(a, b)
    a, b = np.random.Generator(np.random.MT19937(3)), np.random.Generator(np.random.MT19937(3))
    calls = _script(np.random.default_rng(9))
    with ExactDraws(a) as draws:
        assert [_exact(draws, call) for call in calls] == [_numpy(b, call) for call in calls]
    assert a.integers(1 << 40, size=3).tolist() == b.integers(1 << 40, size=3).tolist()


def test_exact_draws_without_a_draw_leave_the_generator_alone():
    rng = np.random.default_rng(5)
    before = rng.bit_generator.state
    with ExactDraws(rng) as draws:
        assert draws.integers(1) == 0 and draws.choice(4, 0) == [] and draws.choice(1, 1) == [0]
    assert rng.bit_generator.state == before


@pytest.mark.parametrize(
    "call", [("integers", 0), ("integers", 1 << 32), ("choice", 3, 4), ("choice", 3, -1), ("choice", 20_000, 401)]
)
def test_exact_draws_name_a_bound_out_of_range_or_numpys_other_way(call):
    with ExactDraws(np.random.default_rng(0)) as draws, pytest.raises(ValueError, match="must be (in|at most)"):
        _exact(draws, call)
