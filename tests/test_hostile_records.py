"""Shared logs and stopped runs (issue 27, items 6 and 7).

A log is data someone else may have written: ``mtp-gym report`` skips records with a missing or
wrong-typed field and names each one, and ``report.html`` never turns a log's string into
markup. ``mtp-gym eval`` stopped by Ctrl-C or a full disk ends in two lines (the log is whole,
the command that resumes), not a traceback.
"""

from __future__ import annotations

import errno
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import CLI_ENV, cli, slow_eval_args

from mtp_gym.cli import EXIT_INTERRUPTED, main
from mtp_gym.eval import backends
from mtp_gym.eval.harness import AgentConfig, run_eval
from mtp_gym.eval.log import LOG_NAME, RunLog, read_episodes, record_key
from mtp_gym.eval.report import MAX_NAMED, load_runs, record_problem

WG, HN = "MTP/WordGuess-v0", "MTP/HiddenNumber-v0"
ASSETS = Path(__file__).parents[1] / "mtp_gym" / "eval" / "assets"
#: Markup that marks the page if it ever runs (a script element, an image's error handler), after
#: closing an attribute; and mathtext that matplotlib cannot parse.
XSS = (
    "\"'><script>document.body.dataset.pwned='script'</script>"
    "<img src=x onerror=\"document.body.dataset.pwned='img'\">$\\frac{$"
)
DELETE = object()

# (field, forged value, what the warning must say)
WRONG = [
    ("turns", "7", "field 'turns' is \"7\" (a string)"),
    ("score", None, "field 'score' is null"),
    ("score", float("nan"), "field 'score' is NaN"),
    ("outcome", 3, "field 'outcome' is 3 (an integer)"),
    ("config_id", "x", "field 'config_id' is \"x\" (a string)"),
    ("format_errors", [1], "field 'format_errors' is [1] (a list)"),
    ("prompt_tokens", "abc", "field 'prompt_tokens' is \"abc\" (a string)"),
    ("env_id", 5, "field 'env_id' is 5 (an integer)"),
    ("transcript", "hello", "field 'transcript' is \"hello\" (a string)"),
    ("sample", -1, "field 'sample' is -1 (an integer)"),
    ("turns", True, "field 'turns' is true (a boolean)"),
    ("format_errors", DELETE, "field 'format_errors' is missing"),
]


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    """A run directory of 4 oracle Word Guess episodes (copied per test)."""
    out = tmp_path_factory.mktemp("played") / "oracle"
    run_eval([WG], AgentConfig("oracle"), out, split="4", progress=False).close()
    return out


@pytest.fixture
def run_dir(played, tmp_path) -> Path:
    return Path(shutil.copytree(played, tmp_path / "oracle"))


def forge(log: Path, changes: list[tuple[str, object]], first_config: int = 100) -> list[int]:
    """Append one copy of the log's first record per change (each its own configuration);
    return their line numbers."""
    lines = log.read_text().splitlines()
    good = json.loads(lines[0])
    numbers = []
    with open(log, "a") as f:
        for i, (field, value) in enumerate(changes):
            record = dict(good, config_id=first_config + i)
            if value is DELETE:
                del record[field]
            else:
                record[field] = value
            f.write(json.dumps(record) + "\n")
            numbers.append(len(lines) + i + 1)
    return numbers


