"""The newcomer's mistakes (issue 28): each ends in one line naming the fix, not a traceback,
with a non-zero exit status, and writes nothing (an existing ``--out`` stays as it was)."""

from __future__ import annotations

import builtins
import shutil
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mtp_gym.cli import EXIT_INTERRUPTED, main

WG, HN = "MTP/WordGuess-v0", "MTP/HiddenNumber-v0"
EVAL = ["eval", "--no-progress", "--no-report", "--split", "2"]

#: (name, argv after ``mtp-gym`` (``{out}``: the output directory), what the one line must say).
# fmt: off
MISTAKES = [
    ("env kwargs of an env", [*EVAL, "--env", WG, "--agent", "oracle", "--env-kwargs", '{"zz": 1}'],
     ["--env-kwargs: unknown key(s) ['zz'] for MTP/WordGuess-v0", "allowed: [", "'max_turns'"]),
    ("env kwargs of a query game", [*EVAL, "--env", HN, "--agent", "oracle", "--env-kwargs", '{"max_turn": 9}'],
     ["--env-kwargs: unknown key(s) ['max_turn']", "did you mean 'max_turns'?", "'probe', 'probe_kwargs'"]),
    ("env kwargs of play", ["play", WG, "--env-kwargs", '{"zz": 1}', "--name", "ann"],
     ["--env-kwargs: unknown key(s) ['zz'] for MTP/WordGuess-v0", "allowed: ["]),
    ("env kwargs of serve-env", ["serve-env", "--port", "1", "--env-kwargs", '{"lexicon": 5}', "--env",
                                 "MTP/TwentyQuestions-v0"],
     ["--env-kwargs: unknown key(s) ['lexicon']", "did you mean 'lexicon_size'?"]),
    ("an env kwarg's value", [*EVAL, "--env", HN, "--agent", "oracle", "--env-kwargs", '{"difficulty": 9}'],
     ["--env-kwargs: MTP/HiddenNumber-v0: difficulty must be one of [1, 2, 3, 4, 5], got 9"]),
    ("agent kwargs of a scripted agent", [*EVAL, "--env", WG, "--agent", "oracle", "--agent-kwargs", '{"zz": 1}'],
     ["--agent-kwargs: unknown kwarg(s) ['zz'] for agent 'oracle' of MTP/WordGuess-v0; allowed: ["]),
    ("agent kwargs of a model", [*EVAL, "--env", WG, "--agent", "openai:m", "--agent-kwargs", '{"max_retry": 1}'],
     ["--agent-kwargs: unknown kwarg(s) ['max_retry']", "did you mean 'max_retries'?", "'timeout'"]),
    ("a missing py: module", [*EVAL, "--env", WG, "--agent", "py:no_such_module_here:make"],
     ["--agent:", "no module named 'no_such_module_here'", "PYTHONPATH"]),
    ("a py: module without the factory", [*EVAL, "--env", WG, "--agent", "py:harness_agents:nope"],
     ["--agent:", "has no callable 'nope'"]),
    ("a misspelled env id", [*EVAL, "--env", "MTP/WordGues-v0", "--agent", "oracle"],
     ["--env: unknown id(s) ['MTP/WordGues-v0'] (did you mean 'MTP/WordGuess-v0'?)", "mtp-gym list"]),
    ("a misspelled id to play", ["play", "MTP/WordGues-v0"], ["did you mean 'MTP/WordGuess-v0'?"]),
    ("a misspelled agent", [*EVAL, "--env", WG, "--agent", "oracel"],
     ["--agent: agent spec 'oracel' is not available for MTP/WordGuess-v0 (did you mean 'oracle'?)"]),
    ("a misspelled model prefix", [*EVAL, "--env", WG, "--agent", "openia:gpt-4o"],
     ["(did you mean 'openai:gpt-4o'?)"]),
    ("a misspelled finisher", [*EVAL, "--env", WG, "--agent", "random", "--finisher", "oracl", "--handoff-turn", "2"],
     ["--finisher:", "(did you mean 'oracle'?)"]),
    ("a misspelled probe", [*EVAL, "--env", HN, "--agent", "oracle", "--probe", "nois"],
     ["--probe: 'nois'", "(did you mean 'noise'?)"]),
    ("a misspelled command", ["evl", "--env", WG], ["invalid choice: 'evl'", "(did you mean 'eval'?)"]),
    ("an invalid port to serve", ["serve", "--port", "99999"], ["--port: must be a port number 0-65535"]),
    ("an invalid port to view", ["view", "{out}", "--port", "70000", "--no-browser"], ["0-65535"]),
    ("an invalid port to serve-env", ["serve-env", "--port", "0"], ["--port: must be a port number 1-65535"]),
]
# fmt: on
EVAL_MISTAKES = [m for m in MISTAKES if m[1][0] == "eval"]


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """``mtp-gym ARGV`` in this process: its exit status and stderr (a ``SystemExit("message")``
    printed as the interpreter prints it)."""
    try:
        code: object = main(argv)
    except SystemExit as exit:
        code = exit.code
    err = capsys.readouterr().err
    if isinstance(code, str):
        err, code = f"{err}{code}\n", 1
    assert isinstance(code, int)
    return code, err


