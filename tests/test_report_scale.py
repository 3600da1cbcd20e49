"""report.html at scale (issue 29, item 1): the episodes in block files beside the page, the
report written in one streamed pass over the logs, the page listing, filtering, opening and
searching thousands of episodes block by block. (Timings: ``benchmarks/scale_report.py``.)"""

from __future__ import annotations

import filecmp
import json
import re
import threading
import tracemalloc
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mtp_gym.eval.html import BLOCK_FILE, blocks_dir, write_html
from mtp_gym.eval.log import CONFIG_NAME, LOG_NAME
from mtp_gym.eval.pipeline import build_report
from mtp_gym.eval.record import EpisodeRecord
from mtp_gym.eval.report import compute_rows, load_runs
from mtp_gym.eval.report import stream as stream_module
from mtp_gym.eval.report.load import iter_runs
from mtp_gym.eval.report.stream import CHUNK, PAGE, TABLE, ReportStream

WG, HN = "MTP/WordGuess-v0", "MTP/HiddenNumber-v0"
NEEDLE = "quokkazebra"


def record(i: int, agent: str, env: str = WG, **changes) -> dict:
    outcome = "success" if i % 3 else "failure"
    transcript = [
        {"role": "user", "content": f"Guess the word. episode {agent} {env} {i}"},
        {"role": "assistant", "content": f"<attempt>w{i:05d}</attempt> " + "filler " * 20},
        {"role": "user", "content": "Invalid action: one word please" if i % 7 == 0 else "Feedback: -+--+"},
    ]
    return {
        "agent": agent,
        "env_id": env,
        "config_id": i,
        "sample": 0,
        "outcome": outcome,
        "score": 1.0 if outcome == "success" else (i % 10) / 10,
        "turns": 1 + i % 9,
        "format_errors": int(i % 7 == 0),
        "prompt_tokens": 100 + i,
        "completion_tokens": 10 + i % 5,
        "transcript": transcript,
        "hidden": {"answer": f"w{i:05d}"},
        "level": None,
        "probe": None,
        "record_version": 1,
    } | changes


def run_dir(root: Path, agent: str, records: list[dict]) -> Path:
    d = root / agent
    d.mkdir(parents=True)
    (d / CONFIG_NAME).write_text(json.dumps({"agent_config": {"agent": agent}, "envs": {WG: {}, HN: {}}}))
    (d / LOG_NAME).write_text("".join(json.dumps(r) + "\n" for r in records))
    return d


def big_runs(root: Path, n: int) -> list[Path]:
    """Two agents, ``n`` episodes each over two envs; one transcript (late in the second log)
    holds :data:`NEEDLE`."""
    dirs = []
    for agent in ("oracle", "random"):
        recs = [record(i, agent, WG if i % 2 else HN) for i in range(n)]
        if agent == "random":
            recs[n - 5]["transcript"][1]["content"] += f" {NEEDLE}"
        dirs.append(run_dir(root, agent, recs))
    return dirs


@pytest.mark.parametrize("chunk", [CHUNK, 7])
def test_streamed_report_matches_the_tables_of_load_runs(tmp_path, monkeypatch, chunk):
    """One pass (records=None) writes the same report.md/.csv as the tables of load_runs' records,
    superseded records (a replayed infra_error) and samples included; with rows stored 7 at a
    time (a record and the one it supersedes in other chunks, a group's episodes in many)."""
    monkeypatch.setattr(stream_module, "CHUNK", chunk)
    recs = [record(i, "model", WG if i % 2 else HN) for i in range(300)]
    recs += [record(i, "model", HN, sample=1, score=0.5, outcome="failure") for i in range(0, 300, 2)]
    recs.insert(0, record(4, "model", HN, outcome="infra_error", score=None, error="down"))  # replayed later: dropped
    recs.append(record(8, "model", HN, outcome="infra_error", score=None))  # after a real one: ignored
    recs.append(record(21, "model", WG, score=0.25, outcome="failure"))  # a rerun: replaces the first
    for probe in (None, "noise", "necessity"):  # a query game's levels and probes, with their figures
        figures = {"full_success": True, "pruning_ratio": 0.5, "optimal_ratio": 0.25} if probe else None
        recs += [record(i, "model", HN, level=2, probe=probe, probe_result=figures) for i in range(40)]
    dirs = [run_dir(tmp_path / "runs", "model", recs), run_dir(tmp_path / "runs", "other", recs[:50])]
    records = load_runs(dirs)
    assert len(records) == 450 + 120 + 49  # "other": config 4 played twice (an infra_error, then a real one)
    given = build_report(records, dirs, tmp_path / "a", {}, baselines=False)
    streamed = build_report(None, dirs, tmp_path / "b", {}, baselines=False, block_episodes=64)
    assert given == streamed
    for name in ("report.md", "report.csv", "macro.csv"):
        assert filecmp.cmp(tmp_path / "a" / name, tmp_path / "b" / name, shallow=False), name
    stream = ReportStream()
    stream.add_all(load_runs(dirs, slim=False))
    assert [r.as_dict() for r in stream.rows()] == [r.as_dict() for r in compute_rows(records)]
    # The page holds each kept episode once, in load_runs' order.
    index = ReportStream()
    index.add_all(iter_runs(dirs, slim=False))
    page = index.page_index()
    assert len(page) == len(records)
    assert page.columns["config"].tolist() == [float(r.config_id) for r in records]
    assert [page.outcomes[k] for k in page.columns["outcome"]] == [r.outcome for r in records]
    shown = ReportStream()  # the page alone (the tables from records given): the same episodes
    shown.add_all(iter_runs(dirs, slim=False), table=False)
    assert shown.page_index().columns["config"].tolist() == page.columns["config"].tolist()
    assert len(ReportStream().page_index()) == 0 and ReportStream().rows() == []