def test_report_skips_records_with_wrong_typed_fields_and_names_each(run_dir):
    log = run_dir / LOG_NAME
    numbers = forge(log, [(f, v) for f, v, _ in WRONG])
    # A null score is what an infra_error record holds: kept (counted apart), never named.
    good = json.loads(log.read_text().splitlines()[0])
    with open(log, "a") as f:
        f.write(json.dumps(good | {"config_id": 500, "outcome": "infra_error", "score": None}) + "\n")
    res = cli("report", str(run_dir), "--no-baselines")
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr
    warnings = [w for w in res.stderr.splitlines() if "skipped:" in w]
    assert len(warnings) == len(WRONG)  # one line per record
    for line, (_, _, said), warning in zip(numbers, WRONG, warnings):
        assert warning.startswith(f"warning: {log}:{line}: skipped: {said}"), warning
    table = (run_dir / "report" / "report.md").read_text()
    row = next(r for r in table.splitlines() if r.startswith("| WordGuess | oracle |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[2] == "4" and cells[13] == "1"  # the 4 good episodes scored, the infra error counted apart
    assert (run_dir / "report" / "report.html").exists()


def test_many_bad_records_are_named_up_to_a_limit_then_counted(run_dir):
    forge(run_dir / LOG_NAME, [("turns", "7")] * (MAX_NAMED + 3))
    said: list[str] = []
    records = load_runs([run_dir], warn=said.append)
    assert len(records) == 4
    assert len(said) == MAX_NAMED + 1 and said[-1].endswith(
        "skipped 3 more record(s) with a missing or wrong-typed field"
    )


def test_record_problem_names_the_field():
    good = {"env_id": WG, "config_id": 0, "outcome": "success", "score": 1.0, "turns": 3, "format_errors": 0}
    assert record_problem(good) is None
    assert record_problem(good | {"outcome": "infra_error", "score": None}) is None
    assert record_problem(good | {"prompt_tokens": 12.0, "error": None, "transcript": [], "sample": 2}) is None
    for field, value, said in WRONG:
        bad = {k: v for k, v in good.items() if k != field} if value is DELETE else good | {field: value}
        assert record_problem(bad).startswith(said), field


def test_a_run_whose_config_cannot_be_read_is_skipped_and_named(run_dir, tmp_path):
    broken = Path(shutil.copytree(run_dir, tmp_path / "broken"))
    for config, said in [
        ("{not json", "not JSON"),
        ('{"agent_config": {"agent": 7}, "envs": {}}', "field 'agent_config.agent' is 7 (an integer)"),
        ('{"agent_config": "x", "envs": {}}', "field 'agent_config' is missing or not an object"),
        ('{"agent_config": {"agent": "b"}, "envs": {"MTP/HiddenNumber-v0": {"difficulty": "5"}}}', "difficulty"),
    ]:
        (broken / "config.json").write_text(config)
        warned: list[str] = []
        records = load_runs([run_dir, broken], warn=warned.append)
        assert len(records) == 4 and {r["agent"] for r in records} == {"oracle"}
        assert len(warned) == 1 and said in warned[0] and "its run is skipped" in warned[0], warned


def hostile_run(root: Path) -> Path:
    """A run directory whose every string field carries markup: the agent's name, env ids,
    a probe (also naming a slot of the page template), outcomes, errors, the transcript (contents,
    roles, reasoning) and the hidden state."""
    run = root / "hostile"
    run.mkdir(parents=True)
    envs = {WG: {}, HN: {"difficulty": 2, "probe": XSS + "{{data}}"}, XSS: {}}
    (run / "config.json").write_text(json.dumps({"agent_config": {"agent": XSS}, "envs": envs}))
    lines = []
    for i, env_id in enumerate(envs):
        for outcome in (XSS, "failure"):
            lines.append(
                {
                    "agent": XSS,
                    "env_id": env_id,
                    "config_id": i if outcome == XSS else i + 10,
                    "sample": 0,
                    "outcome": outcome,
                    "score": 0.0,
                    "turns": 1,
                    "format_errors": 0,
                    "prompt_tokens": 5,
                    "completion_tokens": 2,
                    "error": XSS,
                    "transcript": [
                        {"role": "user", "content": XSS},
                        {"role": "assistant", "content": XSS, "reasoning": XSS},
                        {"role": XSS, "content": XSS},
                    ],
                    "hidden": {XSS: [XSS, 1], "answer": XSS},
                }
            )
    (run / LOG_NAME).write_text("".join(json.dumps(r) + "\n" for r in lines))
    return run


def test_report_html_escapes_every_string_from_a_log(tmp_path):
    run = hostile_run(tmp_path)
    res = cli("report", str(run), "--no-baselines", "--price", f"{XSS}=1,2")
    assert res.returncode == 0, res.stderr
    page = (run / "report" / "report.html").read_text()
    assert "<script>document" not in page and "<img src=x" not in page
    assert page.count("<script") == 2  # the data block and the page's own script
    assert "&lt;script&gt;document" in page  # the agent's name is in the tables, as text
    assert "{{data}}" in page  # a probe's name is not a slot of the page template
    script = (ASSETS / "report.js").read_text() + (ASSETS / "pretty.js").read_text()
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write"):
        assert sink not in script, f"report.js uses {sink}: log fields must go in as text"


def test_baselines_for_a_hostile_log_stay_in_the_report_dir_or_are_skipped(tmp_path):
    run = hostile_run(tmp_path)
    res = cli("report", str(run))  # random and oracle rows played where missing
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr
    assert "report: no random baseline for MTP/HiddenNumber-v0_L2_" in res.stderr  # no such probe
    baselines = run / "report" / "baselines"
    made = sorted(p.relative_to(baselines).parts for p in baselines.rglob("config.json"))
    assert made and all(len(parts) == 3 for parts in made), made  # baselines/<kind>/<one name>/config.json
    assert ("oracle", "MTP_WordGuess-v0", "config.json") in made
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hostile"]


def test_report_html_renders_hostile_fields_as_text_in_a_browser(browser, tmp_path):
    run = hostile_run(tmp_path)
    assert cli("report", str(run), "--no-baselines", "--price", f"{XSS}=1,2").returncode == 0
    page = browser.new_page()
    try:
        page.goto((run / "report" / "report.html").as_uri())
        page.wait_for_selector("body[data-ready='1']")
        rows = page.locator("#list tbody tr")
        assert rows.count() == 6
        for i in range(rows.count()):
            rows.nth(i).click()
            text = page.inner_text("#episode")
            assert XSS in text  # shown literally: heading, outcome or error, messages, hidden state
        page.select_option("#f-outcome", XSS)
        assert page.inner_text("#f-count") == "3 of 6 episodes"
        rows.first.click()
        assert page.inner_text("#episode .meta span") == XSS
        assert page.inner_text("#list tbody tr td:nth-child(4)") == XSS
        page.wait_for_timeout(300)  # an injected image would have failed to load by now
        assert page.evaluate("document.body.dataset.pwned") is None
        assert page.evaluate("document.querySelectorAll('[onerror]').length") == 0
        assert page.evaluate("document.scripts.length") == 2
    finally:
        page.close()


# --- Item 7: Ctrl-C and a full disk end `mtp-gym eval` in two lines.

# One worker: the tests below patch this process (a pool's processes would not see it).
EVAL = ["eval", "--env", WG, "--agent", "oracle", "--split", "6", "--workers", "1", "--no-report", "--no-progress"]


def test_a_full_disk_ends_eval_in_two_lines_and_the_same_command_resumes(tmp_path, monkeypatch):
    argv = [*EVAL, "--out", str(tmp_path)]
    append = RunLog.append
    written = []

    def fills_the_disk(self: RunLog, record: dict) -> None:
        if len(written) == 2:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self.path))
        append(self, record)
        written.append(record)

    monkeypatch.setattr(RunLog, "append", fills_the_disk)
    with pytest.raises(SystemExit) as stop:
        main(argv)
    message = str(stop.value.code)  # a string: printed on stderr, exit status 1
    lines = message.splitlines()
    assert len(lines) == 2, message
    assert lines[0].startswith("mtp-gym eval: error: disk full (No space left on device: ")
    assert f"the log is whole: every finished episode is kept under {tmp_path}/" in lines[0]
    assert lines[1] == f"free some space, then resume with the same command: {shlex.join(['mtp-gym', *argv])}"
    log = tmp_path / "oracle" / LOG_NAME
    assert len(read_episodes(log)[0]) == 2
    monkeypatch.undo()
    assert main(argv) == 0
    records = read_episodes(log)[0]
    assert len(records) == 6 and len({record_key(r) for r in records}) == 6


