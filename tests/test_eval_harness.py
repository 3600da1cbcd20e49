"""The evaluation harness: JSONL log, resume after SIGKILL, config checks, report numbers, CLI, play."""

from __future__ import annotations

import csv
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import gymnasium as gym
import pytest
from helpers import CLI_ENV, cli, slow_eval_args

from mtp_gym.cli import main
from mtp_gym.eval.backends import _executor
from mtp_gym.eval.harness import AgentConfig, benchmark_subset, run_eval, select_configs
from mtp_gym.eval.log import ConfigMismatch, RunLog, read_episodes
from mtp_gym.eval.report import compute_rows, load_runs

WG = "MTP/WordGuess-v0"


def keys(path: Path) -> list[tuple[str, int]]:
    return [(r["env_id"], r["config_id"]) for r in read_episodes(path)[0]]


def test_select_configs_spread_evenly():
    assert select_configs("full", 5) == [0, 1, 2, 3, 4]
    assert select_configs("10", 400) == list(range(0, 400, 40))  # one word of each vocabulary
    assert select_configs(4, 10) == [0, 2, 5, 7]
    assert select_configs("50", 20) == list(range(20))
    for bad in ("0", "-1", "half", 0):
        with pytest.raises(ValueError, match="--split"):
            select_configs(bad, 10)


@pytest.mark.parametrize(
    "env_id", ["MTP/WordGuess-v0", "MTP/MovieRec-v0", "MTP/CircuitDecoding-v0", "MTP/TuringMachine-v0"]
)
def test_a_split_subset_keeps_every_stratum_in_proportion(env_id):
    base = gym.make(env_id).unwrapped
    strata, total = base.config_strata(), base.num_configs
    assert strata, f"{env_id} declares no strata"
    for n in (5, 10, 20, 30, 60, 100):
        ids = benchmark_subset(base, n)
        assert len(ids) == n and ids == benchmark_subset(base, str(n))  # the same ids every time
        for name, values in strata.items():
            for value in set(values):
                want = n * values.count(value) / total
                got = sum(values[i] == value for i in ids)
                assert abs(got - want) <= 1, (name, value, n, got, want)
    if env_id == "MTP/CircuitDecoding-v0":  # evenly spaced ids had picked only circuits without NOT gates
        assert {strata["not_gates"][i] for i in benchmark_subset(base, 10)} == {0, 1, 2, 3, 4}
    if env_id == "MTP/MovieRec-v0":  # and one movie set for every user
        ids = benchmark_subset(base, 20)
        assert len({strata["user"][i] for i in ids}) == 20 and len({strata["movie_set"][i] for i in ids}) == 20


def test_log_records_every_field_and_matches_evaluate(tmp_path):
    log = run_eval([WG], AgentConfig("oracle"), tmp_path / "o", split="8", progress=False)
    records, _ = read_episodes(log.path)
    assert [r["config_id"] for r in records] == benchmark_subset(gym.make(WG), 8)
    from mtp_gym.eval import evaluate

    bare = evaluate(WG, "oracle", benchmark_subset(gym.make(WG), 8))
    assert [r["score"] for r in records] == [b.score for b in bare]
    r = records[0]
    assert {
        "agent",
        "env_id",
        "config_id",
        "outcome",
        "score",
        "turns",
        "format_errors",
        "prompt_tokens",
        "completion_tokens",
        "seconds",
        "transcript",
        "hidden",
    } <= set(r)
    assert r["transcript"][0]["role"] == "user" and len(r["transcript"]) == 1 + 2 * r["turns"]
    assert r["hidden"]["secret"] in r["transcript"][-2]["content"]


def test_process_pool_gives_the_same_episodes(tmp_path):
    one = run_eval([WG], AgentConfig("random"), tmp_path / "a", split="12", progress=False)
    two = run_eval(
        [WG], AgentConfig("random"), tmp_path / "b", split="12", workers=2, executor="process", progress=False
    )
    by_id = lambda log: {r["config_id"]: (r["score"], r["turns"]) for r in read_episodes(log.path)[0]}  # noqa: E731
    assert by_id(one) == by_id(two) and len(by_id(one)) == 12


