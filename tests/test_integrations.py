"""The framework adapters, through the real libraries, offline (127.0.0.1 only).

Each adapter plays benchmark configurations with the oracle's moves (a scripted "model" that
answers whatever conversation it is sent, :mod:`mtp_gym.integrations.scripted`) and must score exactly what ``mtp-gym eval``
records for the oracle on the same configurations.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import time
import urllib.request
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
from helpers import ENV_IDS, cli, free_port, openenv_server

from mtp_gym.agents import make_agent
from mtp_gym.agents.llm.openai_agent import OpenAIChatAgent
from mtp_gym.agents.llm.prompts import PROMPT_STYLES
from mtp_gym.episode import run_episode
from mtp_gym.history import cap_history
from mtp_gym.integrations import (
    ChatSettings,
    EnvSession,
    ScriptedEndpoint,
    configurations,
    draws,
    env_id_of,
    registered_ids,
    scripted_draws,
    scripted_moves,
    source_kwargs,
    styled_env_kwargs,
    table_model,
    task_name,
)

#: Envs the adapters are checked on: every suite, a level and a probe.
CASES: list[tuple[str, dict[str, Any]]] = [
    ("MTP/WordGuess-v0", {}),
    ("MTP/CircuitDecoding-v0", {}),
    ("MTP/TuringMachine-v0", {}),
    ("MTP/HiddenNumber-v0", {"difficulty": 3}),
    ("MTP/HiddenEdges-v0", {"probe": "noise"}),
]
N_CONFIGS = 3


@pytest.fixture(scope="module")
def oracle_runs() -> dict[str, tuple[list[int], dict, dict]]:
    runs = {}
    for env_id, kwargs in CASES:
        ids = configurations(env_id, kwargs, N_CONFIGS)
        moves, results = scripted_moves(env_id, ids, env_kwargs=kwargs)
        runs[env_id] = (ids, moves, results)
    return runs


# ------------------------------------------------------------------ the shared session
def test_every_id_has_a_task_name_and_back():
    assert registered_ids() == ENV_IDS
    names = [task_name(i) for i in ENV_IDS]
    assert len(set(names)) == len(names) and task_name("MTP/WordGuess-v0") == "word_guess"
    assert all(env_id_of(n) == i and env_id_of(i) == i for n, i in zip(names, ENV_IDS))
    with pytest.raises(ValueError, match="'word_gues' is not registered; allowed: .*word_guess"):
        env_id_of("word_gues")


def test_the_session_plays_like_the_harness(oracle_runs):
    ids, moves, results = oracle_runs["MTP/TuringMachine-v0"]
    session = EnvSession("turing_machine")
    for config_id in ids:
        said = [session.start(config_id)]
        assert session.result().outcome is None
        while not session.done:
            said.append(session.send(moves[tuple(said)]))
        assert session.result().as_dict() == {
            "score": results[config_id].score,
            "outcome": results[config_id].outcome,
            "turns": results[config_id].turns,
            "format_errors": results[config_id].format_errors,
        }
    with pytest.raises(RuntimeError, match="has ended"):
        session.send("<CHOICE>: <1>")


# ------------------------------------------------------------------ history cap
def test_cap_history_keeps_the_rules_and_the_last_turns():
    msgs = [{"role": "system", "content": "s"}, {"role": "user", "content": "rules"}]
    for k in range(5):
        msgs += [{"role": "assistant", "content": f"a{k}"}, {"role": "user", "content": f"u{k}"}]
    assert cap_history(msgs, None) == msgs
    assert [m["content"] for m in cap_history(msgs, 2)] == ["s", "rules", "a3", "u3", "a4", "u4"]
    assert cap_history(msgs, 5) == msgs and cap_history(msgs[:4], 1) == msgs[:4]
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="max_history must be None"):
            OpenAIChatAgent("m", base_url="http://127.0.0.1:9/v1", max_history=bad)


def test_a_capped_agent_sends_only_the_rules_and_the_last_turns():
    """A model that asks the same legal question every turn plays Hidden Number to its turn
    budget; with ``max_history=2`` each request holds the rules and at most two turns."""
    with ScriptedEndpoint(lambda messages: "<query_odd></query_odd>", max_requests=50) as ep:
        agent = OpenAIChatAgent("fake", base_url=ep.url, max_history=2)
        env = gym.make("MTP/HiddenNumber-v0")
        result = run_episode(env, agent, config_id=0)
        sent = [r["messages"] for r in ep.requests]
    budget = env.unwrapped.max_turns
    assert result.outcome == "timeout" and result.turns == len(sent) == budget
    assert [len(m) for m in sent] == [1, 3] + [5] * (budget - 2)
    assert all(m[0]["content"] == result.transcript[0]["content"] for m in sent)  # the rules always stay
    assert [m["content"] for m in sent[-1][1:]] == [m["content"] for m in result.transcript[-6:-2]]


# ------------------------------------------------------------------ Inspect AI
def _inspect_eval(task: Any, model: Any, log_dir: Path) -> Any:
    import inspect_ai

    log = inspect_ai.eval(task, model=model, log_dir=str(log_dir), display="none")[0]
    assert log.status == "success", log.error
    return log


def _mock(moves: dict[tuple[str, ...], str], seen: list[int] | None = None) -> Any:
    pytest.importorskip("inspect_ai")
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    move = table_model(moves)

    def output(messages: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        if seen is not None:
            seen.append(len(messages))
        out = ModelOutput.from_content("mockllm/model", move(messages))
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # (no tokenizer download)
        return out

    return get_model("mockllm/model", custom_outputs=output)


@pytest.mark.parametrize(("env_id", "kwargs"), CASES, ids=[c[0] for c in CASES])
def test_inspect_task_scores_what_the_harness_scores(env_id, kwargs, oracle_runs, tmp_path):
    pytest.importorskip("inspect_ai")
    from mtp_gym.integrations.inspect_tasks import mtp_task

    ids, moves, results = oracle_runs[env_id]
    log = _inspect_eval(mtp_task(env_id, split=N_CONFIGS, **kwargs), _mock(moves), tmp_path)
    assert sorted(s.id for s in log.samples) == ids
    for sample in log.samples:
        score = sample.scores["mtp_env_score"]
        want = results[sample.id]
        assert score.value == {"score": want.score, "success": float(want.outcome == "success")}
        assert (score.metadata["outcome"], score.metadata["turns"]) == (want.outcome, want.turns)
        replies = [m.text for m in sample.messages if m.role == "assistant"]
        assert replies == [m["content"] for m in want.transcript if m["role"] == "assistant"]
    means = {s.name: s.metrics["mean"].value for s in log.results.scores}
    assert means["score"] == pytest.approx(sum(r.score for r in results.values()) / len(ids))
    assert means["success"] == pytest.approx(sum(r.outcome == "success" for r in results.values()) / len(ids))


def test_inspect_plays_a_confused_model_to_its_format_error(tmp_path):
    pytest.importorskip("inspect_ai")
    from mtp_gym.integrations.inspect_tasks import mtp_task

    log = _inspect_eval(mtp_task("hidden_number", split=1), _mock({}), tmp_path)
    (sample,) = log.samples
    meta = sample.scores["mtp_env_score"].metadata
    assert meta["outcome"] == "format_error" and meta["format_errors"] == 3 and meta["score"] == 0.0
    users = [m.text for m in sample.messages if m.role == "user"]
    assert len(users) == 3 and all("Invalid action" in u for u in users[1:])  # re-prompts, not moves


def test_inspect_ends_a_context_overflow_as_the_harness_does(tmp_path):
    """An endpoint answering the real 400 ``context_length_exceeded`` (Inspect's provider turns
    it into an output stopped for ``model_length`` whose text is the error message): Inspect
    ends the episode as ``context_overflow`` with score 0 after that request, as ``mtp-gym eval``
    does against the same endpoint, never as three format errors."""
    pytest.importorskip("inspect_ai")
    from fake_endpoint import USAGE, FakeEndpoint, context_overflow, raw
    from inspect_ai.model import get_model

    from mtp_gym.integrations.inspect_tasks import mtp_task

    move = {"role": "assistant", "content": "<query_odd></query_odd>"}
    body = {"id": "x", "object": "chat.completion", "created": 0, "model": "fake", "usage": USAGE,
            "choices": [{"index": 0, "message": move, "finish_reason": "stop"}]}  # fmt: skip
    script = [raw(json.dumps(body).encode()), context_overflow()]
    with FakeEndpoint(script, default=raw(json.dumps(body).encode()), max_requests=5) as ep:
        model = get_model("openai-api/local/fake", base_url=ep.url, api_key="x")
        log = _inspect_eval(mtp_task("hidden_number", split=1), model, tmp_path)
        inspect_requests = len(ep.requests)
    with FakeEndpoint(script, default=raw(json.dumps(body).encode()), max_requests=5) as ep:
        run = cli("eval", "--env", "MTP/HiddenNumber-v0", "--agent", "openai:fake", "--base-url", ep.url,
                  "--split", "1", "--out", str(tmp_path / "harness"), "--no-progress", "--no-report")  # fmt: skip
        assert run.returncode == 0, run.stderr[-2000:]
        harness_requests = len(ep.requests)
    (record,) = _records(tmp_path / "harness")
    meta = log.samples[0].scores["mtp_env_score"].metadata
    got = (meta["outcome"], meta["score"], meta["turns"], meta["format_errors"])
    assert got == (record["outcome"], record["score"], record["turns"], record["format_errors"])
    assert got == ("context_overflow", 0.0, 1, 0)
    assert inspect_requests == harness_requests == 2
    assert "maximum context length" not in json.dumps([m.text for m in log.samples[0].messages])  # never a move


def test_inspect_starts_a_fresh_context_where_the_env_says(tmp_path):
    """Necessity probe: the phase-2 request holds only the phase-2 message; the log keeps both."""
    pytest.importorskip("inspect_ai")
    from mtp_gym.integrations.inspect_tasks import mtp_task

    kwargs = {"difficulty": 1, "probe": "necessity"}
    ids = configurations("MTP/HiddenNumber-v0", kwargs, 2)
    moves, results = scripted_moves("MTP/HiddenNumber-v0", ids, "necessity_oracle", kwargs)
    seen: list[int] = []
    log = _inspect_eval(mtp_task("hidden_number", split=2, **kwargs), _mock(moves, seen), tmp_path)
    assert seen == [1, 1, 1, 1]
    for sample in log.samples:
        assert sample.scores["mtp_env_score"].value["score"] == results[sample.id].score == 1.0
        assert [m.role for m in sample.messages] == ["user", "assistant", "user", "assistant"]


def test_inspect_caps_the_history_it_sends(oracle_runs, tmp_path):
    pytest.importorskip("inspect_ai")
    from mtp_gym.integrations.inspect_tasks import mtp_task

    ids, moves, _ = oracle_runs["MTP/CircuitDecoding-v0"]
    seen: list[int] = []
    log = _inspect_eval(mtp_task("circuit_decoding", split=1, max_history=1), _mock(moves, seen), tmp_path)
    assert seen[:3] == [1, 3, 3] and max(seen) == 3
    assert len(log.samples[0].messages) > 3  # the log keeps the whole conversation


def test_inspect_cli_finds_the_task_and_plays_an_openai_compatible_server(oracle_runs, tmp_path):
    """``inspect eval mtp_gym/turing_machine`` through the package's entry point and Inspect's own
    OpenAI-compatible provider against a server on 127.0.0.1."""
    pytest.importorskip("inspect_ai")
    from inspect_ai.log import list_eval_logs, read_eval_log

    ids, moves, results = oracle_runs["MTP/TuringMachine-v0"]
    with ScriptedEndpoint(table_model(moves), max_requests=100) as ep:
        env = {**os.environ, "LOCAL_API_KEY": "x", "LOCAL_BASE_URL": ep.url}
        inspect_cli = [sys.executable, "-m", "inspect_ai._cli.main"]
        args = ["eval", "mtp_gym/turing_machine", "-T", f"split={N_CONFIGS}", "--model", "openai-api/local/fake"]
        # (from outside the checkout: there Inspect would read "mtp_gym/..." as a path)
        cmd = [*inspect_cli, *args, "--log-dir", str(tmp_path), "--display", "none"]
        run = subprocess.run(cmd, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr[-3000:]
    log = read_eval_log(list_eval_logs(str(tmp_path))[0])
    assert log.status == "success" and log.eval.task.endswith("turing_machine")
    got = {s.id: s.scores["mtp_env_score"].value["score"] for s in log.samples}
    assert got == {c: results[c].score for c in ids}
    assert len(ep.requests) == sum(results[c].turns for c in ids)


# ------------------------------------------------------------------ OpenEnv
@pytest.fixture(scope="module")
def openenv_url():
    pytest.importorskip("openenv")
    with openenv_server() as port:
        yield f"http://127.0.0.1:{port}"


@pytest.mark.parametrize(("env_id", "kwargs"), CASES, ids=[c[0] for c in CASES])
def test_openenv_client_plays_the_oracle_to_the_end(env_id, kwargs, oracle_runs, openenv_url):
    """The real oracle agent plays through OpenEnv's client, reading only the observation's text
    and its JSON info; the scores equal ``gym.make``'s."""
    from mtp_gym.integrations.openenv_server import MTPAction, MTPEnvClient

    ids, _, results = oracle_runs[env_id]
    oracle = make_agent("oracle", env_id)
    with MTPEnvClient(base_url=openenv_url).sync() as client:
        for config_id in ids:
            step = client.reset(env_id=env_id, config_id=config_id, env_kwargs=kwargs)
            oracle.reset(seed=config_id)
            assert step.observation.env_id == env_id and not step.done and step.observation.outcome is None
            while not step.done:
                step = client.step(MTPAction(message=oracle.act(step.observation.text, step.observation.info)))
            obs, want = step.observation, results[config_id]
            assert (obs.score, obs.outcome, obs.turn, obs.format_errors) == (
                want.score, want.outcome, want.turns, want.format_errors,
            )  # fmt: skip
            assert step.reward == want.rewards[-1]
            state = client.state()
            assert (state.env_id, state.config_id, state.step_count, state.done) == (
                env_id,
                config_id,
                want.turns,
                True,
            )