def test_a_full_disk_while_writing_the_report_says_the_logs_are_whole(run_dir, monkeypatch):
    import mtp_gym.eval.report as report

    def full(*args: object, **kwargs: object) -> str:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(run_dir / "report" / "report.md"))

    monkeypatch.setattr(report, "write_report", full)
    with pytest.raises(SystemExit) as stop:
        main(["report", str(run_dir), "--no-baselines"])
    first, second = str(stop.value.code).splitlines()
    assert first.startswith("mtp-gym report: error: disk full") and "report.md" in first and "whole" in first
    assert second == f"free some space, then run the same command again: mtp-gym report {run_dir} --no-baselines"

    def denied(*args: object, **kwargs: object) -> str:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(report, "write_report", denied)
    with pytest.raises(PermissionError):  # other errors are not disguised as a full disk
        main(["report", str(run_dir), "--no-baselines"])


def test_ctrl_c_in_process_returns_130_with_the_resume_command(tmp_path, monkeypatch, capsys):
    argv = [*EVAL, "--out", str(tmp_path)]
    play = backends.play_config
    calls = []

    def interrupted(*args: object) -> dict:
        if len(calls) == 2:
            raise KeyboardInterrupt
        calls.append(args)
        return play(*args)

    monkeypatch.setattr(backends, "play_config", interrupted)
    assert main(argv) == EXIT_INTERRUPTED
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 2 and said[0].startswith("mtp-gym eval: interrupted; the log is whole")
    assert said[1] == f"resume with the same command: {shlex.join(['mtp-gym', *argv])}"
    assert len(read_episodes(tmp_path / "oracle" / LOG_NAME)[0]) == 2