def test_resume_after_sigkill_loses_and_duplicates_nothing(tmp_path):
    out = tmp_path / "runs"
    args = slow_eval_args(out, WG, "40", 0.01, workers=2)
    log = out / "py_harness_agents_SlowAgent" / "episodes.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "mtp_gym.cli", *args], env=CLI_ENV)
    deadline = time.time() + 60
    while time.time() < deadline and (not log.exists() or len(log.read_bytes().splitlines()) < 8):
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = log.read_bytes()
    assert 8 <= len(keys(log)) < 40, "the run was not killed mid-way"
    # A kill in the middle of a write leaves a partial last line: the resume must cut it off.
    with open(log, "ab") as f:
        f.write(b'{"agent":"py:harness_agents:SlowAgent","env_id":"MTP/WordGuess-v0","config_id":39,"outc')
    done = cli(*args)
    assert done.returncode == 0, done.stderr
    after = log.read_bytes()
    assert after.startswith(before), "finished episodes were lost or rewritten"
    got = keys(log)
    assert sorted(got) == sorted((WG, c) for c in benchmark_subset(gym.make(WG), 40)), "lost or duplicated episodes"
    again = cli(*args)  # nothing left to play: the log stays byte-identical
    assert again.returncode == 0 and log.read_bytes() == after


def test_a_rejected_run_writes_nothing_and_the_corrected_one_runs(tmp_path):
    """Bad env kwargs fail before the run directory exists (issue 28): the corrected command is
    not refused as a changed config of a run that never happened."""
    out = tmp_path / "run"
    for bad in ({"difficulty": 9}, {"configid": 3}):
        with pytest.raises((ValueError, TypeError)):
            run_eval(
                ["MTP/HiddenNumber-v0"],
                AgentConfig("oracle"),
                out,
                split="2",
                env_kwargs={"MTP/HiddenNumber-v0": bad},
                progress=False,
            )
        assert not out.exists(), bad
    log = run_eval(
        ["MTP/HiddenNumber-v0"],
        AgentConfig("oracle"),
        out,
        split="2",
        env_kwargs={"MTP/HiddenNumber-v0": {"difficulty": 2}},
        progress=False,
    )
    assert len(log.records) == 2


def test_changed_config_is_refused(tmp_path):
    run_eval([WG], AgentConfig("oracle"), tmp_path, split="2", progress=False)
    with pytest.raises(ConfigMismatch, match="new --out"):
        run_eval([WG], AgentConfig("oracle"), tmp_path, split="2", env_kwargs={WG: {"max_turns": 30}}, progress=False)
    with pytest.raises(ConfigMismatch, match="agent config"):
        RunLog(tmp_path, AgentConfig("oracle", {"seed": 3}).identity(), {WG: {}})
    # A larger split and a changed endpoint URL are the same run: resumed, not refused.
    log = run_eval([WG], AgentConfig("oracle"), tmp_path, split="4", progress=False)
    assert len(log.records) == 4
    assert (
        AgentConfig("openai:m", {"base_url": "http://a"}).identity()
        == AgentConfig("openai:m", {"base_url": "http://b"}).identity()
    )
    res = cli(
        "eval",
        "--env",
        WG,
        "--agent",
        "oracle",
        "--split",
        "2",
        "--out",
        str(tmp_path.parent / tmp_path.name),
        "--env-kwargs",
        '{"max_turns": 30}',
        "--no-report",
        "--no-progress",
    )
    assert res.returncode == 0  # --out is the parent: the run dir is OUT/oracle, a new one


def _write_run(directory: Path, agent: str, env_kwargs: dict, records: list[dict]) -> None:
    directory.mkdir(parents=True)
    (directory / "config.json").write_text(json.dumps({"agent_config": {"agent": agent}, "envs": env_kwargs}))
    with open(directory / "episodes.jsonl", "w") as f:
        for r in records:
            f.write(json.dumps({"agent": agent, "seconds": 0.1, **r}) + "\n")


def ep(env, cid, outcome, score, turns, fe=0, p=0, c=0):
    return {
        "env_id": env,
        "config_id": cid,
        "outcome": outcome,
        "score": score,
        "turns": turns,
        "format_errors": fe,
        "prompt_tokens": p,
        "completion_tokens": c,
    }