def test_openenv_reset_names_a_bad_env_and_the_server_stays_up(openenv_url):
    from mtp_gym.integrations.openenv_server import MTPAction, MTPEnvClient

    with MTPEnvClient(base_url=openenv_url).sync() as client:
        with pytest.raises(Exception, match="'nope' is not registered"):
            client.reset(env_id="nope")
    with MTPEnvClient(base_url=openenv_url).sync() as client:
        step = client.reset(config_id=0)  # the server's default env
        assert step.observation.env_id == "MTP/WordGuess-v0"
        step = client.step(MTPAction(message="hello"))
        assert step.observation.format_errors == 1 and "Invalid action" in step.observation.text
    schema = json.load(urllib.request.urlopen(f"{openenv_url}/schema", timeout=10))
    assert schema["action"]["required"] == ["message"] and "text" in schema["observation"]["properties"]


def test_serve_env_cli_listens_on_localhost():
    pytest.importorskip("openenv")
    bad = cli("serve-env", "--env", "nope")
    assert bad.returncode != 0 and "--env: unknown env id 'nope'; allowed: [" in bad.stderr
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "mtp_gym.cli", "serve-env", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                health = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2))
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read().decode()[-2000:]
                time.sleep(0.2)
        assert health["status"] == "healthy"
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    assert "warning" not in proc.stderr.read().decode()  # 127.0.0.1: no exposure warning


