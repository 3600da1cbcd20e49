"""An endpoint's fault is never a model's loss: each fault injected by a scripted server on
127.0.0.1, through the real HTTP path of :class:`OpenAIChatAgent`."""

from __future__ import annotations

import asyncio
import email.utils
import json
import socket
import time

import gymnasium as gym
import pytest
from fake_endpoint import MISSING, FakeEndpoint, drop, endless, raw, reply, shaped, status, trickle
from helpers import CLI_ENV, cli

import mtp_gym  # noqa: F401
from mtp_gym.agents.llm.endpoint import MAX_BODY, is_context_overflow, redact_url, retry_after
from mtp_gym.agents.llm.openai_agent import OpenAIChatAgent
from mtp_gym.episode import ContextOverflow, EndpointUnreachable, InfrastructureError, run_episode

WG = "MTP/WordGuess-v0"

# The context-window errors of real servers (messages as they send them).
OVERFLOWS = [
    (
        400,
        '{"error": {"message": "This model\'s maximum context length is 8192 tokens. However, your messages '
        'resulted in 9000 tokens.", "type": "invalid_request_error", "code": "context_length_exceeded"}}',
    ),
    (
        400,
        '{"object": "error", "message": "This model\'s maximum context length is 2048 tokens. However, you '
        'requested 2100 tokens (2000 in the messages, 100 in the completion).", "code": 400}',
    ),
    (
        400,
        '{"error": {"code": 400, "message": "the request exceeds the available context size, try increasing it", '
        '"type": "exceed_context_size_error", "n_prompt_tokens": 5000, "n_ctx": 4096}}',
    ),
    (
        400,
        '{"object": "error", "message": "The input (5000 tokens) is longer than the model\'s context length '
        '(4096 tokens)."}',
    ),
    (
        422,
        '{"error": "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4000 '
        '`inputs` tokens and 200 `max_new_tokens`", "error_type": "validation"}',
    ),
]


class Sleeps(list):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


class AsyncDriven(OpenAIChatAgent):
    """The same agent, each action played through its event-loop path (``aact``)."""

    def act(self, observation, info):
        self._aconnection = None  # a new loop per action: its streams belong to that loop
        return asyncio.run(self.aact(observation, info))


@pytest.fixture(autouse=True, params=["blocking", "asyncio"])
def transport(request):
    """Every test here runs through the blocking connection and through the asyncio one."""
    return request.param


AGENT_CLASS = {"blocking": OpenAIChatAgent, "asyncio": AsyncDriven}


@pytest.fixture
def agent(transport):
    def make(url: str, **kw) -> tuple[OpenAIChatAgent, Sleeps]:
        sleeps = Sleeps()
        a = AGENT_CLASS[transport]("m", base_url=url, sleep=sleeps, **{"backoff": 0.01, "max_retries": 3, **kw})
        a.reset(seed=0)
        return a, sleeps

    return make


@pytest.mark.parametrize(
    "fault",
    [
        status(500),
        status(502),
        status(429),
        drop(),
        raw(b"{not json"),
        raw(b"<html><body>Bad gateway</body></html>", "text/html"),
        raw(b'{"choices": []}'),
        raw(b'{"error": {"message": "overloaded"}}'),
    ],
    ids=["500", "502", "429", "dropped", "malformed-json", "html", "empty-choices", "error-in-200"],
)
def test_a_transient_fault_is_retried_then_the_reply_is_used(fault, agent):
    with FakeEndpoint([fault]) as ep:
        a, sleeps = agent(ep.url)
        assert a.act("hello", {}) == "<attempt>STARE</attempt>"
    assert len(ep.requests) == 2 and a.usage["retries"] == 1 and len(sleeps) == 1
    assert a.usage["prompt_tokens"] == 7 and a.usage["completion_tokens"] == 3


@pytest.mark.parametrize("fault", [raw(b"<html>proxy error</html>", "text/html"), raw(b'{"choices": []}')])
def test_when_retries_are_spent_it_is_an_infra_error_never_a_reply(fault, agent):
    with FakeEndpoint([fault] * 3) as ep:
        a, _ = agent(ep.url, max_retries=2)
        with pytest.raises(InfrastructureError, match="after 3 tries"):
            a.act("hello", {})
    with FakeEndpoint([fault] * 3) as ep:
        result = run_episode(gym.make(WG), agent(ep.url, max_retries=2)[0], config_id=0)
    assert result.outcome == "infra_error" and result.format_errors == 0 and result.turns == 0


