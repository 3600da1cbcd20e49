"""The report's figures, grouped tables, --samples (pass@k), --seed and the CLI conveniences."""

from __future__ import annotations

import csv
import json
import math
import random

import pytest
from helpers import cli
from PIL import Image

from mtp_gym.eval.harness import AgentConfig, episode_seed, run_eval
from mtp_gym.eval.log import ConfigMismatch, read_episodes
from mtp_gym.eval.report import (
    MAX_PX,
    compute_rows,
    load_runs,
    macro_rows,
    markdown,
    pass_at_k,
    plot_levels,
    plot_scores,
    plot_turns,
    probe_rows,
)
from mtp_gym.registration import ENV_IDS, GAME_IDS

WG, HN = "MTP/WordGuess-v0", "MTP/HiddenNumber-v0"


def synthetic(agents: list[str], levels: bool = True, configs: int = 6, seed: int = 0) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for agent in agents:
        for env in ENV_IDS:
            for level in [1, 2, 3, 4, 5] if env in GAME_IDS and levels else [3 if env in GAME_IDS else None]:
                for c in range(configs):
                    o = rng.choice(["success", "failure", "timeout", "format_error"])
                    out.append(
                        {
                            "env_id": env,
                            "agent": agent,
                            "level": level,
                            "probe": None,
                            "config_id": c,
                            "outcome": o,
                            "score": float(o == "success"),
                            "turns": 0 if o == "format_error" else rng.randint(1, 30),
                            "format_errors": 3 * (o == "format_error"),
                            "prompt_tokens": 0,
                            "completion_tokens": 0,
                        }
                    )
    return out


@pytest.mark.parametrize("agents, levels", [(["random", "oracle"], False), (["a", "b", "c", "random", "oracle"], True)])
def test_figures_stay_readable_at_any_number_of_tasks(tmp_path, agents, levels):
    rows = compute_rows(synthetic(agents, levels))
    for plot in (plot_scores, plot_turns):
        size = plot(rows, tmp_path / "f.png")
        image = Image.open(tmp_path / "f.png")
        assert image.size == size and max(size) <= MAX_PX, (plot.__name__, size)
        assert min(size) >= 300
        assert len(image.convert("RGB").getcolors(1 << 20)) > 50  # drawn, not blank
    assert (plot_levels(rows, tmp_path / "l.png") is None) != levels


def test_the_old_single_row_figure_is_gone(tmp_path):
    """--env all with two agents gave one 6144x480 px row; now panels per suite, within 2000 px."""
    rows = compute_rows(synthetic(["random", "oracle"], levels=False))
    w, h = plot_scores(rows, tmp_path / "s.png")
    assert w <= 2000 and h <= 2000 and w / h < 3


def test_query_games_by_level_cell_and_probe_drop():
    recs = []
    for level in (1, 5):
        for c in range(4):
            recs.append(
                {
                    "env_id": HN,
                    "agent": "m",
                    "level": level,
                    "probe": None,
                    "config_id": c,
                    "outcome": "success",
                    "score": 1.0,
                    "turns": 3,
                    "format_errors": 0,
                }
            )
            noisy = c < (3 if level == 1 else 1)
            recs.append(
                {
                    "env_id": HN,
                    "agent": "m",
                    "level": level,
                    "probe": "noise",
                    "config_id": c,
                    "outcome": "success" if noisy else "failure",
                    "score": float(noisy),
                    "turns": 3,
                    "format_errors": 0,
                }
            )
    rows = compute_rows(recs)
    assert [r.task_name for r in rows] == [
        "HiddenNumber L1",
        "HiddenNumber L1 noise",
        "HiddenNumber L5",
        "HiddenNumber L5 noise",
    ]
    (drop,) = probe_rows(rows)
    assert drop == {"agent": "m", "probe": "noise", "tasks": 2, "configs": 8, "clean": 1.0, "probed": 0.5, "drop": 0.5}
    text = markdown(rows, macro_rows(rows))
    assert "| m | 1.000 | 1.000 |" in text  # by level: L1, L5
    assert "| set × deductive | 1.000 |" in text
    assert "| m | noise | 2 | 8 | 1.000 | 0.500 | 0.500 |" in text