# ------------------------------------------------------------------ verifiers
def _side_venv(path: Path) -> Path:
    """A venv that sees this environment's packages (mtp_gym included) behind its own: verifiers
    0.4 needs openai<3, which Inspect's providers here do not allow in one environment."""
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True, timeout=300)
    python = path / "bin" / "python"
    own = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    # an import line, so that the parent's own .pth files (editable installs) are read too
    parent = sysconfig.get_paths()["purelib"]
    Path(own, "parent_env.pth").write_text(f"import site; site.addsitedir({parent!r})\n")
    return python


@pytest.fixture(scope="module")
def verifiers_python(tmp_path_factory) -> Path:
    """A venv holding what ``pip install "mtp-gym[verifiers]"`` installs (mtp-gym itself seen
    from this environment) and nothing else: no ``uv``, whose absence the rollouts must survive."""
    here = Path(sys.executable)
    if (here.parent / "vf-eval").exists() and subprocess.run([here, "-c", "import verifiers.v1"]).returncode == 0:
        return here
    python = _side_venv(tmp_path_factory.mktemp("verifiers") / "venv")
    pip = [python, "-m", "pip", "install", "-q"]
    if subprocess.run([*pip, "--dry-run", "--no-deps", "verifiers==0.4.0"], capture_output=True).returncode:
        pytest.skip("the package registry is not reachable")
    subprocess.run([*pip, "verifiers==0.4.0"], check=True, capture_output=True, timeout=900)
    return python