def test_retry_after_seconds_and_http_date_are_honoured(agent):
    when = email.utils.formatdate(time.time() + 3, usegmt=True)
    script = [status(429, headers={"Retry-After": "2"}), status(503, headers={"Retry-After": when})]
    with FakeEndpoint(script) as ep:
        a, sleeps = agent(ep.url)
        a.act("hello", {})
    assert sleeps[0] == 2.0 and 1.0 <= sleeps[1] <= 3.5
    assert retry_after({"retry-after": "soon"}) is None and retry_after({}) is None
    # Not seconds: "²".isdigit() is true in Python, float("²") is not; a year past 9999.
    for odd in ("²", "1e9", "-3", "Mon, 01 Jan 99999 00:00:00 GMT"):
        assert retry_after({"retry-after": odd}) is None


@pytest.mark.parametrize(("code", "body"), OVERFLOWS, ids=["openai", "vllm", "llama.cpp", "sglang", "tgi"])
def test_a_context_overflow_is_the_models_failure_at_once(code, body, agent):
    assert is_context_overflow(code, body)
    with FakeEndpoint([status(code, body)]) as ep:
        a, sleeps = agent(ep.url)
        with pytest.raises(ContextOverflow):
            a.act("hello", {})
    assert len(ep.requests) == 1 and not sleeps  # no retry: it would fail the same way
    with FakeEndpoint([reply("<attempt>STARE</attempt>"), status(code, body)]) as ep:
        result = run_episode(gym.make(WG), agent(ep.url)[0], config_id=0)
    assert (result.outcome, result.score, result.turns) == ("context_overflow", 0.0, 1)


def test_ordinary_errors_are_not_context_overflows():
    assert not is_context_overflow(400, '{"error": {"message": "Invalid value for temperature"}}')
    assert not is_context_overflow(200, "maximum context length")


def test_a_rejected_request_is_an_infra_error_at_once(agent):
    with FakeEndpoint([status(404, '{"error": "no such model"}')]) as ep:
        a, sleeps = agent(ep.url)
        with pytest.raises(InfrastructureError, match="HTTP 404"):
            a.act("hello", {})
    assert not sleeps and a.usage["retries"] == 0


def test_a_trickling_server_cannot_hold_a_request_past_its_deadline(agent):
    with FakeEndpoint([trickle(0.2)] * 2) as ep:  # the whole body would take about 40 s
        a, _ = agent(ep.url, timeout=1.0, max_retries=1)
        start = time.monotonic()
        with pytest.raises(InfrastructureError, match="deadline"):
            a.act("hello", {})
        took = time.monotonic() - start
    assert took < 4.0, f"held for {took:.1f} s with timeout=1"


def test_the_action_budget_bounds_all_retries(agent):
    with FakeEndpoint([status(503, headers={"Retry-After": "30"})] * 5) as ep:
        a, sleeps = agent(ep.url, action_timeout=10.0, max_backoff=60.0)
        with pytest.raises(InfrastructureError, match="action_timeout=10s"):
            a.act("hello", {})
    assert not sleeps  # a 30 s wait does not fit in a 10 s action


def test_nothing_listening_is_endpoint_unreachable(agent):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    a, sleeps = agent(f"http://127.0.0.1:{port}/v1", max_retries=2)
    with pytest.raises(EndpointUnreachable, match="endpoint unreachable: .* after 3 tries"):
        a.act("hello", {})
    assert len(sleeps) == 2


def test_reasoning_content_is_stored_in_the_transcript_not_sent_back(agent):
    script = [reply("<attempt>STARE</attempt>", reasoning="Common letters first."), reply("<attempt>BLOKE</attempt>")]
    with FakeEndpoint(script, default=reply("<attempt>CRANE</attempt>")) as ep:
        a, _ = agent(ep.url)
        result = run_episode(gym.make(WG, max_turns=3), a, config_id=0)
    said = [m for m in result.transcript if m["role"] == "assistant"]
    assert said[0]["reasoning"] == "Common letters first." and "reasoning" not in said[1]
    sent = ep.requests[1]["json"]["messages"]
    assert all("Common letters" not in m["content"] and set(m) == {"role", "content"} for m in sent)


