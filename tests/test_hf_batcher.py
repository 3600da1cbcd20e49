"""Which concurrent ``hf:`` calls share a batch, and the context-window check that keeps an
overlong prompt out of them (no model needed; the real-model tests of the batches' replies and
of ``context_overflow`` are in ``tests/test_llm_agents.py``)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from mtp_gym.agents.llm.hf_agent import Batcher, check_context, model_context_window
from mtp_gym.episode import ContextOverflow

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


def test_the_prompt_and_the_reply_budget_must_fit_the_window():
    check_context(8168, 24, 8192)  # exactly full: fits
    check_context(10**6, 24, None)  # no window known: no check
    with pytest.raises(ContextOverflow, match=r"^hf:smollm2: the prompt's 8169 tokens \+ max_new_tokens=24 exceed "):
        check_context(8169, 24, 8192, "hf:smollm2")
    with pytest.raises(ContextOverflow, match="context window of 8192 tokens$"):
        check_context(9035, 256, 8192)  # issue 26: 9,035 prompt tokens of 8,192


def test_the_context_window_comes_from_the_model_config():
    def model(**config) -> SimpleNamespace:
        return SimpleNamespace(config=SimpleNamespace(**config))

    assert model_context_window(model(max_position_embeddings=8192, n_positions=1024)) == 8192  # Llama (SmolLM2)
    assert model_context_window(model(n_positions=1024)) == 1024  # GPT-2
    assert model_context_window(model(max_position_embeddings=None, seq_length=2048)) == 2048  # ChatGLM
    assert model_context_window(model(hidden_size=64)) is None and model_context_window(object()) is None
    text = SimpleNamespace(max_position_embeddings=4096)
    assert model_context_window(model(get_text_config=lambda: text)) == 4096  # a multimodal model's text model


class NoModel:
    """A model that fails the test if anything reaches it."""

    def generate(self, **kwargs):
        raise AssertionError("an overlong prompt reached model.generate")


def test_an_overlong_call_is_refused_before_it_can_join_a_batch():
    tokenizer = SimpleNamespace(pad_token_id=2, eos_token_id=2)
    batcher = Batcher(NoModel(), tokenizer, "cpu", context_window=100)
    with pytest.raises(ContextOverflow, match=r"hf batcher: the prompt's 93 tokens \+ max_new_tokens=8 exceed"):
        batcher.generate([1] * 93, GREEDY)
    assert batcher.calls == batcher.runs == 0 and batcher._queue.empty()  # never queued