def test_pass_at_k_is_the_unbiased_estimator():
    assert pass_at_k(4, 0, 2) == 0.0 and pass_at_k(4, 4, 2) == 1.0
    assert pass_at_k(4, 1, 2) == pytest.approx(1 - math.comb(3, 2) / math.comb(4, 2))  # 0.5
    assert pass_at_k(5, 2, 1) == pytest.approx(0.4)


def test_samples_play_k_episodes_per_configuration_and_resume(tmp_path):
    log = run_eval([HN], AgentConfig("random"), tmp_path, split="4", samples=3, progress=False)
    recs = read_episodes(log.path)[0]
    assert sorted((r["config_id"], r["sample"]) for r in recs) == [(c, s) for c in (0, 5, 10, 15) for s in range(3)]
    seeds = {(r["config_id"], r["sample"]): r["seed"] for r in recs}
    assert all(seeds[(c, 0)] == c for c in (0, 5, 10, 15))  # sample 0 plays as without --samples
    assert len(set(seeds.values())) == 12
    log = run_eval([HN], AgentConfig("random"), tmp_path, split="4", samples=4, progress=False)  # adds sample 3 only
    assert len(read_episodes(log.path)[0]) == 16
    (row,) = compute_rows(load_runs([tmp_path]))
    assert row.samples == 4 and row.episodes == 16
    assert 0 <= row.success_rate <= row.pass_at_k <= 1
    assert row.mean_at_k == pytest.approx(row.mean_score)


def test_seed_changes_the_episodes_and_is_part_of_the_run(tmp_path):
    assert episode_seed(7) == 7 and episode_seed(7, 0, 1) == episode_seed(7, 0, 1) != episode_seed(7, 0, 2)
    run_eval([HN], AgentConfig("random"), tmp_path, split="2", seed=1, progress=False)
    recs = read_episodes(tmp_path / "episodes.jsonl")[0]
    assert [r["seed"] for r in recs] == [episode_seed(c, 0, 1) for c in (0, 10)]
    with pytest.raises(ConfigMismatch):
        run_eval([HN], AgentConfig("random"), tmp_path, split="2", seed=2, progress=False)


def test_cli_list_version_and_bad_values(tmp_path):
    res = cli("list", "--json")
    rows = json.loads(res.stdout)
    assert len(rows) == len(ENV_IDS) and {r["id"] for r in rows} == set(ENV_IDS)
    hn = next(r for r in rows if r["id"] == HN)
    assert hn["suite"] == "Query games, set × deductive" and hn["split"] == 20 and "oracle" in hn["agents"]
    assert next(r for r in rows if r["id"] == WG)["split"] == 400
    assert cli("--version").stdout.startswith("mtp-gym ")
    help_text = cli("eval", "--help").stdout
    assert "examples:" in help_text and "--samples" in help_text and "--top-p" in help_text
    for args, needle in (
        (["--samples", "0"], "--samples: must be a positive int"),
        (["--top-p", "1.5"], "--top-p: must be a number in (0, 1]"),
        (["--seed", "-3"], "--seed: must be a non-negative int"),
    ):
        res = cli("eval", "--env", HN, "--agent", "random", "--out", str(tmp_path), *args)
        assert res.returncode == 2 and needle in res.stderr, res.stderr


def test_cli_samples_report_pass_at_k(tmp_path):
    res = cli(
        "eval",
        "--env",
        HN,
        "--agent",
        "random",
        "--split",
        "3",
        "--samples",
        "2",
        "--out",
        str(tmp_path),
        "--no-progress",
    )
    assert res.returncode == 0, res.stderr
    md = (tmp_path / "report" / "report.md").read_text()
    assert "| HiddenNumber L3 | random | 2 |" in md and "pass@K" in md
    # eval prints a short summary: the macro averages first, where the report is and how to view it.
    lines = res.stdout.strip().splitlines()
    assert len(lines) <= 15 and lines[0].startswith("Macro averages") and "| random | 1 |" in res.stdout
    assert f"written: {tmp_path / 'report' / 'report.md'}" in res.stdout and "report.html" in res.stdout
    assert f"mtp-gym view {tmp_path / 'report'}" in res.stdout and "HiddenNumber L3 |" not in res.stdout
    assert md.index("Macro averages") < md.index("Per task and agent") < md.index("pass@K")
    rows = list(csv.DictReader(open(tmp_path / "report" / "report.csv")))
    assert {r["samples"] for r in rows} == {"2"}
    assert (tmp_path / "report" / "report.html").exists()