@pytest.mark.parametrize("executor", ["thread", "process"])
def test_sigint_ends_eval_at_once_with_rc_130_and_the_log_resumes(tmp_path, executor):
    args = slow_eval_args(tmp_path, WG, "6", 0.05, workers=2, executor=executor)
    log = tmp_path / "py_harness_agents_SlowAgent" / LOG_NAME
    proc = subprocess.Popen(
        [sys.executable, "-m", "mtp_gym.cli", *args], env=CLI_ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        start = time.monotonic()
        while not (log.exists() and log.read_bytes().count(b"\n") >= 1):
            assert proc.poll() is None and time.monotonic() - start < 60, "no episode logged"
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    took = time.monotonic() - sent
    stderr = err.decode()
    assert proc.returncode == EXIT_INTERRUPTED, stderr
    assert "Traceback" not in stderr and took < 5.0, (took, stderr)
    said = stderr.strip().splitlines()
    assert len(said) == 2 and "the log is whole: every finished episode is kept" in said[0]
    assert said[1] == f"resume with the same command: {shlex.join(['mtp-gym', *args])}"
    kept = log.read_bytes()
    assert kept.endswith(b"\n") and all(json.loads(line) for line in kept.splitlines())
    res = cli(*args)
    assert res.returncode == 0, res.stderr
    records = read_episodes(log)[0]
    assert len(records) == 6 and len({record_key(r) for r in records}) == 6


def test_the_resume_command_masks_credentials(tmp_path):
    from mtp_gym.cli import _command

    argv = ["eval", "--base-url", "http://alice:s3cret@host:8000/v1?api_key=k", "--agent-kwargs", '{"x": 1}']
    shown = _command(argv)
    assert "s3cret" not in shown and "api_key=k" not in shown and "http://host:8000/v1" in shown
