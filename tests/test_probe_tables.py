"""The report's probe tables (Table 3 isomorphic by level, Table 7 counterfactual over revised
episodes, Table 8 necessity) from a small real run: ``run_eval`` in-process with the oracle,
the random agent and a keep-everything pruner on two query games at levels 1-2, then
``mtp-gym report``; every figure checked against the episode records."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mtp_gym.cli import main
from mtp_gym.eval.harness import AgentConfig, run_eval
from mtp_gym.eval.log import read_episodes
from mtp_gym.eval.report import (
    compute_rows,
    counterfactual_rows,
    isomorphic_level_rows,
    load_runs,
    macro_rows,
    markdown,
    necessity_rows,
    probe_rows,
)

GAMES = ("MTP/HiddenNumber-v0", "MTP/SequenceRule-v0")
LEVELS = (1, 2)
SPLIT = 6
KEEP_ALL = "py:probe_agents:KeepAll"
#: agent -> the probes it plays (None: the clean game); the keep-everything pruner plays only
#: the necessity protocol, so its Table 8 row has no clean figure.
PLAN = {
    "oracle": (None, "isomorphic", "counterfactual", "necessity"),
    "random": (None, "isomorphic", "counterfactual", "necessity"),
    KEEP_ALL: ("necessity",),
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("probe_runs")
    for agent, probes in PLAN.items():
        for level in LEVELS:
            for probe in probes:
                kwargs = {"difficulty": level} | ({"probe": probe} if probe else {})
                out = root / f"{AgentConfig(agent).slug}_L{level}_{probe or 'clean'}"
                kwargs_by_env = dict.fromkeys(GAMES, kwargs)
                run_eval(GAMES, AgentConfig(agent), out, split=str(SPLIT), env_kwargs=kwargs_by_env, progress=False)
    return root


def _episodes(root: Path, agent: str, level: int, probe: str | None) -> list[dict]:
    """The full records (hidden state included) of one run directory."""
    path = root / f"{AgentConfig(agent).slug}_L{level}_{probe or 'clean'}" / "episodes.jsonl"
    return read_episodes(path)[0]


def _clean(root: Path, agent: str, level: int) -> dict[tuple[str, int], bool]:
    """(env id, config id) -> success of the agent's clean run ({} when it played none)."""
    if None not in PLAN[agent]:
        return {}
    return {(r["env_id"], r["config_id"]): r["outcome"] == "success" for r in _episodes(root, agent, level, None)}


def _task(env: str, level: int) -> str:
    return f"{env.split('/')[1][:-3]} L{level}"


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs)


def _row(table: list[dict], agent: str, task: str) -> dict:
    (row,) = [r for r in table if r["agent"] == agent and r["task"] == task]
    return row


def test_necessity_table_8_from_the_records(runs):
    rows = compute_rows(load_runs([runs]))
    table = necessity_rows(rows)
    assert {r["agent"] for r in table} == set(PLAN)
    for agent in PLAN:
        every = []
        for level in LEVELS:
            records = _episodes(runs, agent, level, "necessity")
            clean = _clean(runs, agent, level)
            for env in GAMES:
                recs = [r for r in records if r["env_id"] == env]
                probe = [r["hidden"]["probe"] for r in recs]
                row = _row(table, agent, _task(env, level))
                assert row["episodes"] == len(recs) == SPLIT
                assert row["complete_evidence"] == pytest.approx(_mean([p["full_success"] for p in probe]))
                assert row["after_pruning"] == pytest.approx(_mean([r["outcome"] == "success" for r in recs]))
                assert row["pruning_ratio"] == pytest.approx(_mean([p["pruning_ratio"] for p in probe]))
                assert row["optimal_ratio"] == pytest.approx(_mean([p["optimal_ratio"] for p in probe]))
                assert row["score"] == pytest.approx(_mean([r["score"] for r in recs]))
                if agent == KEEP_ALL:
                    assert row["clean"] is None
                else:
                    assert row["clean"] == pytest.approx(_mean([clean[(env, r["config_id"])] for r in recs]))
                every += recs
        total = _row(table, agent, "all")
        assert total["episodes"] == len(every) == SPLIT * len(GAMES) * len(LEVELS)
        assert total["score"] == pytest.approx(_mean([r["score"] for r in every]))
        assert total["pruning_ratio"] == pytest.approx(_mean([r["hidden"]["probe"]["pruning_ratio"] for r in every]))
    oracle, keep_all, rnd = (_row(table, a, "all") for a in ("oracle", KEEP_ALL, "random"))
    # the issue: keep-all scored like the optimal pruner; now both solve, but only one prunes
    assert oracle["after_pruning"] == keep_all["after_pruning"] == 1.0 == oracle["complete_evidence"]
    assert oracle["score"] == 1.0 and oracle["pruning_ratio"] == oracle["optimal_ratio"] > 0.5
    assert keep_all["score"] == 0.0 and keep_all["pruning_ratio"] == 0.0
    assert rnd["score"] < 0.25 and oracle["clean"] == 1.0