def _one_line(err: str) -> str:
    """The one line of an error (argparse's usage lines before it aside); no traceback."""
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    if lines and lines[0].startswith("usage:"):  # a usage error: argparse's usage, then the line
        lines = [line for line in lines[1:] if not line.startswith(" ")]
    assert len(lines) == 1, err
    return lines[0]


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def earlier_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An ``--out`` holding a finished run, as a rejected command finds it."""
    out = tmp_path_factory.mktemp("earlier") / "runs"
    assert main([*EVAL, "--env", WG, "--agent", "oracle", "--out", str(out)]) == 0
    return out


def _with_out(argv: list[str], out: Path) -> list[str]:
    argv = [str(out) if a == "{out}" else a for a in argv]
    return [*argv, "--out", str(out)] if argv[0] in ("eval", "play", "serve") else argv


@pytest.mark.parametrize("name,argv,says", MISTAKES, ids=[m[0] for m in MISTAKES])
def test_each_mistake_is_one_line_naming_the_fix(name, argv, says, tmp_path, capsys):
    out = tmp_path / "out"
    code, err = _run(_with_out(argv, out), capsys)
    line = _one_line(err)
    assert code != 0
    for text in says:
        assert text in line, line
    assert not out.exists(), name


@pytest.mark.parametrize("name,argv,says", EVAL_MISTAKES, ids=[m[0] for m in EVAL_MISTAKES])
def test_a_rejected_run_leaves_its_out_as_it_was(name, argv, says, earlier_run, tmp_path, capsys):
    out = tmp_path / "runs"
    shutil.copytree(earlier_run, out)
    before = _tree(out)
    code, err = _run(_with_out(argv, out), capsys)
    assert code != 0 and _one_line(err)
    assert _tree(out) == before, name


def test_hf_without_torch_names_the_extra(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # the plain install: `import torch` fails
    out = tmp_path / "out"
    code, err = _run([*EVAL, "--env", WG, "--agent", "hf:smollm2", "--out", str(out)], capsys)
    line = _one_line(err)
    assert code != 0 and not out.exists()
    assert (
        line.startswith("mtp-gym: error: --agent: agent 'hf:smollm2' needs torch")
        and 'pip install "mtp-gym[hf]"' in line
    )
    from mtp_gym.agents import make_agent

    with pytest.raises(ValueError, match=r'pip install "mtp-gym\[hf\]"'):  # the library says it too
        make_agent("hf:smollm2", WG)


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A loopback port another server listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


@pytest.mark.parametrize("command", ["serve", "view", "serve-env"])
def test_a_port_in_use_is_one_line(command, taken_port, tmp_path, capsys):
    if command == "serve-env":
        pytest.importorskip("openenv")
    (tmp_path / "report.html").write_text("<p>report</p>")
    argv = {
        "serve": ["serve", "--out", str(tmp_path / "out")],
        "view": ["view", str(tmp_path), "--no-browser"],
        "serve-env": ["serve-env"],
    }[command]
    code, err = _run([*argv, "--port", str(taken_port)], capsys)
    line = _one_line(err)
    assert code != 0 and not (tmp_path / "out").exists()
    assert f"--port: 127.0.0.1:{taken_port} is already in use" in line and "pick another: --port" in line


def test_bare_command_prints_the_help(capsys):
    code, err = _run([], capsys)
    assert code == 2 and "Traceback" not in err
    assert err.startswith("usage: mtp-gym") and "eval" in err and "play agents over benchmark splits" in err


def test_ctrl_c_while_playing_is_one_line(tmp_path, capsys, monkeypatch):
    def interrupted(prompt: str = "") -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(builtins, "input", interrupted)
    out = tmp_path / "out"
    code, err = _run(["play", WG, "--config-id", "0", "--out", str(out), "--name", "ann"], capsys)
    assert code == EXIT_INTERRUPTED
    assert _one_line(err) == (
        "mtp-gym play: interrupted; the game was not finished, so nothing was logged; run the same command to "
        "play again"
    )
    assert not out.exists()


def test_ctrl_c_in_eval_says_it_resumes(tmp_path, capsys, monkeypatch):
    """(The two lines and the resume are checked in detail by test_hostile_records.)"""
    from mtp_gym.eval import backends

    def interrupted(*args: object) -> dict:
        raise KeyboardInterrupt

    monkeypatch.setattr(backends, "play_config", interrupted)  # in this process: one worker
    code, err = _run(
        [*EVAL, "--env", WG, "--agent", "random", "--workers", "1", "--out", str(tmp_path / "out")], capsys
    )
    assert code == EXIT_INTERRUPTED and "Traceback" not in err
    assert "resume with the same command: mtp-gym eval" in err


def test_a_split_larger_than_the_env_plays_it_all_with_a_note(tmp_path, capsys):
    """``--split N`` is "at most N, spread over the split": more than there are plays them all
    (``--env all --split 100`` meets query games of 20 per level), and one line says so."""
    out = tmp_path / "out"
    code = main(["eval", "--no-progress", "--no-report", "--env", HN, "--agent", "random", "--split", "5000",
                 "--out", str(out)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 0
    assert "note: --split 5000: MTP/HiddenNumber-v0 has 20 configurations; playing all 20" in err.splitlines()
    assert len((out / "random" / "episodes.jsonl").read_text().splitlines()) == 20