def test_credentials_in_the_url_are_used_but_never_shown(agent):
    assert redact_url("http://alice:s3cret@host:8000/v1?api_key=abc&x=1") == "http://host:8000/v1?api_key=%2A%2A%2A&x=1"
    with FakeEndpoint([status(401, '{"error": "bad key"}')]) as ep:
        url = ep.url.replace("http://", "http://alice:s3cret@")
        a, _ = agent(url)
        with pytest.raises(InfrastructureError) as err:
            a.act("hello", {})
    assert "s3cret" not in str(err.value) and "s3cret" not in a.base_url


def test_the_proxy_environment_variables_are_honoured(monkeypatch, agent):
    with FakeEndpoint() as proxy:  # a plain-http proxy receives the absolute URL
        monkeypatch.setenv("http_proxy", proxy.url.replace("http://", "http://bob:pw@").removesuffix("/v1"))
        monkeypatch.setenv("no_proxy", "")
        a, _ = agent("http://model.internal:8000/v1")
        assert a.act("hello", {}) == "<attempt>STARE</attempt>"
        monkeypatch.setenv("no_proxy", "model.internal")
        b, _ = agent("http://model.internal:8000/v1", max_retries=0)
        with pytest.raises(EndpointUnreachable):  # bypassed: straight to a host that does not exist
            b.act("hello", {})
    (seen,) = proxy.requests
    assert seen["path"] == "http://model.internal:8000/v1/chat/completions"
    assert seen["headers"]["Proxy-Authorization"] == "Basic Ym9iOnB3"  # bob:pw


# --- Hostile endpoints (issue 27 item 4): odd fields never abort a run nor count against the model.

PARTS = [{"type": "text", "text": "<attempt>"}, {"type": "image_url", "image_url": {}}, {"type": "text", "text": "STARE</attempt>"}]  # fmt: skip


@pytest.mark.parametrize(
    ("usage", "counted"),
    [
        ({"prompt_tokens": "abc", "completion_tokens": 3}, (0, 3)),
        ({"prompt_tokens": float("nan"), "completion_tokens": float("inf")}, (0, 0)),
        ({"prompt_tokens": 7, "completion_tokens": -3}, (7, 0)),
        ({"prompt_tokens": 2.5, "completion_tokens": True}, (0, 0)),
        ({"prompt_tokens": 10**30, "completion_tokens": 3.0}, (0, 3)),
        (MISSING, (0, 0)),
        ("lots", (0, 0)),
        ([7, 3], (0, 0)),
    ],
    ids=["string", "nan-inf", "negative", "fraction-bool", "huge", "missing", "usage-string", "usage-list"],
)
def test_odd_usage_is_ignored_as_unknown_never_a_crash(usage, counted, agent, caplog):
    with FakeEndpoint([shaped(usage=usage)]) as ep:
        a, sleeps = agent(ep.url)
        assert a.act("hello", {}) == "<attempt>STARE</attempt>"
    assert len(ep.requests) == 1 and not sleeps  # the reply is used as it is: no retry
    assert (a.usage["prompt_tokens"], a.usage["completion_tokens"]) == counted
    assert a.usage["unknown_usage"] == 1
    assert "token usage unknown" in caplog.text


def test_a_sound_usage_is_counted_and_not_flagged(agent):
    with FakeEndpoint([shaped(usage={"prompt_tokens": 7, "completion_tokens": 3.0})]) as ep:
        a, _ = agent(ep.url)
        a.act("hello", {})
    assert (a.usage["prompt_tokens"], a.usage["completion_tokens"]) == (7, 3) and "unknown_usage" not in a.usage


def test_content_parts_are_read_as_the_reply_text(agent):
    with FakeEndpoint([shaped(content=PARTS)]) as ep:
        a, _ = agent(ep.url)
        assert a.act("hello", {}) == "<attempt>STARE</attempt>"
    with FakeEndpoint(default=shaped(content=PARTS)) as ep:
        result = run_episode(gym.make(WG, max_turns=3), agent(ep.url)[0], config_id=0)
    assert result.format_errors == 0 and result.turns == 3  # STARE three times: played, not malformed
    assert all(m["content"] == "<attempt>STARE</attempt>" for m in result.transcript if m["role"] == "assistant")