def _offline_env(python: Path) -> dict[str, str]:
    """vf-eval's environment: no ``uv`` on the PATH, and no way out but 127.0.0.1 (every proxy
    variable points at a closed port; pip and uv told to stay offline)."""
    path = os.pathsep.join([str(python.parent), "/usr/local/bin", "/usr/bin", "/bin"])
    blocked = "http://127.0.0.1:9"
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env.update(PATH=path, PRIME_API_KEY="x", HTTP_PROXY=blocked, HTTPS_PROXY=blocked, ALL_PROXY=blocked,
               http_proxy=blocked, https_proxy=blocked, all_proxy=blocked, NO_PROXY="127.0.0.1",
               no_proxy="127.0.0.1", PIP_NO_INDEX="1", UV_OFFLINE="1")  # fmt: skip
    assert subprocess.run(["sh", "-c", "command -v uv"], env=env).returncode != 0, "uv is on the PATH"
    return env


def _vf_eval(python: Path, env_id: str, options: dict[str, Any], n: int, url: str, out: Path) -> list[dict]:
    """``vf-eval mtp_gym_verifiers`` offline (:func:`_offline_env`) with ``--env.taskset.*`` options;
    its episodes (each one ok, or the assertion names the errors)."""
    args = [str(python.parent / "vf-eval"), "mtp_gym_verifiers", "--env.taskset.env", env_id]
    for key, value in options.items():
        args += [f"--env.taskset.{key.replace('_', '-')}", json.dumps(value) if isinstance(value, dict) else str(value)]
    args += ["--model", "fake", "--client.base-url", url, "--no-push", "-o", str(out), "-n", str(n), "-r", "1"]
    run = subprocess.run(args, capture_output=True, text=True, timeout=600, env=_offline_env(python))
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    (traces,) = out.glob("*/traces.jsonl")
    episodes = [json.loads(line) for line in traces.read_text().splitlines()]
    for episode in episodes:
        assert episode["ok"], episode["errors"]
    return episodes