def test_report_numbers_against_a_hand_computed_log(tmp_path):
    a, b = "MTP/A-v0", "MTP/B-v0"
    _write_run(
        tmp_path / "m",
        "m",
        {a: {}, b: {}},
        [
            ep(a, 0, "success", 1.0, 2, 0, 1000, 100),
            ep(a, 1, "success", 0.5, 4, 1, 2000, 200),
            ep(a, 2, "failure", 0.0, 10, 0, 3000, 300),
            ep(a, 3, "infra_error", None, 1, 0, 500, 0),  # replayed below: only the last record counts
            ep(a, 3, "format_error", 0.0, 3, 3, 4000, 400),
            ep(a, 4, "infra_error", None, 0, 0, 100, 0),  # never finished: counted apart, no score
            ep(b, 0, "timeout", 0.0, 20, 2, 0, 0),
            ep(b, 1, "success", 1.0, 5, 0, 0, 0),
        ],
    )
    res = cli("report", str(tmp_path / "m"), "--no-baselines", "--price", "m=2,8", "--out", str(tmp_path / "rep"))
    assert res.returncode == 0, res.stderr
    rows = {r["env"]: r for r in csv.DictReader(open(tmp_path / "rep" / "report.csv"))}
    ra, rb = rows[a], rows[b]
    # Task A: scores 1, .5, 0, 0 -> mean .375; a bootstrap interval inside [0, 1] around it.
    assert int(ra["episodes"]) == 4 and int(ra["infra_errors"]) == 1
    assert float(ra["mean_score"]) == pytest.approx(0.375)
    assert 0.0 <= float(ra["score_lo"]) < 0.375 < float(ra["score_hi"]) <= 1.0
    assert float(ra["success_rate"]) == pytest.approx(0.5)
    # Wilson, 2 of 4: centre .5, half-width 1.96*sqrt(.0625 + 3.8416/64)/1.9604 = .349965.
    assert float(ra["success_lo"]) == pytest.approx(0.150035, abs=1e-6)
    assert float(ra["success_hi"]) == pytest.approx(0.849965, abs=1e-6)
    assert float(ra["mean_turns"]) == pytest.approx(4.75)  # (2+4+10+3)/4
    assert float(ra["mean_turns_success"]) == pytest.approx(3.0)
    assert float(ra["efficiency"]) == pytest.approx(50 / 3)  # 50% / 3 turns
    assert float(ra["format_errors"]) == pytest.approx(1.0)  # (0+1+0+3)/4
    assert (float(ra["failure"]), float(ra["format_error"]), float(ra["timeout"])) == (0.25, 0.25, 0.0)
    assert float(ra["prompt_tokens"]) == pytest.approx(2500) and float(ra["completion_tokens"]) == pytest.approx(250)
    # Cost counts every call paid for, infra errors included: (10000+100)*2/1e6 + 1000*8/1e6.
    assert float(ra["cost"]) == pytest.approx(0.0282)
    # Task B: scores 0, 1 -> mean .5; resampled means are 0, .5, 1 (p = 1/4, 1/2, 1/4): interval [0, 1].
    assert float(rb["mean_score"]) == pytest.approx(0.5)
    assert (float(rb["score_lo"]), float(rb["score_hi"])) == (0.0, 1.0)
    assert float(rb["timeout"]) == 0.5 and float(rb["mean_turns_success"]) == 5
    macro = list(csv.DictReader(open(tmp_path / "rep" / "macro.csv")))[0]
    assert float(macro["mean_score"]) == pytest.approx((0.375 + 0.5) / 2)
    assert float(macro["success_rate"]) == pytest.approx(0.5)
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "| 0.375 [" in md and "| 50.0 [15.0, 85.0] |" in md and md == res.stdout
    assert "- B: a correct final answer" in md and "Wilson for rates" in md
    assert (tmp_path / "rep" / "scores.png").stat().st_size > 1000 and (tmp_path / "rep" / "turns.png").exists()


def test_context_overflow_is_a_scored_failure_and_macro_averages_cover_the_same_tasks(tmp_path):
    a, b = "MTP/A-v0", "MTP/B-v0"
    _write_run(
        tmp_path / "m",
        "m",
        {a: {}, b: {}},
        [ep(a, 0, "success", 1.0, 2), ep(a, 1, "context_overflow", 0.0, 9), ep(b, 0, "infra_error", None, 0)],
    )
    _write_run(tmp_path / "r", "random", {a: {}, b: {}}, [ep(a, 0, "failure", 0.0, 5), ep(b, 0, "success", 1.0, 3)])
    res = cli("report", str(tmp_path), "--no-baselines", "--out", str(tmp_path / "rep"))
    assert res.returncode == 0, res.stderr
    rows = {(r["env"], r["agent"]): r for r in csv.DictReader(open(tmp_path / "rep" / "report.csv"))}
    ma = rows[(a, "m")]
    assert int(ma["episodes"]) == 2 and float(ma["mean_score"]) == 0.5 and float(ma["context_overflow"]) == 0.5
    assert int(rows[(b, "m")]["episodes"]) == 0 and int(rows[(b, "m")]["infra_errors"]) == 1
    # m has no scored episode on B, so B is out of both agents' macro averages, and the report says so.
    macro = {m["agent"]: m for m in csv.DictReader(open(tmp_path / "rep" / "macro.csv"))}
    assert (macro["m"]["tasks"], macro["random"]["tasks"]) == ("1", "1")
    assert float(macro["random"]["mean_score"]) == 0.0 and macro["m"]["missing"] == "B"
    assert (
        "Macro averages cover the 1 task(s) every agent has scored episodes on; left out: m has none on B" in res.stdout
    )
    assert "| context overflow % |" in res.stdout
    assert "No scored episode (shown as -, not 0): m on B." in res.stdout
    assert "| B | m | 0 | - " in res.stdout