def test_counterfactual_table_counts_revised_episodes_and_the_vacuous_share(runs):
    rows = compute_rows(load_runs([runs]))
    table = counterfactual_rows(rows)
    vacuous_seen = 0
    for agent in ("oracle", "random"):
        for level in LEVELS:
            records = _episodes(runs, agent, level, "counterfactual")
            clean = _clean(runs, agent, level)
            for env in GAMES:
                recs = [r for r in records if r["env_id"] == env]
                revised = [r for r in recs if r["hidden"]["probe"]["revised"] is not None]
                assert all(r["probe_result"]["revision"] is (r in revised) for r in recs)
                row = _row(table, agent, _task(env, level))
                assert row["episodes"] == len(recs) and row["revised"] == len(revised)
                assert row["vacuous"] == pytest.approx(1 - len(revised) / len(recs))
                vacuous_seen += len(recs) - len(revised)
                if revised:
                    assert row["probed"] == pytest.approx(_mean([r["outcome"] == "success" for r in revised]))
                    assert row["clean"] == pytest.approx(_mean([clean[(env, r["config_id"])] for r in revised]))
                    assert row["drop"] == pytest.approx(row["clean"] - row["probed"])
                else:
                    assert row["clean"] is None and row["probed"] is None and row["drop"] is None
                assert row["all_episodes"] == pytest.approx(_mean([r["outcome"] == "success" for r in recs]))
    assert vacuous_seen > 0  # SequenceRule leaves most 2nd terms open... but not all
    assert _row(table, "oracle", "all")["drop"] == 0.0  # the oracle refilters from the correction
    assert {"counterfactual", "necessity"}.isdisjoint(p["probe"] for p in probe_rows(rows))


def test_isomorphic_drop_per_level(runs):
    rows = compute_rows(load_runs([runs]))
    table = isomorphic_level_rows(rows)
    assert [(r["agent"], r["level"]) for r in table] == [(a, lv) for a in ("oracle", "random") for lv in LEVELS]
    for row in table:
        clean = _episodes(runs, row["agent"], row["level"], None)
        retold = _episodes(runs, row["agent"], row["level"], "isomorphic")
        assert row["games"] == len(GAMES) and row["configs"] == len(clean) == len(retold)
        assert row["clean"] == pytest.approx(_mean([r["outcome"] == "success" for r in clean]))
        assert row["isomorphic"] == pytest.approx(_mean([r["outcome"] == "success" for r in retold]))
        assert row["drop"] == pytest.approx(row["clean"] - row["isomorphic"])
        assert all(r["probe_result"]["domain"] for r in retold)


def test_report_md_and_html_show_the_probe_tables(runs, tmp_path, capsys):
    out = tmp_path / "report"
    assert main(["report", str(runs), "--out", str(out), "--no-baselines"]) == 0
    text = (out / "report.md").read_text()
    for head in (
        "| agent | level | games | configurations | clean % | isomorphic % | drop |",
        "| agent | task | episodes | vacuous % | revised | clean % | counterfactual % | drop | all episodes % |",
        "| agent | task | episodes | clean % | complete evidence % | after pruning % | pruning ratio "
        "| optimal ratio | score |",
    ):
        assert head in text
    assert "| oracle | L1 | 2 | 12 | 100.0 | 100.0 | +0.0 |" in text
    assert "| oracle | HiddenNumber L1 | 6 | 0.0 | 6 | 100.0 | 100.0 | +0.0 | 100.0 |" in text
    optimal = _row(necessity_rows(compute_rows(load_runs([runs]))), KEEP_ALL, "all")["optimal_ratio"]
    assert f"| {KEEP_ALL} | all | 24 | n/a | 100.0 | 100.0 | 0.000 | {optimal:.3f} | 0.000 |" in text
    assert "under the necessity probe:" in text
    html = (out / "report.html").read_text()
    assert "Necessity judgment (Table 8)" in html and "vacuous %" in html and "isomorphic %" in html