# ------------------------------------------------------------------ every harness setting, message by message
def _records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for f in sorted(out.glob("*/episodes.jsonl")) for line in f.read_text().splitlines()]


#: The harness settings each adapter replays: name -> (env id, env kwargs, settings). Between
#: them: both prompt-style suffixes (and the Turing Machine's own CoT prompt), a system prompt,
#: ``max_history``, samples with a base seed, a level, two probes (noise: seeded decoys;
#: necessity: a fresh context), and generated configurations (training) instead of the split.
SETTINGS: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    "cot": ("MTP/TuringMachine-v0", {}, {"prompt_style": "cot"}),
    "answer_only+system+level": (
        "MTP/HiddenNumber-v0", {"difficulty": 3}, {"prompt_style": "answer_only", "system_prompt": "Play well."},
    ),
    "max_history": ("MTP/CircuitDecoding-v0", {}, {"max_history": 1, "system_prompt": "Be brief."}),
    "samples+seed+noise": ("MTP/HiddenEdges-v0", {"probe": "noise", "difficulty": 1}, {"samples": 2, "seed": 7}),
    "necessity+samples": ("MTP/HiddenNumber-v0", {"difficulty": 1, "probe": "necessity"}, {"samples": 2}),
    "generated": ("MTP/WordGuess-v0", {}, {"configs": "generated"}),
}  # fmt: skip
SETTINGS_SPLIT = 2
_SUFFIXES = [f"\n\n{style.suffix}" for style in PROMPT_STYLES.values() if style.suffix]


