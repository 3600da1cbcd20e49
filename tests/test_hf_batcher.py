"""Which concurrent ``hf:`` calls share a batch (no model needed; the real-model test of the
batches' replies is in ``tests/test_llm_agents.py``)."""

from __future__ import annotations

from mtp_gym.agents.llm.hf_agent import Batcher

GREEDY = {"max_new_tokens": 8, "do_sample": False}


def call(length: int, kwargs: dict | None = None) -> tuple:
    return ([1] * length, dict(kwargs or GREEDY), None, None)


def lengths(groups: list[list]) -> list[list[int]]:
    return [[len(item[0]) for item in group] for group in groups]


def test_greedy_calls_of_similar_length_share_a_batch():
    batch = [call(100), call(95), call(500), call(84), call(450), call(10)]
    assert lengths(Batcher._groups(batch)) == [[500, 450], [100, 95, 84], [10]]


def test_different_settings_and_sampled_calls_never_share_a_batch():
    sampled = {"max_new_tokens": 8, "do_sample": True, "temperature": 0.7}
    batch = [call(100), call(100, {"max_new_tokens": 16, "do_sample": False}), call(100, sampled), call(100, sampled)]
    groups = Batcher._groups(batch)
    assert sorted(len(g) for g in groups) == [1, 1, 1, 1]