@pytest.mark.parametrize("chunk", [CHUNK, 5])
def test_a_log_without_repeats_keeps_every_row_in_log_order(tmp_path, monkeypatch, chunk):
    """No record superseded: every row is kept, in log order (the tables and the page are
    load_runs'); with one episode played twice (an infra_error, then its replay) it is kept
    once, at the first one's place."""
    monkeypatch.setattr(stream_module, "CHUNK", chunk)
    recs = [record(i, "model", WG if i % 3 else HN, sample=i % 2) for i in range(120)]
    replayed = [*recs[:7], {**recs[7], "outcome": "infra_error", "score": None}, *recs[7:]]
    for name, log in (("unique", recs), ("replayed", replayed)):
        dirs = [run_dir(tmp_path / name, "model", log)]
        records = load_runs(dirs)
        stream = ReportStream()
        stream.add_all(iter_runs(dirs, slim=False))
        assert stream.kept(TABLE).tolist() == (list(range(120)) if name == "unique" else [*range(7), *range(8, 121)])
        assert [repr(r.as_dict()) for r in stream.rows()] == [repr(r.as_dict()) for r in compute_rows(records)]  # NaN
        assert stream.page_index().columns["config"].tolist() == [float(r.config_id) for r in records]


def test_values_past_64_bits_and_keys_past_63_are_kept(tmp_path, monkeypatch):
    """A hostile log: configuration ids and turns past 64 bits, keys that do not pack, replayed
    across the stored chunks: the tables and the page are load_runs' still."""
    monkeypatch.setattr(stream_module, "CHUNK", 3)
    big = 2**70
    recs = [record(i, "model", HN, config_id=big + i % 4, sample=i // 4) for i in range(12)]
    recs[5] = {**recs[5], "outcome": "infra_error", "score": None}
    recs += [record(5, "model", HN, config_id=big + 1, sample=1, turns=2**65), record(20, "model", WG, sample=2**30)]
    dirs = [run_dir(tmp_path, "model", recs)]
    records = load_runs(dirs)
    stream = ReportStream()
    stream.add_all(iter_runs(dirs, slim=False))
    assert [repr(r.as_dict()) for r in stream.rows()] == [repr(r.as_dict()) for r in compute_rows(records)]
    columns = stream.page_index().columns
    assert columns["config"].tolist() == [float(r.config_id) for r in records]
    assert columns["turns"].tolist() == [float(r.turns) for r in records] and float(2**65) in columns["turns"]
    assert [f[2] for f in stream.facts()] == [r.config_id for r in records]


def kept_by_definition(rows: list[tuple[int, int, int, str, int, bool]], flag: int) -> list[int]:
    """The rows a stream keeps for ``flag``, by keep_latest's rule on a dict: per (group, config,
    sample) key (a row added without dedup is its own), the last row that is not an infra_error
    (else the last), at the place of the key's first row."""
    first: dict[object, int] = {}
    winner: dict[object, int] = {}
    for row, (group, config, sample, outcome, flags, dedup) in enumerate(rows):
        if not flags & flag:
            continue
        key = (group, config, sample) if dedup else ("row", row)
        held = winner.get(key)
        first.setdefault(key, row)
        if held is None or outcome != "infra_error" or rows[held][3] == "infra_error":
            winner[key] = row
    return [winner[key] for key in sorted(first, key=first.get)]


ROWS = st.lists(
    st.tuples(
        st.integers(0, 2),  # the group: an env
        st.sampled_from([0, 1, 2, 2**21, 2**70]),  # configuration ids, two past the packed key's bounds
        st.sampled_from([0, 1, 2**20]),  # samples
        st.sampled_from(["success", "failure", "infra_error"]),
        st.integers(1, 3),  # shown on the page (1), counted in the tables (2), both
        st.booleans(),  # superseding (dedup) or one more row
    ),
    max_size=60,
)


@settings(max_examples=150, deadline=None)
@given(rows=ROWS, chunk=st.integers(1, 9))
def test_kept_rows_follow_keep_latest_across_chunks(rows, chunk):
    """Whatever the rows and wherever the stored chunks cut them, the stream keeps the rows
    keep_latest's rule on a dict keeps, in the same places, for the page and for the tables."""
    envs = [WG, HN, "MTP/HiddenSubset-v0"]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(stream_module, "CHUNK", chunk)
        stream = ReportStream()
        for i, (group, config, sample, outcome, flags, dedup) in enumerate(rows):
            r = EpisodeRecord.from_json(
                record(i, "model", envs[group], config_id=config, sample=sample, outcome=outcome, score=None)
            )
            stream.add(r, page=bool(flags & PAGE), table=bool(flags & TABLE), dedup=dedup)
        for flag in (PAGE, TABLE):
            assert stream.kept(flag).tolist() == kept_by_definition(rows, flag), flag
        assert [f[2] for f in stream.facts()] == [rows[i][1] for i in kept_by_definition(rows, TABLE)]


def test_the_writer_streams_its_records(tmp_path, monkeypatch):
    """write_html consumes a generator one record at a time: blocks are on disk while records are
    still being produced, and its memory does not grow with the records (tracemalloc peak over
    4,000 and 40,000 records with a transcript of ~1 KB each, rows stored 1,000 at a time)."""
    page = tmp_path / "report.html"
    on_disk: list[int] = []

    def records(n: int) -> Iterator[dict]:
        for i in range(n):
            if i == 1000:
                on_disk.append(len([p for p in blocks_dir(page).iterdir() if BLOCK_FILE.match(p.name)]))
            yield record(i, "oracle")

    stats = write_html("# r", records(1500), page, block_episodes=100)
    assert on_disk == [10]  # blocks 0-9 written before record 1000 was made
    assert stats["episodes"] == 1500 and stats["blocks"] == 15

    def peak(n: int) -> int:
        tracemalloc.start()
        try:
            write_html("# r", records(n), tmp_path / f"p{n}.html", block_episodes=500)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    monkeypatch.setattr(stream_module, "CHUNK", 1000)
    small, large = peak(4_000), peak(40_000)
    # What grows: each block's name, and each stored chunk's 257 bucket offsets (about 2 B an
    # episode at 1,000 rows a chunk, 0.06 B at the default). Rows kept in memory cost ~300 B an
    # episode; holding the episodes (the page before issue 29) ~2.5 KB each more.
    assert large - small < 36_000 * 8, (small, large)


def test_page_lists_filters_opens_and_searches_blocks(browser, tmp_path):
    dirs = big_runs(tmp_path / "runs", 1500)
    out = tmp_path / "report"
    build_report(None, dirs, out, {}, baselines=False, block_episodes=100)
    names = sorted(p.name for p in blocks_dir(out / "report.html").iterdir())
    assert len(names) == 30 and all(BLOCK_FILE.match(n) for n in names)
    html = (out / "report.html").read_text()
    assert NEEDLE not in html and "filler" not in html  # the conversations are in the blocks only
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        page.goto((out / "report.html").as_uri())
        page.wait_for_selector("body[data-ready='1']")
        assert page.inner_text("#f-count") == "3000 of 3000 episodes"
        assert page.inner_text("#page") == "page 1 of 30"
        page.select_option("#f-agent", label="random")
        assert page.inner_text("#f-count") == "1500 of 3000 episodes"
        page.fill("#f-config", "1498")
        assert page.inner_text("#f-count") == "1 of 3000 episodes"
        row = page.evaluate("state.rows[0]")
        assert page.evaluate(f"state.ix.cols.block[{row}]") == 29  # the last block
        page.click("#list tbody tr")
        page.wait_for_selector(f"#episode[data-index='{row}'] .msg")
        text = page.inner_text("#episode")
        assert "episode random MTP/HiddenNumber-v0 1498" in text and '"answer": "w01498"' in text
        assert page.locator("#episode .msg.agent").count() == 1
        # Search: the one conversation holding the word, read block by block.
        page.fill("#f-config", "")
        page.select_option("#f-agent", value="")
        page.fill("#f-text", NEEDLE.upper())  # case does not matter
        page.click("#search-go")
        page.wait_for_function("document.body.dataset.searched !== undefined", timeout=60_000)
        assert page.inner_text("#f-count") == f"1 of 3000 episodes containing “{NEEDLE.upper()}”"
        assert page.inner_text("#search-status") == f"1 episode(s) contain “{NEEDLE.upper()}”"
        page.click("#list tbody tr")
        page.wait_for_selector("#episode .msg")
        assert NEEDLE in page.inner_text("#episode") and "1495" in page.inner_text("#episode h3")
        assert page.evaluate("cache.size") <= 4  # a few blocks held, never all
        assert page.evaluate("document.scripts.length") == 2  # block scripts leave once read
        page.fill("#f-text", "")
        page.click("#search-go")
        assert page.inner_text("#f-count") == "3000 of 3000 episodes"
    finally:
        page.close()


def test_view_serves_the_blocks_and_nothing_outside(tmp_path):
    from mtp_gym.web.server import make_view_server

    dirs = big_runs(tmp_path / "runs", 30)
    out = tmp_path / "report"
    build_report(None, dirs, out, {}, baselines=False, block_episodes=10)
    (tmp_path / "secret.txt").write_text("secret")
    names = sorted(p.name for p in blocks_dir(out / "report.html").iterdir())
    assert len(names) == 6
    server = make_view_server("127.0.0.1", 0, out)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = "http://{}:{}".format(*server.server_address[:2])
    try:
        body = urllib.request.urlopen(f"{url}/report_episodes/{names[-1]}", timeout=10).read().decode()
        assert re.fullmatch(r'mtpBlock\("[0-9a-f]{8}",5,"[A-Za-z0-9+/=]+"\);\n', body)
        for bad in ("/report_episodes/../../secret.txt", "/report_episodes/%2e%2e/%2e%2e/secret.txt"):
            try:
                urllib.request.urlopen(url + bad, timeout=10)
            except urllib.error.HTTPError as err:
                assert err.code == 404
            else:
                raise AssertionError(f"{bad} was served")
    finally:
        server.shutdown()


def page_index(page: Path) -> tuple[dict, bytes]:
    """The header and the columns' bytes of a page's episode index."""
    import base64
    import gzip

    data = re.search(r'<script id="episode-index" type="application/octet-stream">([^<]*)</script>', page.read_text())
    assert data is not None
    raw = gzip.decompress(base64.b64decode(data.group(1)))
    n = int.from_bytes(raw[:4], "little")
    return json.loads(raw[4 : 4 + n]), raw[4 + n :]


def test_streamed_report_with_baselines_matches_the_records_given(tmp_path):
    """With the baselines played where a model lacks them, one streamed pass writes the tables
    and the page that the tables of load_runs' records and a page-only pass write."""
    from mtp_gym.eval.harness import AgentConfig, run_eval

    run = tmp_path / "runs" / "model"
    run_eval([WG, HN], AgentConfig("oracle"), run, split="3", progress=False)
    config = json.loads((run / CONFIG_NAME).read_text())
    config["agent_config"]["agent"] = "mymodel"
    (run / CONFIG_NAME).write_text(json.dumps(config))
    dirs = [tmp_path / "runs"]
    given = build_report(load_runs(dirs), dirs, tmp_path / "a", {}, baselines=True, warn=lambda m: None)
    streamed = build_report(None, dirs, tmp_path / "b", {}, baselines=True, warn=lambda m: None, block_episodes=4)
    assert given == streamed and "| random |" in given and "| oracle |" in given
    for name in ("report.md", "report.csv", "macro.csv"):
        assert filecmp.cmp(tmp_path / "a" / name, tmp_path / "b" / name, shallow=False), name
    (a, a_cols), (b, b_cols) = page_index(tmp_path / "a" / "report.html"), page_index(tmp_path / "b" / "report.html")
    assert a["agents"] == b["agents"] == ["mymodel", "oracle", "random"] and a["count"] == b["count"] == 18
    assert (a["tasks"], a["outcomes"]) == (b["tasks"], b["outcomes"])
    assert len(b["blocks"]) == 5  # 6 model episodes + 12 baseline ones, 4 a block
    rows = [(name, dtype, at, n) for name, dtype, at, n in a["columns"] if name not in ("block", "offset")]
    for _, dtype, at, n in rows:  # the same episodes in the same order (they lie in other blocks)
        size = int(dtype[-1]) * n
        assert a_cols[at : at + size] == b_cols[at : at + size]