def _text_of(content: Any) -> str:
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)


def _conversation(messages: list[dict[str, Any]]) -> tuple[tuple[str, str], ...]:
    """A request's messages as (role, text) pairs: what the model was sent, message by message."""
    return tuple((m["role"], _text_of(m["content"])) for m in messages)


def _bare(text: str) -> str:
    for suffix in _SUFFIXES:
        text = text.removesuffix(suffix)
    return text


def _replaying_model(moves: dict[tuple[str, ...], str]) -> Any:
    """The oracle's moves as a function of a request (the style's suffix stripped), whatever the
    history cap left of the conversation (then the move of the same rules and last message); a
    deterministic function of the request, so equal requests get equal replies everywhere."""
    by_ends = {(k[0], k[-1]): v for k, v in moves.items()}

    def reply(messages: list[dict[str, Any]]) -> str:
        said = [_bare(_text_of(m["content"])) for m in messages if m["role"] == "user"]
        return moves.get(tuple(said)) or by_ends.get((said[0], said[-1]), "I am not sure.") if said else "?"

    return reply


@pytest.fixture(scope="module")
def setting_runs(tmp_path_factory) -> dict[str, dict[str, Any]]:
    """Per setting: the scripted model, and what ``mtp-gym eval`` sent it (every request, in
    order) and recorded (outcome, score, turns per episode). Generated configurations, which
    ``mtp-gym eval`` never plays, are played by the harness's own runner and chat agent
    (:func:`~mtp_gym.episode.run_episode` with :class:`OpenAIChatAgent`) from the same seeds."""
    runs = {}
    for name, (env_id, kwargs, settings) in SETTINGS.items():
        configs = settings.get("configs", "benchmark")
        eps = draws(env_id, kwargs, SETTINGS_SPLIT, settings.get("samples", 1), settings.get("seed"), configs)
        styled = styled_env_kwargs(env_id, kwargs, settings.get("prompt_style", "plain"))
        agent = "necessity_oracle" if kwargs.get("probe") == "necessity" else "oracle"
        moves, _ = scripted_draws(env_id, eps, agent, styled, configs)
        model = _replaying_model(moves)
        out = tmp_path_factory.mktemp("harness")
        with ScriptedEndpoint(model, max_requests=2000) as ep:
            if configs == "generated":
                env = gym.make(env_id, **source_kwargs(kwargs, configs))
                chat = {k: v for k, v in settings.items() if k in ("prompt_style", "system_prompt", "max_history")}
                player = OpenAIChatAgent("fake", base_url=ep.url, **chat)
                results = [run_episode(env, player, seed=d.seed) for d in eps]
                episodes = [(r.outcome, r.score, r.turns) for r in results]
            else:
                args = ["eval", "--env", env_id, "--agent", "openai:fake", "--base-url", ep.url,
                        "--split", str(SETTINGS_SPLIT), "--out", str(out), "--no-progress", "--no-report"]  # fmt: skip
                probe = kwargs.get("probe")
                rest = {k: v for k, v in kwargs.items() if k != "probe"}
                args += ["--probe", probe] if probe else []
                args += ["--env-kwargs", json.dumps(rest)] if rest else []
                for key, value in settings.items():
                    args += [f"--{key.replace('_', '-')}", str(value)]
                run = cli(*args)
                assert run.returncode == 0, run.stderr[-3000:]
                episodes = [(r["outcome"], r["score"], r["turns"]) for r in _records(out)]
            requests = [_conversation(r["messages"]) for r in ep.requests]
        assert len(episodes) == len(eps) and requests
        runs[name] = {"model": model, "requests": requests, "episodes": sorted(episodes), "draws": eps}
    return runs