def test_old_logs_without_probe_results_load_and_say_n_a(runs, tmp_path):
    """Records written before ``probe_result`` existed: every episode still counts; the figures
    only the records carried are n/a."""
    old = tmp_path / "old"
    for d in runs.iterdir():
        if d.name.endswith(("counterfactual", "necessity")) and d.name.startswith(("oracle", "random")):
            shutil.copytree(d, old / d.name)
            path = old / d.name / "episodes.jsonl"
            records = [json.loads(line) for line in path.read_text().splitlines()]
            path.write_text(
                "".join(json.dumps({k: v for k, v in r.items() if k != "probe_result"}) + "\n" for r in records)
            )
    warnings: list[str] = []
    rows = compute_rows(load_runs([old], warn=warnings.append))
    assert not warnings and sum(r.episodes for r in rows) == 2 * 2 * len(LEVELS) * len(GAMES) * SPLIT
    for row in necessity_rows(rows):
        assert row["after_pruning"] is not None  # the outcome is always there
        assert row["complete_evidence"] is row["pruning_ratio"] is row["optimal_ratio"] is row["score"] is None
    for row in counterfactual_rows(rows):
        assert row["revised"] is row["vacuous"] is row["drop"] is None and row["all_episodes"] is not None
    text = markdown(rows, macro_rows(rows))
    assert "| oracle | HiddenNumber L1 | 6 | n/a | n/a | n/a | n/a | n/a | 100.0 |" in text  # counterfactual
    assert "| oracle | HiddenNumber L1 | 6 | n/a | n/a | 100.0 | n/a | n/a | n/a |" in text  # necessity


def test_malformed_probe_results_are_named_or_read_as_n_a(tmp_path):
    """A log is data: ``probe_result`` that is not an object skips its record (named); a figure
    of the wrong type reads as n/a."""
    run = tmp_path / "run"
    kwargs = {"MTP/HiddenNumber-v0": {"difficulty": 1, "probe": "necessity"}}
    run_eval(["MTP/HiddenNumber-v0"], AgentConfig("oracle"), run, split="2", env_kwargs=kwargs, progress=False)
    path = run / "episodes.jsonl"
    first, second = (json.loads(line) for line in path.read_text().splitlines())
    first["probe_result"] = "yes"
    second["probe_result"] = {"pruning_ratio": "0.5", "full_success": 1, "optimal_ratio": 7}
    path.write_text(json.dumps(first) + "\n" + json.dumps(second) + "\n")
    warnings: list[str] = []
    rows = compute_rows(load_runs([run], warn=warnings.append))
    assert len(warnings) == 1 and "probe_result" in warnings[0] and "an object or null" in warnings[0]
    (row,) = necessity_rows(rows)
    assert row["episodes"] == 1 and row["after_pruning"] == 1.0 and row["score"] == second["score"] == 1.0
    assert row["pruning_ratio"] is row["complete_evidence"] is row["optimal_ratio"] is None


def test_episodes_without_a_phase_one_answer_count_as_complete_evidence_failures(tmp_path):
    """A format error in phase 1 (and a context overflow, whose record has no figures) is no
    right answer on the complete evidence; its pruning ratio is unknown, not 0."""
    kwargs = {"MTP/HiddenNumber-v0": {"difficulty": 1, "probe": "necessity"}}
    for agent in ("oracle", "py:probe_agents:Garbage"):
        out = tmp_path / AgentConfig(agent).slug
        run_eval(["MTP/HiddenNumber-v0"], AgentConfig(agent), out, split="2", env_kwargs=kwargs, progress=False)
    records = load_runs([tmp_path])
    assert {r["outcome"] for r in records} == {"success", "format_error"}
    overflow = dict(next(r for r in records if r["agent"] == "oracle"), outcome="context_overflow", score=0.0)
    overflow["probe_result"], overflow["config_id"] = {"name": "necessity"}, 99
    rows = compute_rows([*records, overflow])
    garbage = _row(necessity_rows(rows), "py:probe_agents:Garbage", "HiddenNumber L1")
    assert garbage["complete_evidence"] == garbage["after_pruning"] == garbage["score"] == 0.0
    assert garbage["pruning_ratio"] is None and garbage["optimal_ratio"] == pytest.approx(8 / 9)
    oracle = _row(necessity_rows(rows), "oracle", "HiddenNumber L1")
    assert oracle["episodes"] == 3 and oracle["complete_evidence"] == pytest.approx(2 / 3)
    assert oracle["pruning_ratio"] == pytest.approx(8 / 9) and oracle["score"] == pytest.approx(2 / 3)