def test_report_adds_random_and_oracle_rows_on_the_same_configs(tmp_path):
    _write_run(
        tmp_path / "runs" / "m", "openai:m", {WG: {}}, [ep(WG, 7, "failure", 0.0, 40), ep(WG, 300, "success", 1.0, 1)]
    )
    rows = compute_rows(load_runs([tmp_path / "runs"]))
    assert [r.agent for r in rows] == ["openai:m"]
    assert main(["report", str(tmp_path / "runs"), "--out", str(tmp_path / "rep")]) == 0
    rows = list(csv.DictReader(open(tmp_path / "rep" / "report.csv")))
    assert [r["agent"] for r in rows] == ["openai:m", "random", "oracle"]
    base = read_episodes(tmp_path / "rep" / "baselines" / "oracle" / "MTP_WordGuess-v0" / "episodes.jsonl")[0]
    assert sorted(r["config_id"] for r in base) == [7, 300]
    assert float(rows[2]["mean_score"]) > 0.9


def test_baselines_beside_an_agent_are_on_its_own_configurations(tmp_path):
    # The README's flow: an eval's oracle and random rows on a split, a person's one game on another configuration.
    runs = tmp_path / "runs"
    for kind in ("oracle", "random"):
        run_eval([WG], AgentConfig(kind), runs / kind, split="2", progress=False)
    split = {r["config_id"] for r in read_episodes(runs / "oracle" / "episodes.jsonl")[0]}
    mine = next(c for c in range(400) if c not in split)
    _write_run(runs / "human_alice", "human:alice", {WG: {}}, [ep(WG, mine, "success", 1.0, 5)])

    res = cli("report", str(runs), "--out", str(tmp_path / "rep"))
    assert res.returncode == 0, res.stderr
    # The baselines were played on the person's configuration too ...
    for kind in ("random", "oracle"):
        base = read_episodes(tmp_path / "rep" / "baselines" / kind / "MTP_WordGuess-v0" / "episodes.jsonl")[0]
        assert [r["config_id"] for r in base] == [mine]
    (oracle_on_mine,) = [r["score"] for r in base]  # the last kind played: oracle
    # ... and the report compares them on it, saying the rows (and the macro) cover other configurations.
    md = (tmp_path / "rep" / "report.md").read_text()
    assert md.index("Macro averages") < md.index("**Not on the same configurations**") < md.index("Per task")
    assert "human:alice on WordGuess" not in md  # the note names the agent and the task apart
    assert "than human:alice" in md and "random/oracle rows of WordGuess" in md
    row = next(line for line in md.splitlines() if line.startswith("| WordGuess | human:alice | 1 | 1.000 |"))
    assert row.endswith(f"| {oracle_on_mine:.3f} |")  # columns: random score, oracle score
    rows = [(r["agent"], r["episodes"]) for r in csv.DictReader(open(tmp_path / "rep" / "report.csv"))]
    assert rows == [("human:alice", "1"), ("random", "3"), ("oracle", "3")]

    # Without baselines played, the table says what it lacks (n/a) instead of comparing other games.
    res = cli("report", str(runs), "--no-baselines", "--out", str(tmp_path / "bare"))
    assert res.returncode == 0, res.stderr
    assert "| WordGuess | human:alice | 1 | 1.000 | n/a | n/a |" in res.stdout

    # Agents on the same configurations: no note, no extra table.
    res = cli("report", str(runs / "oracle"), str(runs / "random"), "--out", str(tmp_path / "same"))
    assert res.returncode == 0 and "Not on the same configurations" not in res.stdout, res.stderr
    assert "own configurations" not in res.stdout


def _blas_threads() -> list[int]:
    from threadpoolctl import threadpool_info

    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


def test_process_workers_run_one_blas_thread_each():
    """Several worker processes with a BLAS thread per core each would oversubscribe the cores."""
    pytest.importorskip("threadpoolctl")
    pool = _executor("process", 1)
    try:
        assert set(pool.submit(_blas_threads).result()) == {1}
    finally:
        pool.shutdown()