def _same_as_harness(name: str, run: dict[str, Any], requests: list, episodes: list) -> None:
    """Every request the adapter sent equals one ``mtp-gym eval`` sent, message by message (as
    multisets: adapters play episodes concurrently), and the episodes end alike."""
    want, got = sorted(run["requests"]), sorted(_conversation(list(map(dict, r))) for r in requests)
    assert len(got) == len(want), f"{name}: {len(got)} requests, the harness sent {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        assert g == w, f"{name}: request {i} differs from the harness's:\n{g}\n!=\n{w}"
    assert sorted(episodes) == run["episodes"], name


@pytest.mark.parametrize("name", list(SETTINGS))
def test_inspect_replays_every_harness_setting(name, setting_runs, tmp_path):
    pytest.importorskip("inspect_ai")
    from inspect_ai.model import get_model

    from mtp_gym.integrations.inspect_tasks import mtp_task

    env_id, kwargs, settings = SETTINGS[name]
    run = setting_runs[name]
    with ScriptedEndpoint(run["model"], max_requests=2000) as ep:
        model = get_model("openai-api/local/fake", base_url=ep.url, api_key="x")
        log = _inspect_eval(mtp_task(env_id, split=SETTINGS_SPLIT, **settings, **kwargs), model, tmp_path)
        requests = [r["messages"] for r in ep.requests]
    metas = [s.scores["mtp_env_score"].metadata for s in log.samples]
    assert sorted(m["seed"] for m in metas) == sorted(d.seed for d in run["draws"])
    _same_as_harness(name, run, requests, [(m["outcome"], m["score"], m["turns"]) for m in metas])


@pytest.mark.parametrize("name", list(SETTINGS))
def test_openenv_replays_every_harness_setting(name, setting_runs, openenv_url):
    """A client plays each draw through the server (``reset(config_id, seed, env_kwargs, chat
    settings)``), sending the model ``observation.messages``, the request as the harness builds it."""
    from mtp_gym.integrations.openenv_server import MTPAction, MTPEnvClient

    env_id, kwargs, settings = SETTINGS[name]
    run = setting_runs[name]
    chat = {k: v for k, v in settings.items() if k in ("prompt_style", "system_prompt", "max_history")}
    env_kwargs = source_kwargs(kwargs, settings.get("configs", "benchmark"))
    requests, episodes = [], []
    with MTPEnvClient(base_url=openenv_url).sync() as client:
        for draw in run["draws"]:
            step = client.reset(env_id=env_id, config_id=draw.config_id, seed=draw.seed, env_kwargs=env_kwargs, **chat)
            assert client.state().episode_id  # set by the server when the client gives none
            while not step.done:
                requests.append(step.observation.messages)
                step = client.step(MTPAction(message=run["model"](step.observation.messages)))
            episodes.append((step.observation.outcome, step.observation.score, step.observation.turn))
    _same_as_harness(name, run, requests, episodes)


def test_openenv_sets_an_episode_id(openenv_url):
    from mtp_gym.integrations.openenv_server import MTPEnvClient

    with MTPEnvClient(base_url=openenv_url).sync() as client:
        client.reset(config_id=0)
        first = client.state().episode_id
        client.reset(config_id=0)
        second = client.state().episode_id
        client.reset(config_id=0, episode_id="mine")
        assert client.state().episode_id == "mine"
    assert first and second and first != second