MALFORMED = {
    "no-choices": shaped(choices=MISSING),
    "choices-not-a-list": shaped(choices={"0": {"message": {"content": "x"}}}),
    "choice-not-an-object": shaped(choices=["<attempt>STARE</attempt>"]),
    "no-message": shaped(choices=[{"index": 0, "finish_reason": "stop"}]),
    "content-a-number": shaped(content=42),
    "content-an-object": shaped(content={"text": "<attempt>STARE</attempt>"}),
    "parts-not-objects": shaped(content=[1, 2]),
    "part-text-not-a-string": shaped(content=[{"type": "text", "text": 5}]),
    "body-a-list": raw(b"[]"),
    "body-a-string": raw(b'"<attempt>STARE</attempt>"'),
    "nested-too-deep": raw(b"[" * 100_000 + b"]" * 100_000),
    "invalid-utf8": raw(b'{"choices": [{"message": {"content": "\xff\xfe"}}]}'),
}


@pytest.mark.parametrize("fault", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_completion_is_an_endpoint_fault_retried_never_the_models(fault, agent):
    with FakeEndpoint([fault]) as ep:
        a, sleeps = agent(ep.url)
        assert a.act("hello", {}) == "<attempt>STARE</attempt>"
    assert len(ep.requests) == 2 and a.usage["retries"] == 1 and len(sleeps) == 1
    with FakeEndpoint([fault] * 3) as ep:
        result = run_episode(gym.make(WG), agent(ep.url, max_retries=2)[0], config_id=0)
    assert (result.outcome, result.format_errors, result.turns) == ("infra_error", 0, 0)


@pytest.mark.parametrize("mode", ["chunked", "length", "close"])
def test_an_endless_body_is_cut_off_at_the_limit_as_an_endpoint_fault(mode, agent):
    step = endless(mode, limit=1 << 30)
    with FakeEndpoint([step]) as ep:
        a, sleeps = agent(ep.url, max_retries=0)
        start = time.monotonic()
        with pytest.raises(InfrastructureError, match="over the 16 MiB limit"):
            a.act("hello", {})
        took = time.monotonic() - start
    # Read up to the limit, then hung up: what the server got out is the limit plus socket buffers.
    assert step.sent < MAX_BODY + (24 << 20), f"{step.sent / 1e6:.0f} MB sent"
    assert took < 5.0 and not sleeps
    with FakeEndpoint([endless(mode, limit=1 << 30)]) as ep:  # retried on a new connection: the reply is used
        a, sleeps = agent(ep.url)
        assert a.act("hello", {}) == "<attempt>STARE</attempt>"
    assert len(ep.requests) == 2 and len(sleeps) == 1


def test_a_body_just_under_the_limit_is_read(agent):
    filler = "A" * (MAX_BODY - 400)
    body = json.dumps({"choices": [{"message": {"content": "<attempt>STARE</attempt>"}}], "pad": filler}).encode()
    assert len(body) <= MAX_BODY
    with FakeEndpoint([raw(body)]) as ep:
        a, _ = agent(ep.url)
        assert a.act("hello", {}) == "<attempt>STARE</attempt>"
    assert len(ep.requests) == 1


def test_eval_against_a_hostile_endpoint_ends_rc_0_with_every_episode_logged(transport, tmp_path):
    """The issue's run: usage "abc" (and content parts, faults between) must not abort ``mtp-gym eval``."""
    odd = shaped(content=PARTS, usage={"prompt_tokens": "abc", "completion_tokens": 3})
    script = [odd, endless("chunked", limit=1 << 30), raw(b'{"choices": [{"message": {"content": 42}}]}'), odd]
    with FakeEndpoint(script, default=odd) as ep:
        res = cli(
            "eval", "--env", WG, "--agent", "openai:m", "--base-url", ep.url, "--split", "3",
            "--env-kwargs", '{"max_turns": 3}', "--agent-kwargs", '{"backoff": 0.01}', "--out", str(tmp_path),
            "--executor", "thread" if transport == "blocking" else "async", "--no-progress", "--no-report",
            env=CLI_ENV,
        )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr and "token usage unknown (usage.prompt_tokens='abc')" in res.stderr
    records = [json.loads(line) for line in (tmp_path / "openai_m" / "episodes.jsonl").read_text().splitlines()]
    assert len(records) == 3
    assert all(r["outcome"] == "timeout" and r["format_errors"] == 0 and r["turns"] == 3 for r in records)
    assert sum(r["completion_tokens"] for r in records) == 9 * 3 and sum(r["prompt_tokens"] for r in records) == 0