def test_infra_errors_are_recorded_apart_and_replayed(tmp_path):
    dead = "http://127.0.0.1:9/v1"  # the discard port: connection refused, a transport error
    config = AgentConfig("openai:any", {"base_url": dead, "max_retries": 1, "backoff": 0.001})
    log = run_eval([WG], config, tmp_path, split="2", progress=False)
    recs = read_episodes(log.path)[0]
    assert [r["outcome"] for r in recs] == ["infra_error", "infra_error"]
    assert all(r["error"].startswith("endpoint unreachable") and r["score"] is None for r in recs)
    (row,) = compute_rows(load_runs([tmp_path]))
    assert row.episodes == 0 and row.infra_errors == 2
    log = run_eval([WG], config, tmp_path, split="2", progress=False)  # replayed, not skipped
    assert len(read_episodes(log.path)[0]) == 4


@pytest.mark.parametrize(
    "argv, names",
    [
        (["eval", "--env", "MTP/Nope-v0"], ["--env", "allowed", WG]),
        (["eval", "--env", WG, "--agent", "genius"], ["--agent", "allowed", "oracle", "openai:MODEL"]),
        (["eval", "--env", WG, "--split", "half"], ["--split", "full"]),
        (["eval", "--env", WG, "--workers", "0"], ["--workers", "positive int"]),
        (["eval", "--env", WG, "--finisher", "hf:x"], ["--finisher", "--handoff-turn"]),
        (["eval", "--env", WG, "--executor", "gpu"], ["--executor", "thread", "process"]),
        (["eval", "--env", WG, "--prompt-style", "loud"], ["--prompt-style", "answer_only", "cot"]),
        (["eval", "--env", WG, "--env-kwargs", "[1]"], ["--env-kwargs", "JSON object"]),
        (["eval", "--env", WG, "--env-kwargs", '{"max_turns": 0}', "--no-progress"], ["max_turns", "positive int"]),
        (
            ["eval", "--env", WG, "--agent", "oracle", "--finisher", "random", "--handoff-turn", "2"],
            ["finisher", "openai:MODEL"],
        ),
        (["report", "/nonexistent/dir"], ["DIR", "does not exist"]),
        (["play", "MTP/Nope-v0"], ["ID", "allowed"]),
        (["play", WG, "--config-id", "400"], ["config_id", "399"]),
    ],
)
def test_cli_errors_name_the_argument_and_allowed_values(argv, names, capsys, tmp_path):
    with pytest.raises(SystemExit) as exc:
        main(argv + (["--out", str(tmp_path)] if argv[0] == "eval" else []))
    message = str(exc.value.code) + capsys.readouterr().err
    assert exc.value.code != 0
    for name in names:
        assert name in message, (name, message)


def test_play_in_the_terminal_with_piped_input():
    secret = gym.make(WG).reset(options={"config_id": 0})[1]["hidden"]["secret"]
    res = subprocess.run(
        [sys.executable, "-m", "mtp_gym.cli", "play", WG, "--config-id", "0"],
        input=f"hello\n<attempt>{secret.lower()}</attempt>\n",
        capture_output=True,
        text=True,
        env=CLI_ENV,
    )
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert out.index("following vocabulary") < out.index("Invalid action") < out.index("Game over")
    assert "[turn 1/40] >" in out and "outcome=success, score=1.000, turns=1, format errors=1" in out
    quit_early = subprocess.run(
        [sys.executable, "-m", "mtp_gym.cli", "play", WG, "--seed", "3"],
        input="",
        capture_output=True,
        text=True,
        env=CLI_ENV,
    )
    assert quit_early.returncode == 1 and "Quit before the end" in quit_early.stdout


def test_model_and_python_agent_specs(monkeypatch):
    from mtp_gym.agents import make_agent
    from mtp_gym.agents.llm import HandoffAgent

    agent = make_agent("py:harness_agents:SlowAgent", WG, env=WG, delay=0.0)
    obs, info = gym.make(WG).reset(options={"config_id": 0})
    agent.reset(seed=0)
    assert agent.act(obs, info).startswith("<attempt>")
    with pytest.raises(ValueError, match="py:package.module:factory"):
        make_agent("py:harness_agents", WG)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ValueError, match="api_key_env"):
        make_agent("openai:gpt-4o", WG, api_key_env="MTP_GYM_TEST_NO_SUCH_KEY")
    with pytest.raises(ValueError, match="handoff_turn"):
        HandoffAgent(make_agent("random", WG), make_agent("random", WG), 0)