def test_adapters_refuse_what_the_harness_refuses():
    from mtp_gym.integrations.inspect_tasks import mtp_task

    with pytest.raises(ValueError, match="prompt_style='loud' is not supported; allowed"):
        ChatSettings("loud")
    with pytest.raises(ValueError, match="configs='train' is not supported; allowed"):
        draws("MTP/WordGuess-v0", configs="train")
    with pytest.raises(ValueError, match="split: configs='generated' needs a positive int"):
        mtp_task("word_guess", configs="generated")  # "full" generated configurations: how many?
    with pytest.raises(ValueError, match="samples must be a positive int"):
        draws("MTP/WordGuess-v0", samples=0)


@pytest.mark.parametrize("name", list(SETTINGS))
def test_verifiers_replays_every_harness_setting(name, setting_runs, verifiers_python, tmp_path):
    """``vf-eval`` offline (the env loaded the way verifiers loads environments), every rollout of
    every setting: the requests are ``mtp-gym eval``'s, message by message, each rollout's reward
    is the env's score, and the necessity probe's phase 2 runs in a fresh conversation (a second
    trace)."""
    env_id, kwargs, settings = SETTINGS[name]
    run = setting_runs[name]
    options = {"split": SETTINGS_SPLIT, **({"env_kwargs": kwargs} if kwargs else {}), **settings}
    if "system_prompt" in options:  # verifiers' own option: a file holding the system prompt
        (tmp_path / "system.txt").write_text(options["system_prompt"])
        options["system_prompt"] = tmp_path / "system.txt"
    with ScriptedEndpoint(run["model"], max_requests=2000) as ep:
        episodes = _vf_eval(verifiers_python, env_id, options, len(run["draws"]), ep.url, tmp_path)
        requests = [r["messages"] for r in ep.requests]
    infos = [e["traces"][-1]["info"] for e in episodes]
    assert sorted(i["seed"] for i in infos) == sorted(d.seed for d in run["draws"])
    conversations = 2 if kwargs.get("probe") == "necessity" else 1  # necessity's phase 2: a fresh one
    for episode in episodes:
        # (with max_history every request starts a trace of its own)
        assert "max_history" in settings or len(episode["traces"]) == conversations, name
        assert {t["rewards"]["mtp_score"]["score"] for t in episode["traces"]} == {
            episode["traces"][-1]["info"]["score"]
        }
    _same_as_harness(name, run, requests, [(i["outcome"], i["score"], i["turns"]) for i in infos])


OPENENV_PACKAGE = Path(__file__).resolve().parents[1] / "examples" / "openenv"


def test_the_openenv_package_validates():
    """`openenv validate` on the OpenEnv package of the repository (manifest, server/app.py with
    main(), the [project.scripts] server entry, openenv-core, uv.lock): every deployment mode."""
    pytest.importorskip("openenv")
    cli_path = Path(sysconfig.get_path("scripts")) / "openenv"
    openenv_cli = [str(cli_path)] if cli_path.exists() else ["openenv"]
    done = subprocess.run(
        [*openenv_cli, "validate", str(OPENENV_PACKAGE), "--verbose"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and "[OK]" in done.stdout, done.stdout + done.stderr
    for mode in ("docker", "openenv_serve", "uv_run", "python_module"):
        assert f"[YES] {mode}" in done.stdout


def test_the_openenv_lock_holds_what_pyproject_asks():
    """examples/openenv/uv.lock pins mtp-gym's own requirements as pyproject.toml has them (its
    core and [openenv] ones): after a dependency change, `cd examples/openenv && uv lock`."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    from packaging.requirements import Requirement
    from packaging.specifiers import SpecifierSet

    project = tomllib.loads((OPENENV_PACKAGE.parents[1] / "pyproject.toml").read_text())["project"]
    wanted = {
        (Requirement(r).name, Requirement(r).specifier)
        for r in project["dependencies"] + project["optional-dependencies"]["openenv"]
    }
    lock = tomllib.loads((OPENENV_PACKAGE / "uv.lock").read_text())
    (ours,) = [p for p in lock["package"] if p["name"] == "mtp-gym"]
    locked = {
        (r["name"], SpecifierSet(r.get("specifier", "")))
        for r in ours["metadata"]["requires-dist"]
        if r.get("marker") in (None, "extra == 'openenv'")
    }
    assert locked == wanted
