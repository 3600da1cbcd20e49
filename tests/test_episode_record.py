"""The one episode record: written and read in one place, the task stamped by the harness,
old logs (before ``record_version``) still read, with their task rebuilt from the run's env kwargs."""

from __future__ import annotations

import json

import pytest

from mtp_gym.eval.harness import AgentConfig, run_eval
from mtp_gym.eval.log import RunLog, read_episodes
from mtp_gym.eval.record import RECORD_VERSION, EpisodeRecord, task_of
from mtp_gym.eval.report import compute_rows, load_runs

HN, WG = "MTP/HiddenNumber-v0", "MTP/WordGuess-v0"
#: A line of a log written before the record was versioned (no level, probe, record_version).
OLD_LINE = {
    "agent": "oracle",
    "env_id": HN,
    "config_id": 0,
    "sample": 0,
    "seed": 0,
    "outcome": "success",
    "score": 1.0,
    "turns": 7,
    "format_errors": 0,
    "prompt_tokens": 0,
    "completion_tokens": 0,
    "seconds": 0.01,
    "error": None,
    "actors": [],
    "transcript": [{"role": "user", "content": "rules"}, {"role": "assistant", "content": "<answer>5</answer>"}],
    "hidden": {"number": 5},
    "probe_result": None,
    "finished_at": 1.0,
}


def test_the_harness_stamps_the_task_and_the_version(tmp_path):
    kwargs = {HN: {"difficulty": 2, "probe": "noise"}, WG: {}}
    log = run_eval([HN, WG], AgentConfig("oracle"), tmp_path, split="2", env_kwargs=kwargs, progress=False)
    lines = read_episodes(log.path)[0]
    assert {(r["env_id"], r["level"], r["probe"]) for r in lines} == {(HN, 2, "noise"), (WG, None, None)}
    assert all(r["record_version"] == RECORD_VERSION for r in lines)
    assert set(OLD_LINE) < set(lines[0])  # every old key stays
    records = [EpisodeRecord.from_json(r) for r in lines]
    assert [r.to_json() for r in records] == lines  # one shape, both ways


def test_an_old_log_line_reads_into_a_record_with_its_task_rebuilt(tmp_path):
    old = EpisodeRecord.from_json(OLD_LINE, {"difficulty": 4, "probe": "necessity"})
    assert old.record_version == 0 and old.task == (HN, 4, "necessity") and old.turns == 7
    assert EpisodeRecord.from_json(OLD_LINE, {}).task == task_of(HN, {}) == (HN, 3, None)  # the default level
    assert EpisodeRecord.from_json(OLD_LINE | {"env_id": WG}, {"difficulty": 4}).task == (WG, None, None)
    run = tmp_path / "old"
    run.mkdir()
    (run / "config.json").write_text(json.dumps({"agent_config": {"agent": "oracle"}, "envs": {HN: {"difficulty": 4}}}))
    (run / "episodes.jsonl").write_text(json.dumps(OLD_LINE) + "\n")
    (record,) = load_runs([run])
    assert isinstance(record, EpisodeRecord) and record.task == (HN, 4, None) and record.transcript == []
    (row,) = compute_rows([record])
    assert row.task_name == "HiddenNumber L4" and row.mean_score == 1.0


def test_a_run_resumes_across_the_change(tmp_path):
    """A log begun before the record was versioned: its episodes are not played again, the new
    ones are written in the new form, and the report puts both in the same task."""
    kwargs = {HN: {"difficulty": 2}}
    log = run_eval([HN], AgentConfig("oracle"), tmp_path, split="4", env_kwargs=kwargs, progress=False)
    lines = read_episodes(log.path)[0]
    old = [{k: v for k, v in r.items() if k not in ("level", "probe", "record_version")} for r in lines[:2]]
    log.path.write_text("".join(json.dumps(r) + "\n" for r in old))
    resumed = RunLog(tmp_path, AgentConfig("oracle").identity(), kwargs)
    assert {r.key for r in resumed.records} == {(HN, r["config_id"], 0) for r in old}
    assert {r.task for r in resumed.records} == {(HN, 2, None)}
    resumed.close()
    log = run_eval([HN], AgentConfig("oracle"), tmp_path, split="4", env_kwargs=kwargs, progress=False)
    lines = read_episodes(log.path)[0]
    assert len(lines) == 4 and [r.get("record_version") for r in lines] == [None, None, 1, 1]
    (row,) = compute_rows(load_runs([tmp_path]))
    assert row.task == (HN, 2, None) and row.episodes == 4


def test_a_record_reads_like_the_old_dict():
    record = EpisodeRecord.from_json(OLD_LINE | {"level": 3, "probe": None})
    assert record["score"] == 1.0 and record.get("sample", 9) == 0 and "hidden" in record
    assert dict(record) == record.to_json() and len(record) == len(record.to_json())
    with pytest.raises(KeyError):
        record["nope"]
    changed = record | {"agent": "random"}
    assert changed.agent == "random" and record.agent == "oracle" and isinstance(changed, EpisodeRecord)
    assert record.slim().transcript == [] and record.slim().hidden is None and record.transcript
