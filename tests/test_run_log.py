"""The run log loses nothing: bad lines are skipped (not the rest of the log), one writer per
directory, workers die with the parent."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import gymnasium as gym
import pytest
from helpers import CLI_ENV, cli, slow_eval_args

from mtp_gym.eval.harness import AgentConfig, benchmark_subset, run_eval
from mtp_gym.eval.log import RunLocked, RunLog, read_episodes
from mtp_gym.eval.report import load_runs

WG = "MTP/WordGuess-v0"


def _wait_for_lines(log: Path, n: int, timeout: float = 60) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline and (not log.exists() or log.read_bytes().count(b"\n") < n):
        time.sleep(0.01)


def test_bad_lines_in_the_middle_are_skipped_and_reported_not_the_rest(tmp_path, capsys):
    run_eval([WG], AgentConfig("oracle"), tmp_path, config_ids={WG: list(range(6))}, progress=False)
    path = tmp_path / "episodes.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    assert len(lines) == 6
    bad = [b"garbage that is not json\n", b"\n", b"{}\n", b'{"env_id": "x"}\n', b"\xff\xfe{\n"]
    path.write_bytes(b"".join(lines[:2] + bad + lines[2:]) + b'{"agent":"oracle","env_id":"MTP/Wo')
    capsys.readouterr()
    log = run_eval([WG], AgentConfig("oracle"), tmp_path, config_ids={WG: list(range(8))}, progress=False)
    err = capsys.readouterr().err
    assert "skipped 5 unreadable line(s) (line 3, 4, 5, 6, 7)" in err and "every other episode is kept" in err
    records, _ = read_episodes(path)
    # The six finished episodes were kept (not replayed), two new ones added, the partial line cut.
    ids = [r["config_id"] for r in records]
    assert ids[:6] == [r["config_id"] for r in map(json.loads, lines)]
    assert sorted(ids) == list(range(8)) and len(log.records) == 8
    kept = path.read_bytes().splitlines(keepends=True)
    assert len(kept) == 6 + len(bad) + 2 and all(line.endswith(b"\n") for line in kept)
    # The report reads every readable record and says what it skipped.
    warnings: list[str] = []
    assert len(load_runs([tmp_path], warn=warnings.append)) == 8
    assert warnings and "skipped 5" in warnings[0]


def test_a_second_run_on_the_same_directory_is_refused(tmp_path):
    with RunLog(tmp_path, AgentConfig("oracle").identity(), {WG: {}}):
        with pytest.raises(RunLocked, match=rf"another mtp-gym run \(pid {os.getpid()}\) is writing"):
            run_eval([WG], AgentConfig("oracle"), tmp_path, split="2", progress=False)
    assert not (tmp_path / "episodes.jsonl").read_bytes()  # the refused run wrote nothing
    log = run_eval([WG], AgentConfig("oracle"), tmp_path, split="2", progress=False)  # the lock is released
    assert len(log.records) == 2


def test_a_forked_worker_does_not_keep_the_directory_locked(tmp_path):
    """Pool workers are forked while the run holds its lock; one still shutting down when the
    run ends must not refuse the resume (a lock lives while any copy of it is open)."""
    log = RunLog(tmp_path, AgentConfig("oracle").identity(), {WG: {}})
    read, write = os.pipe()
    ready_read, ready_write = os.pipe()
    child = os.fork()
    if child == 0:  # a worker outliving its run
        os.close(write)
        os.write(ready_write, b"!")  # forked (and the fork hooks done)
        os.read(read, 1)
        os._exit(0)
    try:
        os.close(read)
        assert os.read(ready_read, 1) == b"!"
        log.close()
        RunLog(tmp_path, AgentConfig("oracle").identity(), {WG: {}}).close()  # not RunLocked
    finally:
        for fd in (write, ready_read, ready_write):
            os.close(fd)
        os.waitpid(child, 0)


def test_concurrent_cli_runs_play_nothing_twice_and_lose_nothing(tmp_path):
    out = tmp_path / "runs"
    args = slow_eval_args(out, WG, "20", 0.02)
    log = out / "py_harness_agents_SlowAgent" / "episodes.jsonl"
    first = subprocess.Popen([sys.executable, "-m", "mtp_gym.cli", *args], env=CLI_ENV, stderr=subprocess.PIPE)
    _wait_for_lines(log, 2)
    second = cli(*args)
    assert second.returncode == 1 and "another mtp-gym run" in second.stderr and "give another --out" in second.stderr
    assert first.wait(120) == 0
    ids = [r["config_id"] for r in read_episodes(log)[0]]
    assert sorted(ids) == benchmark_subset(gym.make(WG), 20), "lost or duplicated episodes"


def _children(pid: int) -> list[int]:
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            kids.append(int(stat.parent.name))
    return kids


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc").exists(), reason="reads the process table from /proc")
def test_process_pool_workers_die_with_a_killed_parent(tmp_path):
    out = tmp_path / "runs"
    args = slow_eval_args(out, WG, "100", 0.2, workers=2, executor="process")
    log = out / "py_harness_agents_SlowAgent" / "episodes.jsonl"
    parent = subprocess.Popen([sys.executable, "-m", "mtp_gym.cli", *args], env=CLI_ENV)
    _wait_for_lines(log, 2)
    workers = [p for p in _children(parent.pid) if _alive(p)]
    assert workers, "no worker processes found"
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.time() + 10
    while time.time() < deadline and any(_alive(p) for p in workers):
        time.sleep(0.1)
    left = [p for p in workers if _alive(p)]
    for p in left:
        os.kill(p, signal.SIGKILL)
    assert not left, f"workers {left} outlived their parent"


def _dead_url() -> str:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"


def test_eval_exits_non_zero_while_infra_errors_remain(tmp_path):
    kwargs = json.dumps({"max_retries": 0})
    args = ["eval", "--env", WG, "--agent", "openai:m", "--base-url", _dead_url(), "--agent-kwargs", kwargs]
    done = cli(*args, "--split", "2", "--out", str(tmp_path), "--no-report", "--no-progress")
    assert done.returncode == 3, done.stderr
    assert "2 episode(s) ended in infra_error" in done.stderr and "re-run the same command" in done.stderr


def test_a_dead_endpoint_stops_the_run_after_three_episodes(tmp_path):
    kwargs = json.dumps({"max_retries": 0})
    args = ["eval", "--env", WG, "--agent", "openai:m", "--base-url", _dead_url(), "--agent-kwargs", kwargs]
    done = cli(*args, "--split", "20", "--out", str(tmp_path), "--no-report", "--no-progress")
    assert done.returncode == 1 and "the first 3 episodes found no endpoint" in done.stderr
    assert "Check --base-url" in done.stderr
    (log,) = tmp_path.rglob("episodes.jsonl")
    assert [r["outcome"] for r in read_episodes(log)[0]] == ["infra_error"] * 3  # logged, replayed next time


def test_report_runs_no_code_a_run_directory_names_unless_trusted(tmp_path):
    run = tmp_path / "runs" / "m"
    (tmp_path / "mods").mkdir()
    marker = tmp_path / "payload-ran"
    (tmp_path / "mods" / "payload_mod.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    hn = "MTP/HiddenNumber-v0"
    log = RunLog(run, {"agent": "m"}, {hn: {"game": "payload_mod:Game"}})
    log.append(
        {
            "agent": "m",
            "env_id": hn,
            "config_id": 0,
            "outcome": "success",
            "score": 1.0,
            "turns": 3,
            "format_errors": 0,
            "prompt_tokens": 0,
            "completion_tokens": 0,
            "seconds": 0.1,
        }
    )
    log.close()
    env = {**CLI_ENV, "PYTHONPATH": os.pathsep.join([str(tmp_path / "mods"), CLI_ENV["PYTHONPATH"]])}
    done = cli("report", str(tmp_path / "runs"), env=env)
    assert done.returncode == 0, done.stderr
    assert not marker.exists() and "pass --trust-code" in done.stderr and "payload_mod:Game" in done.stderr
    cli("report", str(tmp_path / "runs"), "--trust-code", env=env)
    assert marker.exists()


def test_credentials_never_reach_the_run_directory(tmp_path):
    from fake_endpoint import FakeEndpoint, status

    with FakeEndpoint(default=status(401, '{"error": "bad key"}')) as ep:
        url = ep.url.replace("http://", "http://alice:s3cret@") + "?api_key=hunter2"
        done = cli(
            "eval",
            "--env",
            WG,
            "--agent",
            "openai:m",
            "--base-url",
            url,
            "--split",
            "2",
            "--out",
            str(tmp_path),
            "--no-progress",
        )
    assert done.returncode == 3
    assert ep.requests, "the endpoint was never asked"
    for path in tmp_path.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert b"s3cret" not in data and b"hunter2" not in data, path
    assert "s3cret" not in done.stderr + done.stdout and "hunter2" not in done.stderr + done.stdout
